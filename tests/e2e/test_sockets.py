"""Which tmux server and which tmux binary the real server uses: env, per-call socket, -S."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest

from scripts.lab.client import open_client
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.jsonrpc import server_in_pane, structured


def pane_pids(server: TmuxServer) -> dict[str, str]:
    """Pane id -> pane pid. Pids are unique on the machine, pane ids only per server."""
    rows = server.lines("list-panes", "-a", "-F", "#{pane_id} #{pane_pid}")
    return dict(row.split() for row in rows)


def assert_is_pane_of(found: dict[str, Any], server: TmuxServer, pane: str) -> None:
    assert found["pane_id"] == pane
    assert found["pane_pid"] == pane_pids(server)[pane]


def symlink_to_socket(tmux: TmuxServer) -> Path:
    link = tmux.tmpdir / "link.sock"
    link.symlink_to(tmux.socket_path)
    assert os.path.realpath(link) == os.path.realpath(tmux.socket_path)
    return link


def read_calls(log: Path) -> list[list[str]]:
    """The wrapper's log: per call, the argument count then each argument, NUL-terminated."""
    items = log.read_bytes().split(b"\0")
    assert items.pop() == b""  # every item ends in NUL
    calls: list[list[str]] = []
    while items:
        count = int(items.pop(0))
        calls.append([item.decode() for item in items[:count]])
        del items[:count]
    return calls


