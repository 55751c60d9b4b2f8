"""Resource and prompt contracts: each passes the generator's checks, and a broken one is refused."""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Callable
from typing import Any

import pytest

from codegen.checks import ContractError
from codegen.contract_file import METADATA_KEY
from codegen.surface_checks import check_prompt, check_resource
from codegen.surfaces import Prompt, Resource, load_prompts, load_resources
from scripts.lab.client import ROOT
from tests.helpers.contracts import CONTRACTS
from tmux_contract_mcp.profiles import PROFILES

RESOURCES = [r for profile in PROFILES for r in load_resources(CONTRACTS, profile, ROOT)]
PROMPTS = [p for profile in PROFILES for p in load_prompts(CONTRACTS, profile, ROOT)]


def resource(name: str) -> Resource:
    return next(r for r in RESOURCES if r.name == name)


def prompt(name: str) -> Prompt:
    return next(p for p in PROMPTS if p.name == name)


def test_the_python_profile_declares_six_templates_and_four_prompts() -> None:
    assert sorted(r.name for r in RESOURCES if r.profile == "python") == [
        "get_pane",
        "get_pane_content",
        "get_session",
        "get_session_windows",
        "get_sessions",
        "get_window",
    ]
    assert sorted(p.name for p in PROMPTS if p.profile == "python") == [
        "build_dev_workspace",
        "diagnose_failing_pane",
        "interrupt_gracefully",
        "run_and_wait",
    ]


@pytest.mark.parametrize("item", RESOURCES, ids=lambda r: r.relpath)
def test_resource_contract_passes_its_checks(item: Resource) -> None:
    check_resource(item)
    assert METADATA_KEY not in item.advertised


@pytest.mark.parametrize("item", PROMPTS, ids=lambda p: p.relpath)
def test_prompt_contract_passes_its_checks(item: Prompt) -> None:
    check_prompt(item)
    assert METADATA_KEY not in item.advertised


def variables(contract: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = contract[METADATA_KEY]["variables"]
    return found


@pytest.mark.parametrize(
    ("breakage", "message"),
    [
        (lambda c: c.update(surprise=1), "Additional properties are not allowed"),
        (lambda c: c.pop("mimeType"), "'mimeType' is a required property"),
        (lambda c: c.update(uri="tmux://x"), "is valid under each of"),
        (
            lambda c: c.update(uriTemplate="tmux://panes/{pane}{?socket_name}"),
            "the URI names ['pane', 'socket_name']",
        ),
        (
            lambda c: variables(c)["required"].append("socket_name"),
            "exactly the path variables ['pane_id'] must be required",
        ),
        (
            lambda c: variables(c)["properties"]["pane_id"].update(type="integer"),
            "variable 'pane_id' must be a string",
        ),
        (
            lambda c: variables(c).pop("additionalProperties"),
            "must set additionalProperties to false",
        ),
        (lambda c: c[METADATA_KEY].pop("result"), "a result schema is required"),
        (
            lambda c: c[METADATA_KEY].update(result={"$ref": "../get_pane_info.json#/nowhere"}),
            "has nothing at /nowhere",
        ),
        (
            lambda c: c[METADATA_KEY].update(complete={"window_index": "window_index"}),
            "completion for undeclared window_index",
        ),
    ],
    ids=[
        "unknown-key",
        "no-mime-type",
        "uri-and-template",
        "template-variables-differ",
        "query-variable-required",
        "variable-not-a-string",
        "variables-accept-more",
        "json-without-result",
        "ref-to-nothing",
        "completion-of-nothing",
    ],
)
def test_check_resource_rejects_a_broken_contract(
    breakage: Callable[[dict[str, Any]], object], message: str
) -> None:
    item = resource("get_pane")
    contract = copy.deepcopy(item.contract)
    breakage(contract)
    with pytest.raises(ContractError, match=re.escape(message)):
        check_resource(dataclasses.replace(item, contract=contract))


@pytest.mark.parametrize(
    ("breakage", "message"),
    [
        (lambda c: c["arguments"].pop(), "must be the same, in the same order"),
        (lambda c: c["arguments"][2].update(required=True), "advertised with required True"),
        (lambda c: c["arguments"][0].pop("description"), "'description' is a required property"),
        (
            lambda c: c[METADATA_KEY]["arguments"]["properties"]["timeout"].update(default=0),
            "default at arguments schema/properties/timeout breaks its own schema",
        ),
        (
            lambda c: c[METADATA_KEY].update(complete={"cmd": "pane_id"}),
            "completion for undeclared cmd",
        ),
    ],
    ids=[
        "argument-missing",
        "required-disagrees",
        "no-description",
        "bad-default",
        "completion-of-nothing",
    ],
)
def test_check_prompt_rejects_a_broken_contract(
    breakage: Callable[[dict[str, Any]], object], message: str
) -> None:
    item = prompt("run_and_wait")
    contract = copy.deepcopy(item.contract)
    breakage(contract)
    with pytest.raises(ContractError, match=re.escape(message)):
        check_prompt(dataclasses.replace(item, contract=contract))


def test_a_prompt_file_must_be_named_for_its_prompt() -> None:
    item = prompt("run_and_wait")
    renamed = dataclasses.replace(item, contract={**item.contract, "name": "run_it"})
    with pytest.raises(ContractError, match="the prompt is 'run_it'"):
        check_prompt(renamed)
