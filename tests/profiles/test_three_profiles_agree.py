"""The python, swift and rust profiles report one tmux state alike.

One tmux server holds two sessions, a window linked into both, and split
panes; a client of each profile lists it. Each profile has its own shapes, so
every answer is brought to the same plain rows (ids, names, indexes, active
flags, counts) and the three must be equal, and equal to tmux's own listing.
"""

from __future__ import annotations

from typing import Any

import pytest

from scripts.lab.client import Client
from scripts.lab.tmuxserver import TmuxServer

pytestmark = pytest.mark.anyio

Sessions = list[tuple[str, str, int]]  # id, name, windows
Windows = list[
    tuple[str, str, int, str, bool, int]
]  # session id, window id, index, name, active, panes
Panes = list[tuple[str, str, bool]]  # window id, pane id, active


@pytest.fixture(scope="module")
def state(shared: TmuxServer) -> None:
    shared.tmux("new-session", "-d", "-s", "second", "-x", "80", "-y", "24")
    linked = shared.tmux("new-window", "-d", "-P", "-F", "#{window_id}", "-t", "main:").strip()
    shared.tmux("split-window", "-d", "-t", linked)
    shared.tmux("split-window", "-h", "-t", "second:0")
    shared.tmux("link-window", "-d", "-s", linked, "-t", "second:")
    shared.tmux("rename-window", "-t", linked, "shared window")


def tmux_view(server: TmuxServer) -> tuple[Sessions, Windows, Panes]:
    sessions = [
        (sid, name, int(count))
        for sid, name, count in (
            line.split("|")
            for line in server.lines(
                "list-sessions", "-F", "#{session_id}|#{session_name}|#{session_windows}"
            )
        )
    ]
    windows = [
        (sid, wid, int(index), name, active == "1", int(panes))
        for sid, wid, index, name, active, panes in (
            line.split("|")
            for line in server.lines(
                "list-windows",
                "-a",
                "-F",
                "#{session_id}|#{window_id}|#{window_index}|#{window_name}|#{window_active}"
                "|#{window_panes}",
            )
        )
    ]
    panes = sorted(
        {
            (wid, pid, active == "1")
            for wid, pid, active in (
                line.split("|")
                for line in server.lines(
                    "list-panes", "-a", "-F", "#{window_id}|#{pane_id}|#{pane_active}"
                )
            )
        }
    )
    return sessions, windows, panes


async def python_view(client: Client) -> tuple[Sessions, Windows, Panes]:
    listed: list[dict[str, Any]] = (await client.ok("list_sessions"))["result"]
    sessions = [(s["session_id"], s["session_name"], int(s["window_count"])) for s in listed]
    windows: Windows = []
    panes: set[tuple[str, str, bool]] = set()
    for sid, _, _ in sessions:
        for w in (await client.ok("list_windows", {"session_id": sid}))["result"]:
            row = (sid, w["window_id"], int(w["window_index"]), w["window_name"])
            windows.append((*row, w["window_active"] == "1", int(w["pane_count"])))
            found = await client.ok("list_panes", {"window_id": w["window_id"]})
            panes |= {
                (p["window_id"], p["pane_id"], p["pane_active"] == "1") for p in found["result"]
            }
    return sessions, windows, sorted(panes)


async def swift_view(client: Client) -> tuple[Sessions, Windows, Panes]:
    listed = (await client.ok("list_sessions"))["sessions"]
    sessions = [(s["id"], s["name"], s["windowCount"]) for s in listed]
    windows = [
        (w["sessionID"], w["id"], w["index"], w["name"], w["isActive"], w["paneCount"])
        for w in (await client.ok("list_windows"))["windows"]
    ]
    found = (await client.ok("list_panes"))["panes"]
    panes = sorted({(p["windowID"], p["id"], p["isActive"]) for p in found})
    return sessions, windows, panes


async def rust_view(client: Client) -> tuple[Sessions, Windows, Panes]:
    listed = (await client.ok("list_sessions"))["sessions"]
    sessions = [(s["id"], s["name"], s["windows"]) for s in listed]
    windows = [
        (w["session_id"], w["id"], w["index"], w["name"], w["active"], w["panes"])
        for w in (await client.ok("list_windows"))["windows"]
    ]
    found = (await client.ok("list_panes"))["panes"]
    panes = sorted({(p["window_id"], p["id"], p["active"]) for p in found})
    return sessions, windows, panes


async def test_the_three_profiles_and_tmux_report_the_same_objects(
    shared: TmuxServer,
    state: None,
    python_client: Client,
    swift_client: Client,
    rust_client: Client,
) -> None:
    expected = tmux_view(shared)
    sessions, windows, panes = expected
    assert len(sessions) == 2 and len(panes) == 5
    assert sum(1 for w in windows if w[3] == "shared window") == 2  # one row per link
    assert await python_view(python_client) == expected
    assert await swift_view(swift_client) == expected
    assert await rust_view(rust_client) == expected


async def test_one_pane_and_one_session_are_described_alike(
    shared: TmuxServer,
    state: None,
    python_client: Client,
    swift_client: Client,
    rust_client: Client,
) -> None:
    pane = shared.tmux("display-message", "-p", "-t", "second:0.1", "#{pane_id}").strip()
    python = await python_client.ok("get_pane_info", {"pane_id": pane})
    swift = (await swift_client.ok("get_pane_info", {"paneId": pane}))["pane"]
    rust = await rust_client.ok("get_pane_info", {"pane": pane})
    assert (python["pane_id"], python["window_id"], python["pane_active"] == "1") == (
        swift["id"],
        swift["windowID"],
        swift["isActive"],
    )
    assert (rust["id"], rust["window_id"], rust["active"]) == (
        swift["id"],
        swift["windowID"],
        swift["isActive"],
    )
    assert rust["command"] == swift["currentCommand"] == python["pane_current_command"]
    session = await rust_client.ok("get_session_info", {"session": "second"})
    swift_session = (await swift_client.ok("get_session_info", {"session": "second"}))["session"]
    python_session = await python_client.ok("get_session_info", {"session_name": "second"})
    assert (session["id"], session["windows"]) == (
        swift_session["id"],
        swift_session["windowCount"],
    )
    assert session["id"] == python_session["session_id"]
    assert session["windows"] == int(python_session["window_count"])
