"""The rust profile's teardown toolset (kill_pane, kill_window, kill_session,
clear_pane_scrollback, set_history_limit), called over stdio against real tmux.

One tmux server and one MCP server (every toolset on) serve the module; each test
makes its own sessions, windows and panes and checks each change with tmux itself.
The guard test starts the MCP server inside a pane of a tmux server of its own, so
that its TMUX and TMUX_PANE are the ones tmux sets there.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from scripts.lab.client import Client
from scripts.lab.tmuxserver import TmuxServer
from tests.conftest import ALL_TOOLSETS
from tests.test_caller_identity import server_in_pane
from tests.test_swift_tools import new_session, new_window, tag, wait_for_line
from tmux_contract_mcp.handlers.tmux.transport.kinds import is_read

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


# --- helpers ----------------------------------------------------------------------------


def envelope(text: str) -> dict[str, Any]:
    """The family's error text: ``{"message", "data": {"kind", "retryable", "stale"}}``."""
    value = json.loads(text)
    assert set(value) == {"message", "data"}, value
    return dict(value)


def exists(server: TmuxServer, kind: str, object_id: str) -> bool:
    listing = {
        "pane": ("list-panes", "-a", "-F", "#{pane_id}"),
        "window": ("list-windows", "-a", "-F", "#{window_id}"),
        "session": ("list-sessions", "-F", "#{session_id}"),
    }[kind]
    return object_id in server.lines(*listing)


def world(server: TmuxServer) -> list[str]:
    """Every pane with its process and history size: a refusal changes none of it."""
    return server.lines(
        "list-panes",
        "-a",
        "-F",
        "#{session_id} #{window_id} #{pane_id} #{pane_pid} #{history_size}",
    )


async def refused(
    shared: TmuxServer, client: Client, tool: str, arguments: dict[str, Any], *, looks: bool
) -> dict[str, Any]:
    """The error envelope of a call that changed nothing: it sent tmux nothing, or
    (``looks``: it had to find its target first) only reads."""
    before = world(shared)
    mark = shared.mark()
    sent = envelope(await client.error(tool, arguments))
    if looks:
        reached = [item for item in shared.sent_since(mark) if item.reaches_a_server]
        assert all(is_read(item.words) for item in reached), [str(i) for i in reached]
    else:
        shared.assert_nothing_sent_since(mark, tool)
    assert world(shared) == before
    return sent


def filled_pane(server: TmuxServer, session: str = "main") -> tuple[str, str]:
    """A window whose one pane has printed 300 numbered lines into its history, then waits;
    (window id, pane id)."""
    window_id, pane_id = new_window(server, "seq 1 300; echo filled; exec cat", session=session)
    wait_for_line(server, pane_id, "filled")
    return window_id, pane_id


def show(server: TmuxServer, target: str, fmt: str) -> str:
    return server.tmux("display-message", "-p", "-t", target, fmt).strip()


# --- kill_pane, kill_window, kill_session -----------------------------------------------


async def test_kill_pane_ends_that_pane_only_and_a_repeat_is_object_gone(
    shared: TmuxServer, rust_client: Client
) -> None:
    window_id, first = new_window(shared, "cat")
    second = shared.tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", first).strip()
    assert await rust_client.ok("kill_pane", {"pane": second}) == {"id": second}
    assert not exists(shared, "pane", second)
    assert exists(shared, "pane", first) and exists(shared, "window", window_id)
    again = envelope(await rust_client.error("kill_pane", {"pane": second}))
    assert again["data"] == {"kind": "object_gone", "retryable": False, "stale": True}
    assert second in again["message"] and "`pane`" in again["message"]
    assert "list_panes" in again["message"]


async def test_kill_window_ends_it_in_every_session_it_is_linked_into(
    shared: TmuxServer, rust_client: Client
) -> None:
    window_id, pane_id = new_window(shared, "cat")
    other, _, _ = new_session(shared, f"link-{tag()}", "cat")
    shared.tmux("link-window", "-d", "-s", window_id, "-t", f"{other}:")
    links = shared.lines("list-windows", "-a", "-F", "#{window_id}")
    assert links.count(window_id) == 2
    assert await rust_client.ok("kill_window", {"window": window_id}) == {"id": window_id}
    assert window_id not in shared.lines("list-windows", "-a", "-F", "#{window_id}")
    assert not exists(shared, "pane", pane_id) and exists(shared, "session", other)
    again = envelope(await rust_client.error("kill_window", {"window": window_id}))
    assert again["data"]["kind"] == "object_gone" and window_id in again["message"]


