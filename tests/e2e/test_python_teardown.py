"""The teardown guard of a python server running inside a tmux pane: its own pane, window,
session and server are refused; inside another server everything may go (the tools:
tests/profiles/python/test_python_teardown.py)."""

from __future__ import annotations

from typing import Any

import pytest

from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.jsonrpc import FifoPeer, server_in_pane
from tests.helpers.teardown import all_pane_ids as pane_ids
from tests.helpers.teardown import all_session_ids as session_ids
from tests.helpers.teardown import new_window_pane as new_window
from tests.helpers.teardown import pane_field as display
from tests.helpers.teardown import pane_snapshot as snapshot
from tests.plugin import ALL_TOOLSETS

TRANSPORTS = ("control", "subprocess")

pytestmark = [pytest.mark.anyio, pytest.mark.transports(*TRANSPORTS)]


def refused(peer: FifoPeer, tool: str, arguments: dict[str, Any]) -> str:
    result = peer.call(tool, arguments)
    text = " ".join(item["text"] for item in result["content"])
    assert result.get("isError"), (tool, arguments, result)
    assert text.startswith("Refused"), text
    return text


def allowed(peer: FifoPeer, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = peer.call(tool, arguments)
    assert not result.get("isError"), (tool, arguments, result)
    return dict(result["structuredContent"])


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_inside_a_pane_the_guard_refuses_its_own_pane_window_session_and_server(
    tmux: TmuxServer, transport: str
) -> None:
    grid = tmux.grid()
    home = grid["top-left"]
    home_window = display(tmux, home, "window_id")
    home_session = display(tmux, home, "session_id")
    _, elsewhere = new_window(tmux)
    linked = tmux.new_session("linked").id
    tmux.tmux("link-window", "-s", home_window, "-t", "linked:")
    other = tmux.new_session("other").id
    env = {
        "LIBTMUX_SOCKET": tmux.name,
        "LIBTMUX_TOOLSETS": ALL_TOOLSETS,
        "TMUX_CONTRACT_MCP_TRANSPORT": transport,
    }
    with server_in_pane(tmux, home, "python", **env) as peer:
        before = snapshot(tmux)
        message = refused(peer, "kill_pane", {"pane_id": home})
        assert home in message and "this MCP server" in message and "another pane" in message
        assert home in refused(peer, "respawn_pane", {"pane_id": home})
        assert home_window in refused(peer, "kill_window", {"window_id": home_window})
        assert "'main'" in refused(peer, "kill_session", {"session_name": "main"})
        assert home_session in refused(peer, "kill_session", {"session_id": home_session})
        assert "'linked'" in refused(peer, "kill_session", {"session_id": linked})
        assert "kill_session" in refused(peer, "kill_server", {})
        assert snapshot(tmux) == before
        # Everything else may go, and the server keeps answering.
        assert allowed(peer, "kill_pane", {"pane_id": grid["top-right"]})
        assert allowed(peer, "respawn_pane", {"pane_id": grid["bottom-left"]})["is_caller"] is False
        assert allowed(peer, "kill_window", {"window_id": display(tmux, elsewhere, "window_id")})
        assert allowed(peer, "kill_session", {"session_id": other})
        index = next(
            line.split()[1]
            for line in tmux.lines(
                "list-windows", "-t", linked, "-F", "#{window_id} #{window_index}"
            )
            if line.split()[0] == home_window
        )
        tmux.tmux("unlink-window", "-t", f"{linked}:{index}")
        assert allowed(peer, "kill_session", {"session_name": "linked"})
        assert session_ids(tmux) == {home_session}
        assert grid["top-right"] not in pane_ids(tmux) and home in pane_ids(tmux)
        assert allowed(peer, "get_pane_info", {"pane_id": home})["is_caller"] is True


def test_inside_another_tmux_server_everything_on_the_target_may_be_killed(
    tmux: TmuxServer, other_tmux: TmuxServer
) -> None:
    home = other_tmux.active_pane()
    target = tmux.active_pane()
    assert target == home  # the ids collide: only the socket tells them apart
    env = {"LIBTMUX_SOCKET": tmux.name, "LIBTMUX_TOOLSETS": ALL_TOOLSETS}
    window = display(tmux, target, "window_id")
    tmux.tmux("split-window", "-d", "-t", target)
    new_window(tmux)
    tmux.new_session("spare")
    with server_in_pane(other_tmux, home, "python", **env) as peer:
        theirs = snapshot(other_tmux)
        assert allowed(peer, "respawn_pane", {"pane_id": target})["is_caller"] is False
        assert allowed(peer, "kill_pane", {"pane_id": target})
        assert allowed(peer, "kill_window", {"window_id": window})
        assert allowed(peer, "kill_session", {"session_name": "main"})
        assert allowed(peer, "kill_server", {})
        assert tmux.tmux("list-sessions", check=False) == ""
        assert snapshot(other_tmux) == theirs
