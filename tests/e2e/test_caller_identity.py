"""Caller identity: is_caller (python) and caller (rust), with the server inside a pane."""

from __future__ import annotations

import pytest

from scripts.lab.client import open_client
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.jsonrpc import server_in_pane, structured


def test_python_is_caller_is_true_only_for_the_servers_own_pane(tmux: TmuxServer) -> None:
    grid = tmux.grid()
    home = grid["top-left"]
    with server_in_pane(tmux, home, "python", LIBTMUX_SOCKET=tmux.name) as peer:
        for corner, pane in grid.items():
            result = structured(peer.call("select_pane", {"pane_id": pane}))
            assert result["is_caller"] is (pane == home), corner
        found = structured(peer.call("find_pane_by_position", {"corner": "top-left"}))
        assert found["is_caller"] is True


def test_rust_caller_is_self_only_for_the_servers_own_pane(tmux: TmuxServer) -> None:
    grid = tmux.grid()
    home = grid["bottom-right"]
    with server_in_pane(tmux, home, "rust", LIBTMUX_SOCKET=tmux.name) as peer:
        for corner, pane in grid.items():
            result = structured(peer.call("select_pane", {"pane": pane}))
            assert result["caller"] == ("self" if pane == home else "other"), corner


def test_same_pane_id_on_another_socket_is_not_the_caller(
    tmux: TmuxServer, other_tmux: TmuxServer
) -> None:
    home = tmux.active_pane()
    assert other_tmux.active_pane() == home  # both servers start with the same pane id
    with server_in_pane(tmux, home, "python", LIBTMUX_SOCKET=tmux.name) as peer:
        mine = structured(peer.call("select_pane", {"pane_id": home}))
        theirs = structured(
            peer.call("select_pane", {"pane_id": home, "socket_name": other_tmux.name})
        )
    assert mine["is_caller"] is True
    assert theirs["is_caller"] is False
    # rust: one socket per process, pointed at the other server.
    with server_in_pane(tmux, home, "rust", LIBTMUX_SOCKET=other_tmux.name) as peer:
        result = structured(peer.call("select_pane", {"pane": home}))
    assert result["caller"] == "other"


@pytest.mark.anyio
async def test_outside_tmux_the_caller_is_unknown(tmux: TmuxServer) -> None:
    pane = tmux.active_pane()
    async with open_client(tmux.server_env()) as client:
        assert (await client.ok("select_pane", {"pane_id": pane}))["is_caller"] is None
    async with open_client(tmux.server_env(), "rust") as client:
        assert (await client.ok("select_pane", {"pane": pane}))["caller"] == "unknown"
