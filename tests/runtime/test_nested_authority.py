"""A read batch's nested authority follows the tool selection.

The families' call_read_tools_batch advertises, in its capability record, the
tools it may call. A tool the selection leaves out (LIBTMUX_EXCLUDE_TOOLS here)
leaves that list too, in tools/list and in ``tmux://capabilities``, and the batch
refuses to call it before anything reaches tmux; with the default selection the
list is the family skeleton's, unchanged. The contract asks for this with data
(``cut_to_served`` under its project metadata), which codegen checks.

Profiles take part when their generated batch advertises a nested authority.
"""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from codegen.checks import ContractError, check_profile, check_tool
from codegen.model import Profile as ContractProfile
from codegen.model import Tool as ContractTool
from codegen.model import load_profile as load_contracts
from codegen.skeleton import load_skeleton, skeleton_path
from scripts.lab.client import ROOT, Client, error_text, open_in_process
from scripts.lab.tmuxserver import TmuxServer
from tmux_contract_mcp.dispatch import ServedRuntime
from tmux_contract_mcp.generated import PROFILES
from tmux_contract_mcp.profiles import load_profile

BATCH = "call_read_tools_batch"
CAPABILITY = "com.git-pull.libtmux-mcp/capability"
POINTER = "/_meta/com.git-pull.libtmux-mcp~1capability/nestedAuthority"
EXCLUDED = "capture_pane"


def batch_contract(profile: str) -> dict[str, Any] | None:
    listing = json.loads((ROOT / "generated" / profile / "tools.json").read_text("utf-8"))
    return next((tool for tool in listing["tools"] if tool["name"] == BATCH), None)


def with_nested_authority() -> list[str]:
    found = []
    for profile in PROFILES:
        contract = batch_contract(profile)
        if contract is not None and "nestedAuthority" in contract.get("_meta", {}).get(
            CAPABILITY, {}
        ):
            found.append(profile)
    return found


NESTING = with_nested_authority()


def skeleton_authority(profile: str) -> list[str]:
    tool = load_skeleton(skeleton_path(profile))[BATCH]
    return list(tool["meta"][CAPABILITY]["nestedAuthority"])


def authority(tool: dict[str, Any]) -> list[str]:
    return list(tool["_meta"][CAPABILITY]["nestedAuthority"])


def test_the_swift_batch_takes_part() -> None:
    assert "swift" in NESTING


# --- the marker and the cut, without a server ---------------------------------------


@pytest.mark.parametrize("profile", NESTING)
def test_the_batch_contract_marks_its_nested_authority_for_the_cut(profile: str) -> None:
    (entry,) = (e for e in load_profile(profile).tools.values() if e.entry.name == BATCH)
    assert entry.entry.cut_to_served == (POINTER,)


@pytest.mark.parametrize("profile", NESTING)
def test_the_cut_keeps_the_skeletons_order_and_leaves_the_loaded_contract_alone(
    profile: str,
) -> None:
    loaded = load_profile(profile)
    before = copy.deepcopy(loaded.tools[BATCH].contract)
    shown = loaded.shown({"LIBTMUX_EXCLUDE_TOOLS": f"{EXCLUDED},list_panes"})
    expected = [n for n in skeleton_authority(profile) if n not in {EXCLUDED, "list_panes"}]
    assert authority(shown.tools[BATCH].contract) == expected
    advertised = shown.tools[BATCH].advertised.model_dump(by_alias=True)
    assert authority(advertised) == expected
    served = ServedRuntime(shown).tool(BATCH)
    assert served is not None and authority(dict(served.advertised)) == expected
    assert loaded.tools[BATCH].contract == before  # the profile as loaded is not cut
    assert authority(loaded.shown({}).tools[BATCH].contract) == skeleton_authority(profile)


def swift_contracts() -> tuple[ContractProfile, ContractTool]:
    profile = load_contracts(ROOT / "contracts", "swift", ROOT)
    (batch,) = (tool for tool in profile.tools if tool.name == BATCH)
    return profile, batch


def marked(tool: ContractTool, pointers: Any) -> ContractTool:
    contract = copy.deepcopy(tool.contract)
    contract["x-tmux-contract-mcp"]["cut_to_served"] = pointers
    return ContractTool(tool.profile, tool.path, tool.relpath, contract)


@pytest.mark.parametrize(
    ("pointers", "words"),
    [
        ("/_meta", "must be a list of JSON pointers"),
        (["_meta/x"], "must start with '/'"),
        (["/inputSchema/required"], "is outside _meta"),
        (["/_meta/com.git-pull.libtmux-mcp~1capability/nope"], "leads nowhere: no key 'nope'"),
        (["/_meta/com.git-pull.libtmux-mcp~1capability/mayExposeSecrets"], "list of tool names"),
    ],
)
def test_codegen_refuses_a_marker_that_leads_to_no_list_of_names(pointers: Any, words: str) -> None:
    _, batch = swift_contracts()
    with pytest.raises(ContractError, match="cut_to_served") as refused:
        check_tool(marked(batch, pointers))
    assert words in str(refused.value)


