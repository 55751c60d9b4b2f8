"""Inside a tmux pane the command's instructions name the caller's pane and socket: the
server runs in a pane, as a client inside tmux starts it (the rest: tests/runtime/test_server_instructions.py)."""

from __future__ import annotations

import os

import pytest

from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.jsonrpc import server_in_pane
from tmux_contract_mcp.profiles import PROFILES


@pytest.mark.parametrize("profile", PROFILES)
def test_inside_tmux_the_instructions_name_the_callers_pane_and_socket(
    tmux: TmuxServer, profile: str
) -> None:
    home = tmux.active_pane()
    with server_in_pane(tmux, home, profile, LIBTMUX_SOCKET=tmux.name) as peer:
        text = str(peer.initialized.get("instructions", ""))
    caller = [line for line in text.splitlines() if "inside tmux" in line]
    assert len(caller) == 1, text
    assert f"pane {home} on socket " in caller[0]
    socket = caller[0].split(" on socket ", 1)[1].split(" ", 1)[0]
    assert os.path.realpath(socket) == os.path.realpath(tmux.socket_path)
    assert "Never kill" in caller[0]
