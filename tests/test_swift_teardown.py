"""The swift profile's teardown toolset (kill_pane, kill_window, kill_session,
clear_pane_scrollback), called over stdio against real tmux.

One tmux server and one MCP server (every toolset on, started outside tmux) serve
the module; each test makes its own sessions, windows and panes and checks each
change with tmux itself. The guard test starts the MCP server inside a pane of a
tmux server of its own, where the family's rules apply: the caller's own pane, and
every window and session of the caller's server, are refused unless ``force``.
"""

from __future__ import annotations

from typing import Any

import pytest

from scripts.lab.client import Client, open_client
from scripts.lab.tmuxserver import TmuxServer
from tests.conftest import ALL_TOOLSETS
from tests.test_caller_identity import server_in_pane
from tests.test_rust_teardown import exists, filled_pane, show, world
from tests.test_swift_tools import new_session, new_window, tag, wait_for_line
from tmux_contract_mcp.handlers.tmux.transport.kinds import is_read

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def refused(
    shared: TmuxServer, client: Client, tool: str, arguments: dict[str, Any], *, looks: bool
) -> str:
    """The message of a call that changed nothing: it sent tmux nothing, or (``looks``: it
    had to find its target first) only reads."""
    before = world(shared)
    mark = shared.mark()
    message = await client.error(tool, arguments)
    reached = [item for item in shared.sent_since(mark) if item.reaches_a_server]
    if looks:
        assert all(is_read(item.words) for item in reached), [str(i) for i in reached]
    else:
        assert reached == [], [str(i) for i in reached]
    assert world(shared) == before
    return message


# --- kill_pane, kill_window, kill_session -----------------------------------------------


async def test_kill_pane_by_id_or_ref_ends_that_pane_only(
    shared: TmuxServer, swift_client: Client
) -> None:
    window_id, first = new_window(shared, "cat")
    second = shared.tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", first).strip()
    third = shared.tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", first).strip()
    result = await swift_client.ok("kill_pane", {"paneId": second})
    assert result == {"deleted": True, "paneId": second}
    ref = (await swift_client.ok("get_pane_info", {"paneId": third}))["pane"]["ref"]
    result = await swift_client.ok("kill_pane", {"paneId": ref, "force": False})
    assert result == {"deleted": True, "paneId": third}
    assert not exists(shared, "pane", second) and not exists(shared, "pane", third)
    assert exists(shared, "pane", first) and exists(shared, "window", window_id)
    for again in (second, ref):
        message = await refused(shared, swift_client, "kill_pane", {"paneId": again}, looks=True)
        assert third in message or second in message
        assert "list_panes" in message and shared.name in message


async def test_kill_window_by_placement_ref_ends_it_in_every_session(
    shared: TmuxServer, swift_client: Client
) -> None:
    window_id, pane_id = new_window(shared, "cat")
    name = f"link-{tag()}"
    other, _, _ = new_session(shared, name, "cat")
    shared.tmux("link-window", "-d", "-s", window_id, "-t", f"{other}:")
    rows = (await swift_client.ok("list_windows", {"session": name}))["windows"]
    (row,) = [row for row in rows if row["id"] == window_id]
    result = await swift_client.ok("kill_window", {"windowId": row["linkRef"]})
    assert result == {"deleted": True, "windowId": window_id}
    assert window_id not in shared.lines("list-windows", "-a", "-F", "#{window_id}")
    assert not exists(shared, "pane", pane_id) and exists(shared, "session", other)
    message = await refused(
        shared, swift_client, "kill_window", {"windowId": window_id}, looks=True
    )
    assert window_id in message and "list_windows" in message
    shared.tmux("kill-session", "-t", other)