async def test_kill_session_by_name_or_id_keeps_windows_linked_elsewhere(
    shared: TmuxServer, rust_client: Client
) -> None:
    name = f"gone-{tag()}"
    session_id, window_id, pane_id = new_session(shared, name, "cat")
    shared.tmux("link-window", "-d", "-s", window_id, "-t", "main:")
    second_id, _, second_pane = new_session(shared, f"gone-{tag()}", "cat")
    assert await rust_client.ok("kill_session", {"session": name}) == {"id": session_id}
    assert not exists(shared, "session", session_id)
    # The window also linked into main lives on there, with its pane.
    assert exists(shared, "window", window_id) and exists(shared, "pane", pane_id)
    assert await rust_client.ok("kill_session", {"session": second_id}) == {"id": second_id}
    assert not exists(shared, "session", second_id) and not exists(shared, "pane", second_pane)
    again = envelope(await rust_client.error("kill_session", {"session": name}))
    assert again["data"]["kind"] == "object_gone"
    assert name in again["message"] and "list_sessions" in again["message"]
    shared.tmux("kill-window", "-t", window_id)


# --- clear_pane_scrollback --------------------------------------------------------------


async def test_clear_pane_scrollback_drops_the_history_and_keeps_the_screen(
    shared: TmuxServer, rust_client: Client
) -> None:
    _, pane_id = filled_pane(shared)
    assert int(show(shared, pane_id, "#{history_size}")) > 0
    screen = shared.tmux("capture-pane", "-p", "-t", pane_id)
    process = show(shared, pane_id, "#{pane_pid}")
    assert await rust_client.ok("clear_pane_scrollback", {"pane": pane_id}) == {"pane": pane_id}
    assert show(shared, pane_id, "#{history_size}") == "0"
    assert shared.tmux("capture-pane", "-p", "-t", pane_id) == screen
    assert show(shared, pane_id, "#{pane_pid}") == process
    gone = envelope(await rust_client.error("clear_pane_scrollback", {"pane": "%99999"}))
    assert gone["data"]["kind"] == "object_gone" and "%99999" in gone["message"]


# --- set_history_limit ------------------------------------------------------------------


async def test_set_history_limit_reaches_new_panes_only_globally_or_for_one_session(
    shared: TmuxServer, rust_client: Client
) -> None:
    before = shared.tmux("show-options", "-gv", "history-limit").strip()
    _, old_pane = new_window(shared, "cat")
    try:
        for arguments in ({"limit": 4321}, {"limit": 4321, "session": None}):
            result = await rust_client.ok("set_history_limit", arguments)
            assert result == {"name": "history-limit", "target": None, "value": "4321"}
        assert shared.tmux("show-options", "-gv", "history-limit").strip() == "4321"
        _, new_pane = new_window(shared, "cat")
        assert show(shared, new_pane, "#{history_limit}") == "4321"
        assert show(shared, old_pane, "#{history_limit}") == before  # tmux 3.3a: new panes only

        name = f"hl-{tag()}"
        session_id, _, _ = new_session(shared, name, "cat")
        for session in (name, session_id):
            result = await rust_client.ok("set_history_limit", {"limit": 77, "session": session})
            assert result == {"name": "history-limit", "target": session_id, "value": "77"}
        assert shared.tmux("show-options", "-v", "-t", session_id, "history-limit") == "77\n"
        _, in_session = new_window(shared, "cat", session=session_id)
        assert show(shared, in_session, "#{history_limit}") == "77"
        assert shared.tmux("show-options", "-gv", "history-limit").strip() == "4321"
        shared.tmux("kill-session", "-t", session_id)
    finally:
        shared.tmux("set-option", "-g", "history-limit", before)


# --- bad input: refused, nothing sent or changed ----------------------------------------

SCHEMA_REFUSALS = [
    ("kill_pane", {}, "pane"),
    ("kill_pane", {"pane": 3}, "pane"),
    ("kill_pane", {"pane": "%1", "force": True}, "force"),
    ("kill_window", {"window": None}, "window"),
    ("kill_session", {"session": ["main"]}, "session"),
    ("clear_pane_scrollback", {"pane": "%1", "lines": 3}, "lines"),
    ("set_history_limit", {"limit": -1}, "limit"),
    ("set_history_limit", {"limit": 1.5}, "limit"),
    ("set_history_limit", {"limit": 10, "session": 7}, "session"),
]

