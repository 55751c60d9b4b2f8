"""Generated model names are ones a person would write, and no client is ever sent one.

A refusal names the field, the rule and what to do next in the contract's own
terms; a class name the model generator made up (a batch alternative, a
``$defs`` entry) would mean nothing to an agent. Every argument and result
instance of the corpus (``tests.corpus``) that a checker refuses is put
through the runtime's own wording, for every tool of every profile.
"""

from __future__ import annotations

import importlib
import inspect
import re

import pytest
from pydantic import BaseModel

from tests.helpers.corpus import instances
from tmux_contract_mcp.arguments import check_arguments
from tmux_contract_mcp.handlers.services import ArgumentsRefused
from tmux_contract_mcp.integral import integral
from tmux_contract_mcp.profiles import PROFILES, Tool, load_profile

COUNT = 100_000
TOOLS = [(profile, tool) for profile in PROFILES for tool in load_profile(profile).tools.values()]
IDS = [f"{profile}/{tool.entry.name}" for profile, tool in TOOLS]


def model_classes(tool: Tool) -> set[str]:
    """Every model class the tool's generated module defines."""
    module = importlib.import_module(tool.entry.models_module)
    return {
        name
        for name, value in vars(module).items()
        if inspect.isclass(value)
        and issubclass(value, BaseModel)
        and value.__module__ == module.__name__
    }


def naming(classes: set[str], text: str) -> list[str]:
    return [name for name in classes if re.search(rf"\b{re.escape(name)}\b", text)]


@pytest.mark.parametrize(("profile", "tool"), TOOLS, ids=IDS)
def test_no_refusal_of_arguments_names_a_generated_class(profile: str, tool: Tool) -> None:
    classes = model_classes(tool)
    refused = 0
    for value in instances(tool.contract["inputSchema"], COUNT):
        try:
            check_arguments(tool, value)
        except ArgumentsRefused as exc:
            refused += 1
            for line in exc.problems:
                assert not naming(classes, line), line
    assert refused, "the corpus must hold instances the contract refuses"


@pytest.mark.parametrize(("profile", "tool"), TOOLS, ids=IDS)
def test_no_broken_result_report_names_a_generated_class(profile: str, tool: Tool) -> None:
    classes = model_classes(tool)
    broken = 0
    for value in instances(tool.contract["outputSchema"], COUNT):
        if tool.checks.output.accepts(integral(value)):
            continue
        broken += 1
        for line in tool.checks.output.problems(value):
            assert not naming(classes, line), line
    assert broken


def test_batch_alternatives_are_named_for_the_tool_they_call() -> None:
    swift = load_profile("swift").tool("call_read_tools_batch")
    assert swift is not None
    classes = model_classes(swift)
    branches = swift.contract["inputSchema"]["properties"]["operations"]["items"]["oneOf"]
    for branch in branches:
        name = "".join(part.title() for part in branch["properties"]["tool"]["const"].split("_"))
        assert f"{name}Operation" in classes
        if branch["properties"].get("arguments", {}).get("properties"):
            assert f"{name}OperationArguments" in classes


@pytest.mark.parametrize(("profile", "tool"), TOOLS, ids=IDS)
def test_no_generated_class_name_is_numbered_or_says_a_root_twice(profile: str, tool: Tool) -> None:
    roots = (tool.entry.input_model, tool.entry.output_model)
    for name in model_classes(tool):
        assert not re.search(r"\d", name), name
        assert not any(name.startswith(root * 2) for root in roots), name
        assert not name.endswith("Schema"), name
