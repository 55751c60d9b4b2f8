"""What a client of the installed rust command lists is the family's skeleton (the static
comparison: tests/profiles/rust/test_rust_skeleton.py)."""

from __future__ import annotations

import json

import pytest

from codegen.skeleton import compare, load_skeleton, skeleton_path
from scripts import compare_skeleton
from tests.helpers import skeletons
from tmux_contract_mcp.profiles import load_profile

SKELETON_FILE = skeleton_path("rust")
SKELETON = load_skeleton(SKELETON_FILE)
ALL_TOOLSETS = skeletons.ALL_TOOLSETS
NOT_SERVED_YET = skeletons.NOT_SERVED_YET["rust"]


@pytest.mark.anyio
async def test_what_a_client_lists_is_the_skeleton_for_every_served_tool_and_resource() -> None:
    """What a client receives (every toolset on): the tools, the one resource, no
    resource template and no prompt."""
    listing = await compare_skeleton.listed("rust", ALL_TOOLSETS)
    comparison = compare(listing["tools"], dict(load_profile("rust").catalog), SKELETON)
    assert [str(d) for d in comparison.differences] == []
    assert comparison.extra == ()
    assert set(comparison.unserved) == NOT_SERVED_YET
    assert all("_meta" in each for each in listing["tools"])
    document = json.loads(SKELETON_FILE.read_text(encoding="utf-8"))
    assert compare_skeleton.surface_differences(listing, document) == []
    assert [r["uri"] for r in listing["resources"]] == ["tmux://capabilities"]
