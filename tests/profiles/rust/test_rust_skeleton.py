"""The rust profile's advertised tools against the family's interface skeleton.

The skeleton (contracts/upstream/rust-profile-skeleton.json, a verbatim copy of
the shared reference so a clean clone can run this) records the family's 45
tools as its server lists them, descriptions removed. Every tool served must
equal it in title, toolset, annotations, input and output schema and ``_meta``;
the tools not served yet are named here, so serving one more means updating
``NOT_SERVED_YET``. ``make compare-skeleton PROFILE=rust`` prints the comparison.
"""

from __future__ import annotations

import hashlib

from codegen.skeleton import compare, load_skeleton, skeleton_path
from scripts import compare_skeleton
from scripts.lab.client import ROOT
from tests.helpers import skeletons
from tmux_contract_mcp.profiles import load_profile

SKELETON_FILE = skeleton_path("rust")
SHARED_SKELETON = ROOT.parent / "shared" / "reference" / "rust-profile-skeleton.json"
SKELETON_SHA256 = "9f2b788e13b70f2c53c9c86d54075e3ea7490b3f471cc76d58728d2bf1842d0b"
SKELETON = load_skeleton(SKELETON_FILE)
ALL_TOOLSETS = skeletons.ALL_TOOLSETS

NOT_SERVED_YET = skeletons.NOT_SERVED_YET["rust"]


def test_the_skeleton_copy_is_verbatim() -> None:
    data = SKELETON_FILE.read_bytes()
    if SHARED_SKELETON.is_file():
        assert data == SHARED_SKELETON.read_bytes()
    assert hashlib.sha256(data).hexdigest() == SKELETON_SHA256
    assert len(SKELETON) == 45


def test_every_served_tool_is_the_skeletons_and_the_rest_are_named() -> None:
    tools = compare_skeleton.static_tools("rust")
    comparison = compare(tools, dict(load_profile("rust").catalog), SKELETON)
    assert [str(d) for d in comparison.differences] == []
    assert comparison.extra == ()
    assert set(comparison.unserved) == NOT_SERVED_YET
    assert len(comparison.equal) + len(NOT_SERVED_YET) == 45


def test_the_command_reports_the_rust_profile_equal() -> None:
    assert compare_skeleton.main(["--profile", "rust", "--static"]) == 0