async def test_kill_session_by_name_ref_or_id_keeps_windows_linked_elsewhere(
    shared: TmuxServer, swift_client: Client
) -> None:
    name = f"gone-{tag()}"
    session_id, window_id, pane_id = new_session(shared, name, "cat")
    shared.tmux("link-window", "-d", "-s", window_id, "-t", "main:")
    result = await swift_client.ok("kill_session", {"session": name})
    assert result == {"deleted": True, "sessionId": session_id}
    assert not exists(shared, "session", session_id)
    assert exists(shared, "window", window_id) and exists(shared, "pane", pane_id)
    second, _, _ = new_session(shared, f"gone-{tag()}", "cat")
    ref = (await swift_client.ok("get_session_info", {"session": second}))["session"]["ref"]
    result = await swift_client.ok("kill_session", {"session": ref})
    assert result == {"deleted": True, "sessionId": second}
    assert not exists(shared, "session", second)
    message = await refused(shared, swift_client, "kill_session", {"session": name}, looks=True)
    assert name in message and "list_sessions" in message
    shared.tmux("kill-window", "-t", window_id)


# --- clear_pane_scrollback --------------------------------------------------------------


async def test_clear_pane_scrollback_erases_the_history_and_keeps_the_screen(
    shared: TmuxServer, swift_client: Client
) -> None:
    _, pane_id = filled_pane(shared)
    assert int(show(shared, pane_id, "#{history_size}")) > 0
    screen = shared.tmux("capture-pane", "-p", "-t", pane_id)
    process = show(shared, pane_id, "#{pane_pid}")
    result = await swift_client.ok("clear_pane_scrollback", {"paneId": pane_id})
    assert result == {"deleted": True, "paneId": pane_id}
    assert show(shared, pane_id, "#{history_size}") == "0"
    assert shared.tmux("capture-pane", "-p", "-t", pane_id) == screen
    assert show(shared, pane_id, "#{pane_pid}") == process


# --- bad input: refused, nothing sent or changed ----------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("kill_pane", {}, "paneId"),
        ("kill_pane", {"paneId": "%1", "force": "yes"}, "force"),
        ("kill_pane", {"paneId": "1"}, "paneId"),
        ("kill_pane", {"pane": "%1"}, "pane"),
        ("kill_window", {"windowId": "main:0"}, "windowId"),
        ("kill_window", {"windowId": "@1", "force": 1}, "force"),
        ("kill_session", {"session": 1}, "session"),
        ("kill_session", {"session": "main", "extra": True}, "extra"),
        ("clear_pane_scrollback", {"paneId": "@1"}, "paneId"),
        ("clear_pane_scrollback", {"paneId": "%1", "force": True}, "force"),
        ("clear_pane_scrollback", {"paneId": "tmr1.p.AAAA.BBBB"}, "paneId"),
    ],
)
async def test_bad_input_names_the_field_and_sends_tmux_nothing(
    shared: TmuxServer, swift_client: Client, tool: str, arguments: dict[str, Any], field: str
) -> None:
    message = await refused(shared, swift_client, tool, arguments, looks=False)
    assert field in message, message


@pytest.mark.parametrize(
    ("tool", "arguments", "named"),
    [
        ("kill_pane", {"paneId": "%99999"}, "%99999"),
        ("kill_window", {"windowId": "@99999"}, "@99999"),
        ("kill_session", {"session": "no such session"}, "no such session"),
        ("clear_pane_scrollback", {"paneId": "%99999"}, "%99999"),
    ],
)
async def test_a_missing_target_is_named_with_the_socket_and_changes_nothing(
    shared: TmuxServer, swift_client: Client, tool: str, arguments: dict[str, Any], named: str
) -> None:
    before = world(shared)
    mark = shared.mark()
    message = await swift_client.error(tool, arguments)
    assert named in message and shared.name in message, message
    assert world(shared) == before
    # Besides reads, only the clear itself may reach tmux (which finds no such pane).
    writes = {
        item.command
        for item in shared.sent_since(mark)
        if item.reaches_a_server and not is_read(item.words)
    }
    assert writes <= {"clear-history"}, writes


