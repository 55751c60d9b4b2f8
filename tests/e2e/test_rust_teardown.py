"""The teardown guard of a rust server running inside a tmux pane (the tools:
tests/profiles/rust/test_rust_teardown.py)."""

from __future__ import annotations

import pytest

from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.family import exists, filled_pane
from tests.helpers.family import family_envelope as envelope
from tests.helpers.family import teardown_world as world
from tests.helpers.family import tmux_value as show
from tests.helpers.family import until_line as wait_for_line
from tests.helpers.jsonrpc import server_in_pane
from tests.helpers.tmux import tag
from tests.plugin import ALL_TOOLSETS

pytestmark = pytest.mark.anyio


def test_guard_refuses_the_callers_pane_window_and_session_and_kills_the_others(
    tmux: TmuxServer,
) -> None:
    grid = tmux.grid()
    home, neighbour = grid["top-left"], grid["bottom-right"]
    window = show(tmux, home, "#{window_id}")
    main = show(tmux, home, "#{session_id}")
    spare_window, spare_pane = filled_pane(tmux)
    spare_session = tmux.new_session(f"spare-{tag()}", "cat").id
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
