"""The swift profile's advertised tools against the family's interface skeleton.

The skeleton (contracts/upstream/swift-profile-skeleton.json, a verbatim copy of
the shared reference so a clean clone can run this) records the family's 45
tools as its server lists them, descriptions removed. Every tool served must
equal it in title, toolset, annotations, input and output schema and ``_meta``;
the tools not served yet are named here, so serving one more means updating
``NOT_SERVED_YET`` (and the list reaches empty when the surface is complete).
The comparison is ``codegen.skeleton``; ``make compare-skeleton`` prints it.
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from codegen import vendor
from codegen.skeleton import (
    MISSING,
    Difference,
    compare,
    compare_tool,
    load_skeleton,
    skeleton_path,
    strip_docs,
)
from scripts import compare_skeleton
from scripts.lab.client import ROOT
from tests.helpers import skeletons
from tests.helpers.skeletons import swift_served_toolsets as served_toolsets
from tmux_contract_mcp.profiles import load_profile

SKELETON_FILE = skeleton_path("swift")
SHARED_SKELETON = ROOT.parent / "shared" / "reference" / "swift-profile-skeleton.json"
SKELETON_SHA256 = "b7ea52889d06b9fbf4bcc8842e1baa7afdd2f988a0657fb2bb97a061ff608312"
SKELETON = load_skeleton(SKELETON_FILE)
ALL_TOOLSETS = skeletons.ALL_TOOLSETS

NOT_SERVED_YET = skeletons.NOT_SERVED_YET["swift"]


def static_tools() -> list[dict[str, Any]]:
    return compare_skeleton.static_tools("swift")


def tool(name: str) -> dict[str, Any]:
    (found,) = (t for t in static_tools() if t["name"] == name)
    return copy.deepcopy(found)


def test_the_skeleton_copy_is_verbatim() -> None:
    data = SKELETON_FILE.read_bytes()
    if SHARED_SKELETON.is_file():
        assert data == SHARED_SKELETON.read_bytes()
    assert hashlib.sha256(data).hexdigest() == SKELETON_SHA256
    assert len(SKELETON) == 45


def test_every_served_tool_is_the_skeletons_and_the_rest_are_named() -> None:
    comparison = compare(static_tools(), served_toolsets(), SKELETON)
    assert [str(d) for d in comparison.differences] == []
    assert comparison.extra == ()
    assert set(comparison.unserved) == NOT_SERVED_YET
    assert set(comparison.equal) == set(SKELETON) - NOT_SERVED_YET
    assert len(comparison.equal) + len(NOT_SERVED_YET) == 45


# --- the comparison finds what differs ---------------------------------------------------


@pytest.mark.parametrize(
    ("change", "where", "ours", "theirs"),
    [
        (
            lambda t: t["outputSchema"]["properties"]["sessions"]["items"]["properties"][
                "createdAt"
            ].update(type="string"),
            "outputSchema/properties/sessions/items/properties/createdAt/type",
            "string",
            "integer",
        ),
        (
            lambda t: t["outputSchema"]["properties"]["sessions"]["items"]["properties"][
                "windowCount"
            ].update(minimum=0),
            "outputSchema/properties/sessions/items/properties/windowCount/minimum",
            0,
            MISSING,
        ),
        (
            lambda t: t["outputSchema"]["properties"]["sessions"]["items"]["required"].reverse(),
            "outputSchema/properties/sessions/items/required",
            ["windowCount", "ref", "name", "isAttached", "id", "createdAt"],
            ["createdAt", "id", "isAttached", "name", "ref", "windowCount"],
        ),
        (lambda t: t.update(title="Sessions"), "title", "Sessions", "List sessions"),
        (
            lambda t: t["annotations"].update(readOnlyHint=True),
            "annotations/readOnlyHint",
            True,
            False,
        ),
        (
            lambda t: t["_meta"]["com.git-pull.libtmux-mcp/capability"].update(processReach="x"),
            "_meta/com.git-pull.libtmux-mcp~1capability/processReach",
            "x",
            "none",
        ),
    ],
    ids=["type", "extra-bound", "required-order", "title", "hint", "meta"],
)
def test_a_changed_tool_is_reported_at_the_json_pointer_of_the_change(
    change: Any, where: str, ours: Any, theirs: Any
) -> None:
    changed = tool("list_sessions")
    change(changed)
    found = compare_tool(changed, "inspect", SKELETON["list_sessions"])
    assert found == [Difference("list_sessions", where, ours, theirs)]


def test_a_missing_meta_and_a_wrong_toolset_are_reported() -> None:
    changed = tool("show_hooks")
    del changed["_meta"]
    found = compare_tool(changed, "manage", SKELETON["show_hooks"])
    assert [(d.where, d.ours, d.skeleton) for d in found] == [
        ("toolset", "manage", "inspect"),
        ("_meta", MISSING, SKELETON["show_hooks"]["meta"]),
    ]


def test_descriptions_are_not_compared_but_a_property_named_title_is_kept() -> None:
    schema = {
        "type": "object",
        "description": "ours",
        "properties": {"title": {"type": "string", "title": "T", "description": "d"}},
    }
    assert strip_docs(schema) == {"type": "object", "properties": {"title": {"type": "string"}}}
    described = tool("get_server_info")
    described["description"] = "anything at all"
    described["inputSchema"]["description"] = "more words"
    assert compare_tool(described, "inspect", SKELETON["get_server_info"]) == []


def test_the_comparison_is_the_same_for_another_profiles_skeleton() -> None:
    """The python skeleton lost set_pane_title's property ``title`` when titles were
    removed from it; that is the one difference the python profile shows."""
    tools = compare_skeleton.static_tools("python")
    comparison = compare(
        tools, dict(load_profile("python").catalog), load_skeleton(skeleton_path("python"))
    )
    assert [(d.tool, d.where) for d in comparison.differences] == [
        ("set_pane_title", "inputSchema/properties/title")
    ]
    assert comparison.unserved == ()


# --- the command -------------------------------------------------------------------------


def test_the_command_prints_each_difference_and_the_unserved_tools(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = json.loads(SKELETON_FILE.read_text(encoding="utf-8"))
    (target,) = (t for t in document["tools"] if t["name"] == "capture_since")
    target["outputSchema"]["properties"]["linesMissed"]["type"] = "integer"
    changed = tmp_path / "skeleton.json"
    changed.write_text(json.dumps(document), encoding="utf-8")

    status = compare_skeleton.main(["--profile", "swift", "--static", "--skeleton", str(changed)])
    out = capsys.readouterr().out
    assert status == 1
    assert (
        'capture_since: outputSchema/properties/linesMissed/type: ours "boolean", '
        'skeleton "integer"' in out
    )
    assert f"{len(SKELETON) - len(NOT_SERVED_YET) - 1} equal to it, 1 differences" in out
    assert ", ".join(sorted(NOT_SERVED_YET)) in out

    assert compare_skeleton.main(["--profile", "swift", "--static"]) == 0
    assert "0 differences" in capsys.readouterr().out


# --- vendoring the batch: the seed and the skeleton must agree ----------------------------


def test_the_batch_takes_its_meta_from_the_skeleton_and_its_schemas_from_the_seed() -> None:
    (entry,) = (e for e in vendor.VENDORED if e.tool == "call_read_tools_batch")
    contract = vendor.extract(entry)
    assert contract["_meta"] == SKELETON["call_read_tools_batch"]["meta"]
    assert strip_docs(contract["inputSchema"]) == SKELETON["call_read_tools_batch"]["inputSchema"]


def test_vendoring_stops_when_the_skeleton_and_the_seed_disagree(tmp_path: Path) -> None:
    (entry,) = (e for e in vendor.VENDORED if e.tool == "call_read_tools_batch")
    for source in entry.sources:
        (tmp_path / source).write_bytes((vendor.UPSTREAM / source).read_bytes())
    document = json.loads(SKELETON_FILE.read_text(encoding="utf-8"))
    (batch,) = (t for t in document["tools"] if t["name"] == "call_read_tools_batch")
    batch["inputSchema"]["properties"]["onError"]["enum"] = ["stop"]
    (tmp_path / "swift-profile-skeleton.json").write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(vendor.SeedFormatError, match="disagree on 'inputSchema'"):
        vendor.extract(entry, tmp_path)
