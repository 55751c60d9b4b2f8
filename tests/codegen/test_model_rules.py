"""The generated models check patterns and byte limits as the contract means them.

A contract pattern that the engines could read differently fails the contract
check before anything is generated; so does a byte limit the models could not
check.
"""

from __future__ import annotations

import copy
import dataclasses
import re
import sys
import types
from typing import Any

import pytest
from pydantic import ValidationError

from codegen.checks import ContractError, check_tool
from codegen.generate import model_source, models
from codegen.model_rules import patterns
from tests.helpers.contracts import CONTRACTS, load_tool


def get_tmux_variables(pattern: str) -> Any:
    tool = load_tool(CONTRACTS / "swift" / "get_tmux_variables.json")
    contract = copy.deepcopy(tool.contract)
    contract["inputSchema"]["properties"]["names"]["items"]["pattern"] = pattern
    return dataclasses.replace(tool, contract=contract)


@pytest.mark.parametrize("pattern", ["^[a-z]+\\Z", "(?<=a)b", "(?P<n>a)(?P=n)", "^\\w+$"])
def test_a_pattern_the_engines_cannot_read_alike_fails_the_contract_check(pattern: str) -> None:
    where = "contracts/swift/get_tmux_variables.json: inputSchema: pattern"
    with pytest.raises(ContractError, match=re.escape(where)):
        check_tool(get_tmux_variables(pattern))


def test_the_contract_check_passes_an_ecma_pattern_both_engines_read_alike() -> None:
    check_tool(get_tmux_variables("^[A-Za-z_][A-Za-z0-9_]*$"))


def test_the_models_get_each_pattern_as_the_contract_writes_it() -> None:
    code, _ = model_source(get_tmux_variables("^[A-Za-z_][A-Za-z0-9_]*$"))
    assert (
        "pattern='^[A-Za-z_][A-Za-z0-9_]*$'" in code or 'pattern="^[A-Za-z_][A-Za-z0-9_]*$"' in code
    )
    schema = {
        "properties": {"p": {"pattern": "^a$"}, "kind": {"const": {"pattern": "^b$"}}},
        "patternProperties": {"^c$": {"pattern": "d"}},
    }
    assert sorted(patterns(schema)) == ["^a$", "^c$", "d"]


def test_a_byte_limit_the_models_cannot_check_stops_generation() -> None:
    tool = load_tool(CONTRACTS / "swift" / "get_tmux_variables.json")
    contract = copy.deepcopy(tool.contract)
    # A limit two arrays deep: a model checks an object's own strings and the items of
    # its own arrays, nothing deeper.
    names = contract["inputSchema"]["properties"]["names"]
    names["items"] = {"type": "array", "items": {"type": "string", "x-libtmux-max-utf8-bytes": 64}}
    with pytest.raises(RuntimeError, match="1 byte limits in the schemas, but the models check 0"):
        model_source(dataclasses.replace(tool, contract=contract))


def test_a_limited_property_gets_a_validator_from_the_profiles_limits_module() -> None:
    code, limits = model_source(load_tool(CONTRACTS / "swift" / "search_panes.json"))
    assert limits == {4096}
    assert "from tmux_contract_mcp.generated.swift.limits import at_most_4096_utf8_bytes" in code
    assert '@field_validator("pattern", mode="after")' in code


def limited_text(limit: int = 4096) -> dict[str, Any]:
    return {"type": "string", "x-libtmux-max-utf8-bytes": limit}


def test_an_inner_object_with_a_byte_limit_is_named_and_checked_without_a_second_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The limited object gets a name of naming.py's (rule 5), the validator names that class,
    and the module the generator writes refuses what the schema refuses."""
    schema = {
        "type": "object",
        "properties": {
            "filter": {
                "type": "object",
                "properties": {
                    "text": limited_text(),
                    "tags": {"type": "array", "items": limited_text()},
                },
                "additionalProperties": False,
            }
        },
        "additionalProperties": False,
    }
    code, limits = models({"FindInput": schema}, "swift", "A test module.", "here")
    assert limits == {4096}
    assert "class FindInputFilter(Model):" in code
    assert '@field_validator("text", "tags", mode="after")' in code
    module = types.ModuleType("scratch_find_models")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(code, "here", "exec"), module.__dict__)
    model = module.FindInput
    model.model_validate({"filter": {"text": "é" * 2048, "tags": ["é" * 2048]}}, strict=True)
    for filter in ({"text": "é" * 2049}, {"tags": ["a", "é" * 2049]}):
        with pytest.raises(ValidationError, match="x-libtmux-max-utf8-bytes"):
            model.model_validate({"filter": filter}, strict=True)


def test_a_byte_limit_on_a_property_python_cannot_spell_stops_generation() -> None:
    schema = {"type": "object", "properties": {"from": limited_text()}}
    with pytest.raises(RuntimeError, match=r"FromInput\.from carries x-libtmux-max-utf8-bytes"):
        models({"FromInput": schema}, "swift", "A test module.", "here")