# --- the guard: this MCP server inside a pane of the tmux server it serves --------------


def refusal(result: dict[str, Any]) -> str:
    assert result.get("isError") is True, result
    text = str(result["content"][0]["text"])
    assert text.startswith("Refused") and "force: true" in text, text
    return text


@pytest.mark.e2e
def test_guard_refuses_the_callers_pane_and_its_whole_server_unless_forced(
    tmux: TmuxServer,
) -> None:
    grid = tmux.grid()
    home, neighbour = grid["top-left"], grid["bottom-right"]
    window = show(tmux, home, "#{window_id}")
    spare_window, spare_pane = filled_pane(tmux)
    spare_session, _, _ = new_session(tmux, f"spare-{tag()}", "cat")
    tmux.tmux("send-keys", "-t", home, "seq 1 300; echo filled", "Enter")
    wait_for_line(tmux, home, "filled")
    with server_in_pane(
        tmux, home, "swift", LIBTMUX_SOCKET=tmux.name, LIBTMUX_TOOLSETS=ALL_TOOLSETS
    ) as peer:
        before = world(tmux)
        assert home in refusal(peer.call("kill_pane", {"paneId": home}))
        # Any window or session of the caller's own server, even one not holding its pane.
        for tool, arguments in (
            ("kill_window", {"windowId": window}),
            ("kill_window", {"windowId": spare_window}),
            ("kill_session", {"session": "main"}),
            ("kill_session", {"session": spare_session}),
        ):
            text = refusal(peer.call(tool, arguments))
            assert tmux.socket_path in text, text
            assert world(tmux) == before, tool
        # kill_pane refuses only the caller's pane; force lifts the server-wide refusals.
        forced: list[tuple[str, dict[str, Any], str, str, str]] = [
            ("kill_pane", {"paneId": neighbour}, "pane", neighbour, "paneId"),
            (
                "kill_window",
                {"windowId": spare_window, "force": True},
                "window",
                spare_window,
                "windowId",
            ),
            (
                "kill_session",
                {"session": spare_session, "force": True},
                "session",
                spare_session,
                "sessionId",
            ),
        ]
        for tool, arguments, kind, gone, key in forced:
            result = peer.call(tool, arguments)
            assert not result.get("isError"), result
            assert result["structuredContent"] == {"deleted": True, key: gone}
            assert not exists(tmux, kind, gone)
        assert exists(tmux, "pane", home) and exists(tmux, "window", window)
        assert not exists(tmux, "pane", spare_pane)
        # The family consults no guard to clear history, the caller's own pane included.
        assert int(show(tmux, home, "#{history_size}")) > 0
        cleared = peer.call("clear_pane_scrollback", {"paneId": home})
        assert cleared["structuredContent"] == {"deleted": True, "paneId": home}
        assert show(tmux, home, "#{history_size}") == "0"


async def test_an_unprovable_tmux_environment_is_refused_unless_forced(
    shared: TmuxServer,
) -> None:
    """TMUX set but not what tmux writes: the server might be the caller's, so the guarded
    tools refuse; force still lifts the refusal."""
    window_id, pane_id = new_window(shared, "cat")
    env = shared.server_env(LIBTMUX_TOOLSETS=ALL_TOOLSETS, TMUX="not-a-tmux-value")
    async with open_client(env, "swift") as client:
        await client.ok("list_sessions")  # the first call also pins the served server
        for tool, arguments in (
            ("kill_pane", {"paneId": pane_id}),
            ("kill_window", {"windowId": window_id}),
        ):
            message = await refused(shared, client, tool, arguments, looks=True)
            assert message.startswith("Refused") and "cannot rule out" in message, message
            assert "force: true" in message, message
        result = await client.ok("kill_window", {"windowId": window_id, "force": True})
        assert result == {"deleted": True, "windowId": window_id}
    assert not exists(shared, "window", window_id)
