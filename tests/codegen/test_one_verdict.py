"""One verdict: every checker a call passes judges every instance of every contract alike.

Arguments are judged by the contract's schema (one engine, jsonschema-rs) and
by the strict generated model (which reads them with integral floats made
ints, as ``check_arguments`` hands them over). Results are judged by the same
two. From every contract of every profile, instances are built that sit
where such checkers tend to disagree (see ``tests.corpus``); each must get one
verdict from both, ``check_arguments`` must give that verdict too, and no
checker may change what it checks. Text holding NUL or a lone surrogate is
refused by the text rule before any checker reads it (neither the engine nor
pydantic can read a lone surrogate everywhere), so there ``check_arguments``
must refuse by that rule.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from tests.helpers.corpus import instances
from tmux_contract_mcp.arguments import check_arguments
from tmux_contract_mcp.handlers.services import ArgumentsRefused
from tmux_contract_mcp.integral import integral
from tmux_contract_mcp.profiles import PROFILES, Profile, Tool, load_profile
from tmux_contract_mcp.text_rule import RULE, text_problems

COUNT = 100_000  # no cap in practice: every node of every schema is reached
LOADED: dict[str, Profile] = {name: load_profile(name) for name in PROFILES}
TOOLS = [(profile, name) for profile in PROFILES for name in sorted(LOADED[profile].tools)]


def tool_of(profile: str, name: str) -> Tool:
    tool = LOADED[profile].tool(name)
    assert tool is not None
    return tool


def model_accepts(model: type[BaseModel], value: Any) -> bool:
    try:
        model.model_validate(integral(value), strict=True)
    except ValidationError:
        return False
    return True


def arguments_refusal(tool: Tool, value: Any) -> list[str] | None:
    """What ``check_arguments`` (the judgement every call gets) says: None when it admits."""
    try:
        check_arguments(tool, value)
    except ArgumentsRefused as exc:
        return exc.problems
    return None


@pytest.mark.parametrize(("profile", "name"), TOOLS, ids=[f"{p}/{n}" for p, n in TOOLS])
def test_every_checker_gives_each_argument_instance_of_the_contract_one_verdict(
    profile: str, name: str
) -> None:
    tool = tool_of(profile, name)
    verdicts: set[bool] = set()
    broke_text_rule = 0
    for value in instances(tool.contract["inputSchema"], COUNT):
        if value is None:
            continue  # a call's arguments left out (null) are no arguments, tested elsewhere
        before = repr(value)
        refusal = arguments_refusal(tool, value)
        if text_problems(value):
            # Refused before any checker: the model could not even read some of these.
            broke_text_rule += 1
            assert refusal, f"{value!r} was admitted"
            assert all(f"(rule: {RULE})" in line for line in refusal), refusal
        else:
            full = tool.checks.input.accepts(value)
            model = model_accepts(tool.input_model, value)
            assert full == model == (refusal is None), (
                f"{value!r}: schema {full}, model {model}, check_arguments {refusal}"
            )
            verdicts.add(full)
        assert repr(value) == before, "a check changed what it checked"
    assert verdicts == {True, False}, "the corpus must hold valid and invalid instances"
    assert broke_text_rule, "the corpus must hold text the rule refuses"


@pytest.mark.parametrize(("profile", "name"), TOOLS, ids=[f"{p}/{n}" for p, n in TOOLS])
def test_every_checker_gives_each_result_instance_of_the_contract_one_verdict(
    profile: str, name: str
) -> None:
    tool = tool_of(profile, name)
    verdicts = set()
    for value in instances(tool.contract["outputSchema"], COUNT):
        if text_problems(value):
            continue  # no handler makes such text: tmux's own output cannot hold it
        before = repr(value)
        full = tool.checks.output.accepts(value)
        model = model_accepts(tool.output_model, value)
        assert repr(value) == before, "a check changed what it checked"
        assert full == model, f"{value!r}: schema {full}, model {model}"
        verdicts.add(full)
    assert verdicts == {True, False}
