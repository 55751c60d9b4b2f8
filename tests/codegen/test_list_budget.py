"""What every conversation pays to read this server stays within its budget.

The advertised tool list is read by the model at the start of every conversation, so its
size is a cost, held in bytes as a client reads them off stdio (a size, never a time:
tests/e2e/test_list_budget.py).
Each description must still tell the model what the tool returns."""

from __future__ import annotations

import json
import re

import pytest

from codegen.contract_file import METADATA_KEY
from scripts.lab.client import ROOT, contracts

GENERATED = ROOT / "generated"
EVERY_TOOLSET = "inspect,manage,execute,teardown"


# A description says what the tool gives back: "Returns …" (or, for a tool whose answer is
# only its outcome, what that outcome is), in the tool's own words.
RETURNS = re.compile(r"\bReturns\b")

# The seed documents fix these descriptions word for word.
VENDORED = {("python", "select_pane"), ("python", "find_pane_by_position")}
VENDORED |= {("rust", "select_pane"), ("swift", "call_read_tools_batch")}


def described_tools() -> list[tuple[str, str]]:
    return [
        (profile, name)
        for profile in ("python", "rust", "swift")
        for name in sorted(contracts(profile))
        if (profile, name) not in VENDORED
    ]


@pytest.mark.parametrize(("profile", "name"), described_tools())
def test_each_description_says_what_the_tool_returns(profile: str, name: str) -> None:
    description = contracts(profile)[name]["description"]
    assert RETURNS.search(description), f"{profile} {name}: {description!r}"


@pytest.mark.parametrize(("profile", "name"), described_tools())
def test_notes_reach_the_reference_page_and_never_the_list(profile: str, name: str) -> None:
    """Notes are the long explanations, for people: rendered on the tool's reference page,
    never part of what a client is sent."""
    contract = contracts(profile)[name]
    notes = contract.get(METADATA_KEY, {}).get("notes", [])
    page = (GENERATED / profile / "docs" / f"{name}.md").read_text(encoding="utf-8")
    listed = (GENERATED / profile / "tools.json").read_text(encoding="utf-8")
    for note in notes:
        assert note in page
        assert json.dumps(note, ensure_ascii=False)[1:-1] not in listed


# The python family's targeting arguments: how they resolve is said once, in the server
# instructions; on a tool an argument says at most what is particular to that tool.
TARGETING = ("socket_name", "pane_id", "session_name", "session_id", "window_id", "window_index")
FEW_WORDS = 80  # characters


@pytest.mark.parametrize("name", [n for p, n in described_tools() if p == "python"])
def test_python_targeting_arguments_say_only_what_is_particular(name: str) -> None:
    properties = contracts("python")[name]["inputSchema"].get("properties", {})
    long = {
        argument: properties[argument]["description"]
        for argument in TARGETING
        if len(properties.get(argument, {}).get("description", "")) > FEW_WORDS
    }
    assert long == {}
