"""tools/list advertises each contract exactly; the CLI reports the same tools."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from codegen.contract_file import advertised
from scripts.lab.client import contracts, open_in_process
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.contracts import every_toolset
from tmux_contract_mcp.profiles import (
    PROFILES,
    ProfileUnavailable,
    create_handlers,
    load_profile,
)

SERVED = PROFILES


def advertised_contracts(profile: str) -> list[dict[str, Any]]:
    return [advertised(contract) for contract in contracts(profile).values()]


@pytest.mark.anyio
@pytest.mark.parametrize("profile", SERVED)
async def test_tools_list_equals_the_contracts(tmux: TmuxServer, profile: str) -> None:
    """Every tool as served equals its contract's advertised part; the listing itself is
    snapshotted once, as generated (tools.json in test_codegen)."""
    every = every_toolset(profile)  # opt-in toolsets too
    async with open_in_process(tmux.server_env(LIBTMUX_TOOLSETS=every), profile) as client:
        listed = await client.session.list_tools()
    wire = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listed.tools]
    by_name = {tool["name"]: tool for tool in wire}
    assert sorted(by_name) == sorted(contracts(profile))
    for contract in advertised_contracts(profile):
        assert by_name[contract["name"]] == contract, contract["name"]


def test_a_profile_with_an_unimplemented_tool_refuses_to_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The fault: the part that reads panes forgets capture_pane.
    reading = importlib.import_module("tmux_contract_mcp.handlers.swift.pane_text")
    monkeypatch.delattr(reading.PaneTextTools, "capture_pane")
    with pytest.raises(ProfileUnavailable, match="no handler for capture_pane"):
        create_handlers(load_profile("swift"), {})
