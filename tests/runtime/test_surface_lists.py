"""What each profile advertises besides tools: capabilities, resources, templates, prompts.

Snapshotted per profile, like tools/list. A profile without resource or prompt
contracts (rust today) declares none of those capabilities and still serves its
tools; completion is declared only where a variable or argument completes; a
profile refuses to start while a resource or prompt has no handler, as for tools.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from pytest_regressions.file_regression import FileRegressionFixture

from scripts.lab.client import open_in_process, prompt_contracts, resource_contracts
from scripts.lab.tmuxserver import TmuxServer
from tmux_contract_mcp.profiles import (
    PROFILES,
    ProfileUnavailable,
    create_handlers,
    load_profile,
)

SERVED = PROFILES


def dumped(items: list[Any]) -> list[dict[str, Any]]:
    wire = [item.model_dump(mode="json", by_alias=True, exclude_none=True) for item in items]
    return sorted(wire, key=lambda item: str(item["name"]))


@pytest.mark.anyio
@pytest.mark.parametrize("profile", SERVED)
async def test_advertised_resources_and_prompts_equal_the_contracts(
    tmux: TmuxServer, profile: str, file_regression: FileRegressionFixture
) -> None:
    async with open_in_process(tmux.server_env(), profile) as client:
        initialized = client.session.initialize_result
        assert initialized is not None
        capabilities = initialized.capabilities
        listing: dict[str, Any] = {
            "capabilities": capabilities.model_dump(mode="json", by_alias=True, exclude_none=True)
        }
        has_resources = bool(resource_contracts(profile))
        has_prompts = bool(prompt_contracts(profile))
        assert (capabilities.resources is not None) == has_resources
        assert (capabilities.prompts is not None) == has_prompts
        assert (capabilities.completions is not None) == load_profile(profile).completes
        if has_resources:
            templates = (await client.session.list_resource_templates()).resource_templates
            fixed = (await client.session.list_resources()).resources
            listing["resourceTemplates"] = dumped(templates)
            listing["resources"] = dumped(fixed)
            advertised = sorted(
                (r.advertised for r in resource_contracts(profile).values()),
                key=lambda item: str(item["name"]),
            )
            assert dumped([*templates, *fixed]) == advertised
        else:
            with pytest.raises(MCPError) as caught:
                await client.session.list_resource_templates()
            assert caught.value.error.code == -32601  # method not found
        if has_prompts:
            prompts = (await client.session.list_prompts()).prompts
            listing["prompts"] = dumped(prompts)
            assert listing["prompts"] == [
                p.advertised for _, p in sorted(prompt_contracts(profile).items())
            ]
        assert (await client.session.list_tools()).tools  # tools are served either way
    text = json.dumps(listing, indent=2, sort_keys=True) + "\n"
    file_regression.check(text, basename=f"surface_{profile}", extension=".json")


@pytest.mark.parametrize(
    ("method", "label"),
    [
        ("resource_get_pane", "resource tmux://panes/{pane_id}{?socket_name}"),
        ("prompt_run_and_wait", "prompt run_and_wait"),
        ("complete_argument", "complete_argument"),
    ],
)
def test_a_profile_with_an_unimplemented_resource_or_prompt_refuses_to_start(
    monkeypatch: pytest.MonkeyPatch, method: str, label: str
) -> None:
    profile = load_profile("python")
    handlers: Any = create_handlers(profile, {})
    (owner,) = [type(part) for part in handlers.parts if method in vars(type(part))]
    monkeypatch.delattr(owner, method)  # the part that implemented it no longer does
    with pytest.raises(ProfileUnavailable, match=re.escape(f"no handler for {label}")):
        create_handlers(load_profile("python"), {})
