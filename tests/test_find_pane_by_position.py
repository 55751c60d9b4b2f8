"""find_pane_by_position (python profile) against real layouts."""

from __future__ import annotations

import pytest

from scripts.lab.client import open_client
from scripts.lab.tmuxserver import TmuxServer

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

CORNERS = ("top-left", "top-right", "bottom-left", "bottom-right")


async def test_find_pane_by_position_returns_the_pane_drawn_in_each_corner(
    tmux: TmuxServer,
) -> None:
    grid = tmux.grid()
    async with open_client(tmux.server_env()) as client:
        for corner in CORNERS:
            found = await client.ok("find_pane_by_position", {"corner": corner})
            assert found["pane_id"] == grid[corner], corner
            vertical, horizontal = corner.split("-")
            assert found[f"pane_at_{vertical}"] is True
            assert found[f"pane_at_{horizontal}"] is True


async def test_find_pane_by_position_with_a_pane_spanning_the_left_edge(
    tmux: TmuxServer,
) -> None:
    # One tall pane on the left, two stacked on the right.
    left = tmux.active_pane()
    tmux.tmux("split-window", "-h", "-t", left)
    right_top = tmux.active_pane()
    tmux.tmux("split-window", "-v", "-t", right_top)
    right_bottom = tmux.active_pane()
    async with open_client(tmux.server_env()) as client:
        found = {
            corner: (await client.ok("find_pane_by_position", {"corner": corner}))["pane_id"]
            for corner in CORNERS
        }
    assert found == {
        "top-left": left,
        "bottom-left": left,
        "top-right": right_top,
        "bottom-right": right_bottom,
    }


async def test_find_pane_by_position_resolves_the_window_each_way(tmux: TmuxServer) -> None:
    tmux.grid()
    tmux.tmux("new-window", "-t", "main:")
    tmux.tmux("split-window", "-h", "-t", "main:1")
    tmux.tmux("new-session", "-d", "-s", "other", "-x", "200", "-y", "50")
    tmux.tmux("split-window", "-v", "-t", "other:0")
    window1 = tmux.tmux("display-message", "-p", "-t", "main:1", "#{window_id}").strip()
    main1 = tmux.corners("main:1")
    other0 = tmux.corners("other:0")
    session_id = tmux.tmux("display-message", "-p", "-t", "other:", "#{session_id}").strip()
    async with open_client(tmux.server_env()) as client:
        by_id = await client.ok(
            "find_pane_by_position", {"corner": "top-right", "window_id": window1}
        )
        assert by_id["pane_id"] == main1["top-right"]
        by_index = await client.ok(
            "find_pane_by_position",
            {"corner": "top-left", "session_name": "main", "window_index": "1"},
        )
        assert by_index["pane_id"] == main1["top-left"]
        by_session = await client.ok(
            "find_pane_by_position", {"corner": "bottom-left", "session_id": session_id}
        )
        assert by_session["pane_id"] == other0["bottom-left"]
        by_name = await client.ok(
            "find_pane_by_position", {"corner": "top-left", "session_name": "other"}
        )
        assert by_name["pane_id"] == other0["top-left"]
        # Nothing named: the first session's active window (main:1, made active last).
        default = await client.ok("find_pane_by_position", {"corner": "bottom-right"})
        assert default["pane_id"] == main1["bottom-right"]
        assert default["window_id"] == window1


async def test_find_pane_by_position_window_index_without_session_is_an_error(
    tmux: TmuxServer,
) -> None:
    async with open_client(tmux.server_env()) as client:
        mark = tmux.mark()
        message = await client.error(
            "find_pane_by_position", {"corner": "top-left", "window_index": "0"}
        )
    assert "window_index" in message and "session_name" in message
    tmux.assert_nothing_sent_since(mark)
