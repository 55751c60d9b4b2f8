"""The schema check never changes what it checks.

Calls and results are checked by the contract's schema (its agreement with the
models is ``test_one_verdict``'s). A checker that filled in a schema's defaults
where a value leaves them out would change the arguments a handler gets and the
result about to be sent.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.helpers.corpus import Corpus
from tmux_contract_mcp.arguments import check_arguments
from tmux_contract_mcp.profiles import PROFILES, Tool, load_profile
from tmux_contract_mcp.validation import Schema

TOOLS = [tool for name in PROFILES for tool in load_profile(name).tools.values()]


def has_default(node: Any) -> bool:
    if isinstance(node, dict):
        return "default" in node or any(has_default(value) for value in node.values())
    if isinstance(node, list):
        return any(has_default(item) for item in node)
    return False


def minimal(schema: dict[str, Any]) -> Any:
    """The schema's smallest valid value: required properties only, so defaults are left out."""
    return Corpus(schema).sample(schema)


@pytest.mark.parametrize("which", ["inputSchema", "outputSchema"])
def test_the_schema_check_writes_no_default_into_what_it_checks(which: str) -> None:
    with_defaults = [tool for tool in TOOLS if has_default(tool.contract[which])]
    assert with_defaults, f"no {which} has a default: the test would prove nothing"
    left_out = 0
    for tool in with_defaults:
        schema = tool.contract[which]
        value = minimal(schema)
        before = copy.deepcopy(value)
        check = Schema(schema)
        assert check.accepts(value), (tool.entry.name, value)
        assert check.problems(value) == []
        assert value == before, (tool.entry.name, "the check changed the value")
        defaulted = {name for name, sub in schema.get("properties", {}).items() if "default" in sub}
        left_out += isinstance(value, dict) and bool(defaulted - value.keys())
    assert left_out, "no minimal value left a defaulted property out to be filled in"


def served(profile: str, name: str) -> Tool:
    tool = load_profile(profile).tool(name)
    assert tool is not None
    return tool


def test_checking_arguments_leaves_the_callers_dict_as_it_was() -> None:
    # max_lines defaults to 500 in the contract, and -5.0 becomes the int -5 for the
    # model: neither may reach the dict the caller passed.
    tool = served("python", "capture_pane")
    for arguments in ({"start": -5}, {"start": -5.0}):
        sent = copy.deepcopy(arguments)
        params = check_arguments(tool, arguments)
        assert repr(arguments) == repr(sent)
        assert params.model_dump(exclude_unset=True) == {"start": -5}


def test_checking_a_result_leaves_it_as_it_was() -> None:
    tool = served("python", "call_read_tools_batch")
    result: dict[str, Any] = {"succeeded": 0, "failed": 0}  # response_truncated* left out
    assert tool.checks.output.accepts(result)
    assert result == {"succeeded": 0, "failed": 0}
