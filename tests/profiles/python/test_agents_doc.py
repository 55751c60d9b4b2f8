"""docs/agents.md holds to the code: the tests it names exist, its walkthrough's calls
are valid for their tools, the README points to it, and the toolset is off by default."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema_rs
import pytest

from scripts.lab.client import ROOT, Client, contracts
from tests.helpers.contracts import tools_in_toolset

PAGE = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
CALLS: list[dict[str, Any]] = [
    json.loads(block) for block in re.findall(r"```json\n(.*?)```", PAGE, re.S)
]


def defined_tests() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        found.update(re.findall(r"^(?:async )?def (test_\w+)\(", path.read_text(), re.M))
    return found


def test_every_test_the_agents_page_names_exists() -> None:
    named = set(re.findall(r"`(test_\w+)`", PAGE))
    assert len(named) >= 20, named
    assert named - defined_tests() == set()


@pytest.mark.parametrize("call", CALLS, ids=[f"{n}-{c['tool']}" for n, c in enumerate(CALLS)])
def test_the_walkthrough_calls_are_valid_for_their_tools(call: dict[str, Any]) -> None:
    assert call["tool"] in tools_in_toolset("agents") | {"capture_pane", "send_keys"}
    schema = contracts("python")[call["tool"]]["inputSchema"]
    jsonschema_rs.validator_for(schema).validate(call["arguments"])


def test_the_walkthrough_uses_every_agents_tool() -> None:
    assert {call["tool"] for call in CALLS} == tools_in_toolset("agents")


def test_the_readme_points_to_the_agents_page_in_at_most_three_lines() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    at = next(n for n, line in enumerate(lines) if "`agents` toolset" in line)
    assert "docs/agents.md" in " ".join(lines[at : at + 3])


@pytest.mark.anyio
async def test_the_default_tool_list_offers_no_agents_tool(python_client: Client) -> None:
    listed = {tool.name for tool in (await python_client.session.list_tools()).tools}
    agents = tools_in_toolset("agents")
    assert agents == {"wait_for_quiet", "submit_text", "pane_state", "launch_panes"}
    assert listed & agents == set()
    assert "wait_for_text" in listed