def test_codegen_refuses_a_nested_authority_naming_a_tool_the_profile_lacks() -> None:
    profile, batch = swift_contracts()
    tool = marked(batch, [POINTER])
    tool.contract["_meta"][CAPABILITY]["nestedAuthority"].append("no_such_tool")
    check_tool(tool)  # the pointer leads to a list of names: the profile check judges them
    others = tuple(t for t in profile.tools if t.name != BATCH)
    with pytest.raises(ContractError, match="names no_such_tool, not tools of profile 'swift'"):
        check_profile(ContractProfile("swift", (*others, tool), profile.description))


# --- through the real client ------------------------------------------------------


@pytest.fixture(scope="module", params=NESTING)
async def pair(
    request: pytest.FixtureRequest, shared: TmuxServer
) -> AsyncIterator[tuple[str, Client, Client]]:
    """The profile's server with the default selection and one without capture_pane."""
    profile = str(request.param)
    async with (
        open_in_process(shared.server_env(), profile) as default,
        open_in_process(shared.server_env(LIBTMUX_EXCLUDE_TOOLS=EXCLUDED), profile) as cut,
    ):
        yield profile, default, cut


async def listed_batch(client: Client) -> dict[str, Any]:
    (tool,) = (t for t in (await client.session.list_tools()).tools if t.name == BATCH)
    return tool.model_dump(mode="json", by_alias=True, exclude_none=True)


async def capabilities_batch(client: Client) -> dict[str, Any]:
    found = await client.read("tmux://capabilities", "capabilities")
    (row,) = (row for row in found["tools"] if row["name"] == BATCH)
    return dict(row)


def pane_argument(batch: dict[str, Any]) -> str:
    """The name the batch's capture_pane operation gives its pane (``paneId``, ``pane``)."""
    for option in batch["inputSchema"]["properties"]["operations"]["items"]["oneOf"]:
        if option["properties"]["tool"].get("const") == EXCLUDED:
            return str(option["properties"]["arguments"]["required"][0])
    raise AssertionError(f"the batch's input schema has no {EXCLUDED} operation")


@pytest.mark.anyio
async def test_with_the_default_selection_the_nested_authority_is_the_skeletons(
    pair: tuple[str, Client, Client],
) -> None:
    profile, default, _ = pair
    expected = skeleton_authority(profile)
    assert authority(await listed_batch(default)) == expected
    assert (await capabilities_batch(default))["nestedAuthority"] == expected


@pytest.mark.anyio
async def test_an_excluded_tool_leaves_the_advertised_nested_authority(
    pair: tuple[str, Client, Client],
) -> None:
    profile, _, cut = pair
    expected = [name for name in skeleton_authority(profile) if name != EXCLUDED]
    listed = await listed_batch(cut)
    assert authority(listed) == expected
    row = await capabilities_batch(cut)
    assert row["nestedAuthority"] == expected
    assert {k: v for k, v in row.items() if k != "nestedAuthority"} == {
        k: v for k, v in (await capabilities_batch(pair[1])).items() if k != "nestedAuthority"
    }  # nothing else of the record changes


@pytest.mark.anyio
async def test_an_excluded_tool_in_a_batch_never_reaches_tmux(
    shared: TmuxServer, pair: tuple[str, Client, Client]
) -> None:
    """swift refuses the whole batch before anything runs; rust, as its family does, fails
    that operation's row with a JSON-RPC error and runs the others."""
    profile, default, cut = pair
    pane = shared.tmux("display-message", "-p", "-t", "main", "#{pane_id}").strip()
    key = pane_argument(await listed_batch(cut))
    operations = [{"tool": "list_sessions"}, {"tool": EXCLUDED, "arguments": {key: pane}}]
    ran = await default.session.call_tool(BATCH, {"operations": operations})  # served: both run
    answer = ran.structured_content
    assert not ran.is_error and answer is not None
    assert [row["success"] for row in answer["results"]] == [True, True]
    mark = shared.mark()
    result = await cut.session.call_tool(BATCH, {"operations": operations})
    if profile == "rust":
        rows = (result.structured_content or {})["results"]
        assert not result.is_error and [row["success"] for row in rows] == [True, False]
        assert "not served" in rows[1]["error"]["message"] and rows[1].get("result") is None
        sent = shared.sent_since(mark)
        assert any(s.reaches_a_server for s in sent), "the log sees list_sessions run"
        assert not [s for s in sent if s.command == "capture-pane"], "capture_pane ran"
        return
    assert result.is_error and result.structured_content is None
    text = error_text(result)
    assert "operations[1].tool" in text and EXCLUDED in text and "not served" in text
    shared.assert_nothing_sent_since(mark, "a batch naming an excluded tool")
