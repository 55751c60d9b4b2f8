"""LIBTMUX_TOOLSETS, LIBTMUX_TOOLS and LIBTMUX_EXCLUDE_TOOLS shape what a server shows."""

from __future__ import annotations

import pytest
from mcp.shared.exceptions import MCPError

from scripts.lab.client import open_in_process
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.contracts import tools_in_toolset as names_in
from tmux_contract_mcp.profiles import load_profile
from tmux_contract_mcp.toolsets import ToolsetConfigError, visible

PYTHON = load_profile("python")
CATALOG = PYTHON.catalog  # each tool's toolset, from its contract's metadata
TOOLSETS = PYTHON.toolsets  # from contracts/python-profile.json


def test_by_default_every_toolset_but_teardown_is_shown() -> None:
    shown = visible(CATALOG, TOOLSETS, {})
    assert shown == names_in("inspect") | names_in("manage") | names_in("execute")
    assert not shown & names_in("teardown")


def test_tools_add_to_the_toolsets_and_exclusions_win_over_both() -> None:
    environ = {
        "LIBTMUX_TOOLSETS": "inspect",
        "LIBTMUX_TOOLS": "kill_pane, select_pane",
        "LIBTMUX_EXCLUDE_TOOLS": "select_pane,list_panes",
    }
    assert visible(CATALOG, TOOLSETS, environ) == (names_in("inspect") | {"kill_pane"}) - {
        "list_panes"
    }


def test_an_empty_toolset_list_shows_only_the_tools_named() -> None:
    assert visible(CATALOG, TOOLSETS, {"LIBTMUX_TOOLSETS": "", "LIBTMUX_TOOLS": "list_panes"}) == {
        "list_panes"
    }


@pytest.mark.parametrize(
    ("variable", "value", "named"),
    [
        ("LIBTMUX_TOOLSETS", "inspect,destroy", "'destroy'"),
        ("LIBTMUX_TOOLS", "list_pane", "'list_pane'"),
        ("LIBTMUX_EXCLUDE_TOOLS", "kill_everything", "'kill_everything'"),
    ],
)
def test_an_unknown_name_is_refused_naming_the_variable_and_the_name(
    variable: str, value: str, named: str
) -> None:
    with pytest.raises(ToolsetConfigError, match=variable) as caught:
        visible(CATALOG, TOOLSETS, {variable: value})
    assert named in str(caught.value)


@pytest.mark.anyio
async def test_a_hidden_tool_is_not_listed_and_is_answered_as_unknown(tmux: TmuxServer) -> None:
    env = tmux.server_env(LIBTMUX_EXCLUDE_TOOLS="capture_pane")
    async with open_in_process(env, "python") as client:
        listed = {tool.name for tool in (await client.session.list_tools()).tools}
        assert "capture_pane" not in listed and "list_panes" in listed
        with pytest.raises(MCPError) as caught:
            await client.session.call_tool("capture_pane", {})
        assert caught.value.error.code == -32602
        # Nor can a batch reach it.
        message = await client.error(
            "call_read_tools_batch", {"operations": [{"tool": "capture_pane"}]}
        )
    assert "operations[0].tool" in message and "capture_pane" in message
