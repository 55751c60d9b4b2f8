"""find_pane_by_position (python profile) against real layouts.

One tmux server for the module, and one server under test reaching it, once here and
once through ssh (``shared_env``): every test runs both ways. With no window named, the
tool reads the first session's active window: each test that relies on that makes a
window of its own main's current one first.
"""

from __future__ import annotations

import pytest

from scripts.lab.client import Client
from scripts.lab.tmuxserver import TmuxServer

pytestmark = [pytest.mark.anyio, pytest.mark.reach("local", "ssh")]


CORNERS = ("top-left", "top-right", "bottom-left", "bottom-right")


async def test_find_pane_by_position_returns_the_pane_drawn_in_each_corner(
    shared: TmuxServer, python_client: Client
) -> None:
    grid = shared.grid(shared.new_window(current=True))
    for corner in CORNERS:
        found = await python_client.ok("find_pane_by_position", {"corner": corner})
        assert found["pane_id"] == grid[corner], corner
        vertical, horizontal = corner.split("-")
        assert found[f"pane_at_{vertical}"] is True
        assert found[f"pane_at_{horizontal}"] is True


async def test_find_pane_by_position_with_a_pane_spanning_the_left_edge(
    shared: TmuxServer, python_client: Client
) -> None:
    # One tall pane on the left, two stacked on the right.
    window = shared.new_window(current=True)
    left = shared.active_pane(window)
    shared.tmux("split-window", "-h", "-t", left)
    right_top = shared.active_pane(window)
    shared.tmux("split-window", "-v", "-t", right_top)
    right_bottom = shared.active_pane(window)
    found = {
        corner: (await python_client.ok("find_pane_by_position", {"corner": corner}))["pane_id"]
        for corner in CORNERS
    }
    assert found == {
        "top-left": left,
        "bottom-left": left,
        "top-right": right_top,
        "bottom-right": right_bottom,
    }


async def test_find_pane_by_position_resolves_the_window_each_way(
    shared: TmuxServer, python_client: Client
) -> None:
    shared.grid(shared.new_window())
    window = shared.new_window(current=True)
    _, index = window.split(":")
    shared.tmux("split-window", "-h", "-t", window)
    other = f"other-{index}"  # a session of this test's own
    shared.tmux("new-session", "-d", "-s", other, "-x", "200", "-y", "50")
    shared.tmux("split-window", "-v", "-t", f"{other}:0")
    window_id = shared.tmux("display-message", "-p", "-t", window, "#{window_id}").strip()
    ours = shared.corners(window)
    other0 = shared.corners(f"{other}:0")
    session_id = shared.tmux("display-message", "-p", "-t", f"{other}:", "#{session_id}").strip()
    by_id = await python_client.ok(
        "find_pane_by_position", {"corner": "top-right", "window_id": window_id}
    )
    assert by_id["pane_id"] == ours["top-right"]
    by_index = await python_client.ok(
        "find_pane_by_position",
        {"corner": "top-left", "session_name": "main", "window_index": index},
    )
    assert by_index["pane_id"] == ours["top-left"]
    by_session = await python_client.ok(
        "find_pane_by_position", {"corner": "bottom-left", "session_id": session_id}
    )
    assert by_session["pane_id"] == other0["bottom-left"]
    by_name = await python_client.ok(
        "find_pane_by_position", {"corner": "top-left", "session_name": other}
    )
    assert by_name["pane_id"] == other0["top-left"]
    # Nothing named: the first session's active window (ours, made active last).
    default = await python_client.ok("find_pane_by_position", {"corner": "bottom-right"})
    assert default["pane_id"] == ours["bottom-right"]
    assert default["window_id"] == window_id


async def test_find_pane_by_position_window_index_without_session_is_an_error(
    shared: TmuxServer, python_client: Client
) -> None:
    mark = shared.mark()
    await python_client.ok("find_pane_by_position", {"corner": "top-left"})
    assert shared.sent_since(mark)  # the log sees this client's commands, remote or not
    mark = shared.mark()
    message = await python_client.error(
        "find_pane_by_position", {"corner": "top-left", "window_index": "0"}
    )
    assert "window_index" in message and "session_name" in message
    shared.assert_nothing_sent_since(mark)