SHAPE_REFUSALS = [
    ("kill_pane", {"pane": "1"}, "pane"),
    ("kill_pane", {"pane": "%1;kill-server"}, "pane"),
    ("kill_window", {"window": "main:0"}, "window"),
    ("clear_pane_scrollback", {"pane": "@1"}, "pane"),
    ("set_history_limit", {"limit": 2**31}, "limit"),
]


@pytest.mark.parametrize(("tool", "arguments", "field"), SCHEMA_REFUSALS + SHAPE_REFUSALS)
async def test_bad_input_is_invalid_input_naming_the_field_and_sends_tmux_nothing(
    shared: TmuxServer, rust_client: Client, tool: str, arguments: dict[str, Any], field: str
) -> None:
    sent = await refused(shared, rust_client, tool, arguments, looks=False)
    assert sent["data"]["kind"] == "invalid_input", sent
    assert field in sent["message"], sent


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("kill_pane", {"pane": "%99999"}),
        ("kill_window", {"window": "@99999"}),
        ("kill_session", {"session": "no such session"}),
        ("kill_session", {"session": "$99999"}),
        ("clear_pane_scrollback", {"pane": "%99999"}),
        ("set_history_limit", {"limit": 5, "session": "no such session"}),
    ],
)
async def test_a_missing_target_is_object_gone_and_changes_nothing(
    shared: TmuxServer, rust_client: Client, tool: str, arguments: dict[str, Any]
) -> None:
    limit = shared.tmux("show-options", "-gv", "history-limit")
    mark = shared.mark()
    before = world(shared)
    sent = envelope(await rust_client.error(tool, arguments))
    assert sent["data"]["kind"] == "object_gone", sent
    named = arguments.get("session") or next(iter(arguments.values()))
    assert named in sent["message"] and shared.name in sent["message"]
    assert world(shared) == before
    assert shared.tmux("show-options", "-gv", "history-limit") == limit
    # Besides reads, only the kill or the clear itself may reach tmux (which finds nothing).
    writes = {
        item.command
        for item in shared.sent_since(mark)
        if item.reaches_a_server and not is_read(item.words)
    }
    assert writes <= {"kill-pane", "kill-window", "clear-history"}, writes


# --- the guard: this MCP server inside a pane of the tmux server it serves --------------


@pytest.mark.e2e
def test_guard_refuses_the_callers_pane_window_and_session_and_kills_the_others(
    tmux: TmuxServer,
) -> None:
    grid = tmux.grid()
    home, neighbour = grid["top-left"], grid["bottom-right"]
    window = show(tmux, home, "#{window_id}")
    main = show(tmux, home, "#{session_id}")
    spare_window, spare_pane = filled_pane(tmux)
    spare_session, _, _ = new_session(tmux, f"spare-{tag()}", "cat")
    # Give the caller's own pane a history (respawning keeps it), so a refused clear can be
    # seen to keep it.
    tmux.tmux("send-keys", "-t", home, "seq 1 300; echo filled", "Enter")
    wait_for_line(tmux, home, "filled")
    with server_in_pane(
        tmux, home, "rust", LIBTMUX_SOCKET=tmux.name, LIBTMUX_TOOLSETS=ALL_TOOLSETS
    ) as peer:
        before = world(tmux)
        assert int(show(tmux, home, "#{history_size}")) > 0
        for tool, arguments in (
            ("kill_pane", {"pane": home}),
            ("clear_pane_scrollback", {"pane": home}),
            ("kill_window", {"window": window}),
            ("kill_session", {"session": main}),
            ("kill_session", {"session": "main"}),
        ):
            result = peer.call(tool, arguments)
            assert result.get("isError") is True, (tool, result)
            sent = envelope(result["content"][0]["text"])
            assert sent["data"]["kind"] == "self_protection", (tool, sent)
            assert sent["message"].startswith("Refused") and home in sent["message"], sent
            assert world(tmux) == before, tool
        # What does not hold the caller's pane goes.
        for tool, arguments, kind, gone in (
            ("kill_pane", {"pane": neighbour}, "pane", neighbour),
            ("kill_window", {"window": spare_window}, "window", spare_window),
            ("kill_session", {"session": spare_session}, "session", spare_session),
        ):
            result = peer.call(tool, arguments)
            assert not result.get("isError"), result
            assert result["structuredContent"] == {"id": gone}
            assert not exists(tmux, kind, gone)
        assert exists(tmux, "pane", home) and exists(tmux, "window", window)
        assert not exists(tmux, "pane", spare_pane)
        # The server still answers from its pane: it was never touched.
        info = peer.call("clear_pane_scrollback", {"pane": grid["top-right"]})
        assert info["structuredContent"] == {"pane": grid["top-right"]}
