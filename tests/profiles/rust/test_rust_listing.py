"""The rust profile's eight listing tools, against what tmux itself reports.

One tmux server and one rust client serve the module. The tests build the
state they look at (a second session, a window linked into both, split panes)
and compare every row with tmux's own listing of the same objects. Bad input is
refused as ``invalid_input`` naming the field before anything reaches tmux;
a well-formed id naming nothing is ``object_gone``.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from scripts.lab.client import Client
from scripts.lab.tmuxserver import TMUX, TmuxServer

pytestmark = pytest.mark.anyio

CORNERS = ("top-left", "top-right", "bottom-left", "bottom-right")


@pytest.fixture(scope="module")
def state(shared: TmuxServer) -> dict[str, str]:
    """A second session ``side`` and a window of ``main`` linked into it as well."""
    shared.tmux("new-session", "-d", "-s", "side", "-x", "80", "-y", "24")
    linked = shared.tmux("new-window", "-d", "-P", "-F", "#{window_id}", "-t", "main:").strip()
    shared.tmux("split-window", "-d", "-t", linked)
    shared.tmux("link-window", "-d", "-s", linked, "-t", "side:")
    return {"linked": linked}


def envelope(text: str) -> dict[str, Any]:
    value = json.loads(text)
    assert isinstance(value, dict)
    return value


async def refused(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    sent = envelope(await client.error(tool, arguments))
    return {"kind": sent["data"]["kind"], "message": sent["message"]}


def tmux_rows(server: TmuxServer, *args: str) -> list[list[str]]:
    return [line.split("|") for line in server.lines(*args)]


@contextmanager
def terminal_attached(server: TmuxServer, session: str) -> Iterator[None]:
    """A terminal client (on a pseudo-terminal, as a person's would be) attached to ``session``."""
    before = server.lines("list-clients", "-F", "#{client_pid}")
    controller, terminal = pty.openpty()
    env = {**os.environ, **server.env, "TERM": "xterm"}
    env.pop("TMUX", None)
    viewer = subprocess.Popen(
        [TMUX, "-L", server.name, "attach-session", "-t", session],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        env=env,
    )
    try:
        deadline = time.monotonic() + 20
        while server.lines("list-clients", "-F", "#{client_pid}") == before:
            assert time.monotonic() < deadline, "the terminal client never attached"
            time.sleep(0.02)
        yield
    finally:
        viewer.terminate()
        viewer.wait(timeout=10)
        os.close(controller)
        os.close(terminal)


# --- the listings ------------------------------------------------------------------------


async def test_sessions_windows_and_panes_are_tmuxs_in_its_order(
    shared: TmuxServer, rust_client: Client, state: dict[str, str]
) -> None:
    sessions = (await rust_client.ok("list_sessions"))["sessions"]
    expected = tmux_rows(
        shared, "list-sessions", "-F", "#{session_id}|#{session_name}|#{session_windows}"
    )
    assert [[s["id"], s["name"], str(s["windows"])] for s in sessions] == expected
    assert [s["attached"] for s in sessions] == [False, False]  # only control clients here

    windows = (await rust_client.ok("list_windows"))["windows"]
    expected = tmux_rows(
        shared,
        "list-windows",
        "-a",
        "-F",
        "#{window_id}|#{session_id}|#{window_index}|#{window_name}|#{window_panes}"
        "|#{window_active}|#{window_linked}",
    )
    assert [
        [
            *(w["id"], w["session_id"], str(w["index"]), w["name"], str(w["panes"])),
            *(str(int(w["active"])), str(int(w["linked"]))),
        ]
        for w in windows
    ] == expected
    links = [w for w in windows if w["id"] == state["linked"]]
    assert len(links) == 2 and all(w["linked"] for w in links)
    assert {w["session_id"] for w in links} == {s["id"] for s in sessions}

    panes = (await rust_client.ok("list_panes"))["panes"]
    listed = tmux_rows(
        shared,
        "list-panes",
        "-a",
        "-F",
        "#{pane_id}|#{window_id}|#{pane_active}|#{pane_current_command}|#{pane_current_path}",
    )
    expected = [row for at, row in enumerate(listed) if row[0] not in [r[0] for r in listed[:at]]]
    assert [
        [p["id"], p["window_id"], str(int(p["active"])), p["command"], p["path"]] for p in panes
    ] == expected
    assert len({p["id"] for p in panes}) == len(panes)  # a linked window's panes once
    assert {p["caller"] for p in panes} == {"unknown"}  # this server runs outside tmux


async def test_the_server_tree_holds_the_same_sessions_windows_and_panes(
    shared: TmuxServer, rust_client: Client, state: dict[str, str]
) -> None:
    tree = (await rust_client.ok("get_server_info"))["sessions"]
    sessions = (await rust_client.ok("list_sessions"))["sessions"]
    windows = (await rust_client.ok("list_windows"))["windows"]
    panes = (await rust_client.ok("list_panes"))["panes"]
    assert [{k: s[k] for k in ("id", "name", "attached")} for s in tree] == [
        {k: s[k] for k in ("id", "name", "attached")} for s in sessions
    ]
    for branch, session in zip(tree, sessions, strict=True):
        assert len(branch["windows"]) == session["windows"]
        mine = [w for w in windows if w["session_id"] == session["id"]]
        assert [{k: v for k, v in w.items() if k != "panes"} for w in branch["windows"]] == [
            {k: v for k, v in w.items() if k not in ("panes", "session_id")} for w in mine
        ]
        for window, listed in zip(branch["windows"], mine, strict=True):
            assert len(window["panes"]) == listed["panes"]
            assert window["panes"] == [
                {"id": p["id"], "active": p["active"], "command": p["command"]}
                for p in panes
                if p["window_id"] == window["id"]
            ]


async def test_attached_counts_a_terminal_client_and_never_a_control_client(
    shared: TmuxServer, rust_client: Client, state: dict[str, str]
) -> None:
    def attached(rows: list[dict[str, Any]]) -> dict[str, bool]:
        return {row["name"]: row["attached"] for row in rows}

    # tmux itself counts the control client this server keeps attached.
    assert shared.tmux("display-message", "-p", "-t", "main", "#{session_attached}") != "0\n"
    with terminal_attached(shared, "side"):
        sessions = (await rust_client.ok("list_sessions"))["sessions"]
        assert attached(sessions) == {"main": False, "side": True}
        tree = (await rust_client.ok("get_server_info"))["sessions"]
        assert attached(tree) == {"main": False, "side": True}
        one = await rust_client.ok("get_session_info", {"session": "side"})
        assert one["attached"] is True


# --- one object ---------------------------------------------------------------------------


async def test_one_session_by_id_or_exact_name(
    shared: TmuxServer, rust_client: Client, state: dict[str, str]
) -> None:
    sessions = (await rust_client.ok("list_sessions"))["sessions"]
    for session in sessions:
        assert await rust_client.ok("get_session_info", {"session": session["id"]}) == session
        assert await rust_client.ok("get_session_info", {"session": session["name"]}) == session
    gone = await refused(rust_client, "get_session_info", {"session": "sid"})  # a prefix
    assert gone["kind"] == "object_gone"
    assert "'sid'" in gone["message"] and "list_sessions" in gone["message"]


async def test_one_window_and_one_pane_by_id(
    shared: TmuxServer, rust_client: Client, state: dict[str, str]
) -> None:
    windows = (await rust_client.ok("list_windows"))["windows"]
    first_link = next(w for w in windows if w["id"] == state["linked"])
    assert await rust_client.ok("get_window_info", {"window": state["linked"]}) == first_link
    for pane in (await rust_client.ok("list_panes"))["panes"]:
        assert await rust_client.ok("get_pane_info", {"pane": pane["id"]}) == pane
    gone = await refused(rust_client, "get_window_info", {"window": "@999"})
    assert gone["kind"] == "object_gone" and "@999" in gone["message"]
    gone = await refused(rust_client, "get_pane_info", {"pane": "%999"})
    assert gone["kind"] == "object_gone" and "%999" in gone["message"]
    assert shared.name in gone["message"]


@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("get_window_info", {"window": "main:1"}, "window"),
        ("get_pane_info", {"pane": "3"}, "pane"),
        ("find_pane_by_position", {"window": "%1", "corner": "top-left"}, "window"),
        ("find_pane_by_position", {"window": "@1", "corner": "top"}, "corner"),
        ("find_pane_by_position", {"window": "@1", "corner": "TOP-LEFT"}, "corner"),
        ("get_session_info", {}, "session"),
        ("list_panes", {"window": "@1"}, "window"),
    ],
    ids=[
        "window-shape",
        "pane-shape",
        "corner-window",
        "corner-word",
        "corner-case",
        "missing",
        "extra",
    ],
)
async def test_bad_input_is_invalid_input_naming_the_field_and_nothing_reaches_tmux(
    shared: TmuxServer,
    rust_client: Client,
    state: dict[str, str],
    tool: str,
    arguments: dict[str, Any],
    field: str,
) -> None:
    mark = shared.mark()
    found = await refused(rust_client, tool, arguments)
    assert found["kind"] == "invalid_input"
    assert field in found["message"]
    if field == "corner":
        assert all(corner in found["message"] for corner in CORNERS)
    shared.assert_nothing_sent_since(mark, tool)


async def test_each_corner_is_the_pane_tmux_puts_there(
    shared: TmuxServer, rust_client: Client, state: dict[str, str]
) -> None:
    window = shared.new_window()
    corners = shared.grid(window)
    window_id = shared.tmux("display-message", "-p", "-t", window, "#{window_id}").strip()
    for corner, pane in corners.items():
        found = await rust_client.ok(
            "find_pane_by_position", {"window": window_id, "corner": corner}
        )
        assert found == await rust_client.ok("get_pane_info", {"pane": pane})
    gone = await refused(
        rust_client, "find_pane_by_position", {"window": "@999", "corner": "top-left"}
    )
    assert gone["kind"] == "object_gone" and "@999" in gone["message"]


async def test_a_server_without_sessions_lists_nothing(tmux: TmuxServer) -> None:
    from scripts.lab.client import open_in_process

    tmux.tmux("set-option", "-g", "exit-empty", "off")
    tmux.tmux("kill-session", "-t", "main")
    async with open_in_process(tmux.server_env(), "rust") as client:
        for tool, key in (
            ("list_sessions", "sessions"),
            ("list_windows", "windows"),
            ("list_panes", "panes"),
            ("get_server_info", "sessions"),
        ):
            assert await client.ok(tool) == {key: []}
