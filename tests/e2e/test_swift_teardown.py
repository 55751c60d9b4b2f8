"""The teardown guard of a swift server running inside a tmux pane (the tools:
tests/profiles/swift/test_swift_teardown.py)."""

from __future__ import annotations

from typing import Any

import pytest

from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.family import exists, filled_pane
from tests.helpers.family import teardown_world as world
from tests.helpers.family import tmux_value as show
from tests.helpers.family import until_line as wait_for_line
from tests.helpers.jsonrpc import server_in_pane
from tests.helpers.tmux import tag
from tests.plugin import ALL_TOOLSETS

pytestmark = pytest.mark.anyio


def refusal(result: dict[str, Any]) -> str:
    assert result.get("isError") is True, result
    text = str(result["content"][0]["text"])
    assert text.startswith("Refused") and "force: true" in text, text
    return text


def test_guard_refuses_the_callers_pane_and_its_whole_server_unless_forced(
    tmux: TmuxServer,
) -> None:
    grid = tmux.grid()
    home, neighbour = grid["top-left"], grid["bottom-right"]
    window = show(tmux, home, "#{window_id}")
    spare_window, spare_pane = filled_pane(tmux)
    spare_session = tmux.new_session(f"spare-{tag()}", "cat").id
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