def logging_wrapper(tmux: TmuxServer) -> tuple[Path, Path]:
    """An executable that logs its arguments, then execs the real tmux."""
    real = shutil.which("tmux")
    assert real is not None
    log = tmux.tmpdir / "tmux-calls.log"
    wrapper = tmux.tmpdir / "tmux-wrapper"
    wrapper.write_text(f"#!/bin/sh\nprintf '%s\\0' \"$#\" \"$@\" >>'{log}'\nexec '{real}' \"$@\"\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return wrapper, log


@pytest.mark.anyio
async def test_socket_path_env_reaches_that_server(tmux: TmuxServer) -> None:
    grid = tmux.grid()
    env = {**tmux.env, "LIBTMUX_SOCKET_PATH": tmux.socket_path}
    assert "LIBTMUX_SOCKET" not in env
    async with open_client(env) as client:
        for corner in ("top-left", "bottom-right"):
            found = await client.ok("find_pane_by_position", {"corner": corner})
            assert_is_pane_of(found, tmux, grid[corner])


@pytest.mark.anyio
async def test_socket_path_env_may_be_a_symlink_to_the_socket(tmux: TmuxServer) -> None:
    grid = tmux.grid()
    link = symlink_to_socket(tmux)
    env = {**tmux.env, "LIBTMUX_SOCKET_PATH": str(link)}
    async with open_client(env) as client:
        found = await client.ok("find_pane_by_position", {"corner": "bottom-left"})
    assert_is_pane_of(found, tmux, grid["bottom-left"])


def test_caller_is_recognised_through_a_symlinked_socket_path(tmux: TmuxServer) -> None:
    """TMUX holds the real socket path, the server dials the link: identity compares real paths."""
    grid = tmux.grid()
    home = grid["top-right"]
    link = symlink_to_socket(tmux)
    with server_in_pane(tmux, home, "python", LIBTMUX_SOCKET_PATH=str(link)) as peer:
        for corner, pane in grid.items():
            result = structured(peer.call("select_pane", {"pane_id": pane}))
            assert result["pane_id"] == pane
            assert result["is_caller"] is (pane == home), corner
        found = structured(peer.call("find_pane_by_position", {"corner": "top-right"}))
    assert found["pane_id"] == home
    assert found["is_caller"] is True


@pytest.mark.anyio
async def test_socket_path_env_wins_over_socket_name_env(tmux: TmuxServer) -> None:
    pane = tmux.active_pane()
    # LIBTMUX_SOCKET alone names a socket with no server behind it...
    async with open_client(tmux.server_env(LIBTMUX_SOCKET="nosuch")) as client:
        message = await client.error("find_pane_by_position", {"corner": "top-left"})
    assert "no tmux server" in message and "nosuch" in message
    # ...but LIBTMUX_SOCKET_PATH, when set, is the one used.
    env = tmux.server_env(LIBTMUX_SOCKET="nosuch", LIBTMUX_SOCKET_PATH=tmux.socket_path)
    async with open_client(env) as client:
        found = await client.ok("find_pane_by_position", {"corner": "top-left"})
    assert_is_pane_of(found, tmux, pane)
    # And the other way round: a dead path is not rescued by a live name.
    missing = str(tmux.tmpdir / "no-such-socket")
    async with open_client(tmux.server_env(LIBTMUX_SOCKET_PATH=missing)) as client:
        message = await client.error("find_pane_by_position", {"corner": "top-left"})
    assert "no tmux server" in message and missing in message


@pytest.mark.anyio
async def test_per_call_socket_name_overrides_the_process_default(
    tmux: TmuxServer, other_tmux: TmuxServer
) -> None:
    theirs = other_tmux.grid()  # four panes there, one here
    mine = tmux.active_pane()
    only_there = theirs["bottom-right"]
    assert only_there not in pane_pids(tmux)
    async with open_client(tmux.server_env()) as client:
        here = await client.ok("find_pane_by_position", {"corner": "bottom-right"})
        assert_is_pane_of(here, tmux, mine)
        there = await client.ok(
            "find_pane_by_position", {"corner": "bottom-right", "socket_name": other_tmux.name}
        )
        assert_is_pane_of(there, other_tmux, only_there)

        message = await client.error("select_pane", {"pane_id": only_there})
        assert only_there in message and tmux.name in message
        selected = await client.ok(
            "select_pane", {"pane_id": only_there, "socket_name": other_tmux.name}
        )
        assert_is_pane_of(selected, other_tmux, only_there)
        # The default is still the default after a per-call override.
        again = await client.ok("find_pane_by_position", {"corner": "top-left"})
        assert_is_pane_of(again, tmux, mine)
    assert other_tmux.active_pane() == only_there


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("transport", "expected"),
    [
        ("subprocess", {"list-panes", "select-pane"}),
        # Commands travel over the control client's stdin; the binary runs to attach it.
        ("control", {"list-sessions", "attach-session"}),
    ],
)
async def test_tmux_bin_env_is_the_binary_run_and_always_gets_the_socket_path(
    tmux: TmuxServer, transport: str, expected: set[str]
) -> None:
    grid = tmux.grid()
    wrapper, log = logging_wrapper(tmux)
    env = tmux.server_env(LIBTMUX_TMUX_BIN=str(wrapper), TMUX_CONTRACT_MCP_TRANSPORT=transport)
    async with open_client(env) as client:
        found = await client.ok("find_pane_by_position", {"corner": "bottom-left"})
        selected = await client.ok("select_pane", {"pane_id": grid["top-right"]})
    assert_is_pane_of(found, tmux, grid["bottom-left"])
    assert_is_pane_of(selected, tmux, grid["top-right"])
    assert tmux.active_pane() == grid["top-right"]

    calls = read_calls(log)
    assert calls, "the wrapper never ran"
    socket = os.path.realpath(tmux.socket_path)
    commands = set()
    for call in calls:
        at = call.index("-S")
        assert os.path.realpath(call[at + 1]) == socket, call
        command = call[at + 2 :]
        commands.add(command[1] if command[0] == "-C" else command[0])
    assert expected <= commands, commands


@pytest.mark.anyio
async def test_missing_tmux_bin_is_an_error_naming_the_variable(tmux: TmuxServer) -> None:
    missing = str(tmux.tmpdir / "no-such-tmux")
    async with open_client(tmux.server_env(LIBTMUX_TMUX_BIN=missing)) as client:
        message = await client.error("find_pane_by_position", {"corner": "top-left"})
        assert "LIBTMUX_TMUX_BIN" in message and missing in message
        message = await client.error("select_pane", {"pane_id": tmux.active_pane()})
        assert "LIBTMUX_TMUX_BIN" in message
