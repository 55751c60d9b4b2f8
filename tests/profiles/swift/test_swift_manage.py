"""The swift profile's 14 manage tools, called through the MCP client against real tmux.

One tmux server and one MCP server serve the module (its waits capped at 1 s by
LIBTMUX_MCP_WAIT_MAX_SECONDS); every test makes its own sessions, windows and
panes and checks each change with tmux itself. Every refused call is checked
to have sent tmux nothing and changed nothing.
"""

from __future__ import annotations

import time
from typing import Any

import anyio
import pytest

from scripts.lab.client import Client
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.family import changed_nothing as refused
from tests.helpers.family import tmux_fields as show
from tests.helpers.family import window_running as new_window
from tests.helpers.processes import channel_waiters as waiters
from tests.helpers.tmux import tag
from tests.helpers.waiting import eventually

pytestmark = pytest.mark.anyio


def placements(shared: TmuxServer, window: str) -> list[str]:
    rows = shared.lines("list-windows", "-a", "-F", "#{window_id} #{session_id}:#{window_index}")
    return [target for window_id, target in (row.split() for row in rows) if window_id == window]


# --- names ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def swift_env() -> dict[str, str]:
    """The default toolsets, waits capped at 1 s."""
    return {"LIBTMUX_MCP_WAIT_MAX_SECONDS": "1"}


async def test_rename_session_takes_the_name_literally(
    shared: TmuxServer, swift_client: Client
) -> None:
    session_id = shared.new_session(f"rn-{tag()}").id
    name = f"#{{session_id}} #(touch {shared.tmpdir}/ran) {tag()}"
    ref = (await swift_client.ok("get_session_info", {"session": session_id}))["session"]["ref"]
    renamed = await swift_client.ok("rename_session", {"session": ref, "name": name})
    assert renamed == {"sessionId": session_id, "name": name}
    assert show(shared, session_id, "session_name") == [name]
    assert not (shared.tmpdir / "ran").exists()
    dotted = await swift_client.ok("rename_session", {"session": session_id, "name": "a.b:c"})
    assert dotted["name"] == "a_b_c" == show(shared, session_id, "session_name")[0]


async def test_rename_session_refuses_a_name_another_session_has(
    shared: TmuxServer, swift_client: Client
) -> None:
    first = shared.new_session(f"one-{tag()}").id
    taken = f"two-{tag()}"
    shared.new_session(taken)
    message = await swift_client.error("rename_session", {"session": first, "name": taken})
    assert message.startswith("Invalid argument `name`")
    assert "duplicate session" in message
    assert show(shared, first, "session_name") != [taken]


async def test_rename_window_takes_the_name_literally(
    shared: TmuxServer, swift_client: Client
) -> None:
    window, _ = new_window(shared)
    name = "#{pane_id} ;x"
    assert await swift_client.ok("rename_window", {"windowId": window, "name": name}) == {
        "windowId": window,
        "name": name,
    }
    assert show(shared, window, "window_name") == [name]


async def test_set_pane_title_takes_the_title_literally(
    shared: TmuxServer, swift_client: Client
) -> None:
    _, pane = new_window(shared)
    title = "#{pane_id} é ✓"
    assert await swift_client.ok("set_pane_title", {"paneId": pane, "title": title}) == {
        "paneId": pane,
        "title": title,
    }
    assert show(shared, pane, "pane_title") == [title]
    message = await refused(
        shared, swift_client, "set_pane_title", {"paneId": pane, "title": "a\nb"}
    )
    assert "control character" in message


# --- selection and order ----------------------------------------------------------------


async def test_select_pane_makes_the_pane_active(shared: TmuxServer, swift_client: Client) -> None:
    _, first = new_window(shared)
    second = shared.tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", first).strip()
    assert show(shared, second, "pane_active") == ["0"]
    assert await swift_client.ok("select_pane", {"paneId": second}) == {"paneId": second}
    assert show(shared, second, "pane_active") == ["1"]
    assert show(shared, first, "pane_active") == ["0"]


async def test_select_window_picks_one_placement_of_a_linked_window(
    shared: TmuxServer, swift_client: Client
) -> None:
    one = shared.new_session(f"s1-{tag()}").id
    two = shared.new_session(f"s2-{tag()}").id
    window, _ = new_window(shared, session=one)
    shared.tmux("link-window", "-d", "-s", window, "-t", f"{two}:")
    assert len(placements(shared, window)) == 2
    message = await refused(shared, swift_client, "select_window", {"windowId": window}, looks=True)
    assert "more than one of them fits" in message
    for target in placements(shared, window):
        assert target in message
    picked = await swift_client.ok("select_window", {"windowId": window, "sourceSession": two})
    assert picked["windowId"] == window and picked["target"].startswith(f"{two}:")
    session, index = picked["target"].split(":")
    active = shared.lines("list-windows", "-t", session, "-F", "#{window_active} #{window_index}")
    assert f"1 {index}" in active
    # A placement ref names one placement by itself.
    rows = (await swift_client.ok("list_windows", {"session": one}))["windows"]
    (row,) = (row for row in rows if row["id"] == window)
    chosen = await swift_client.ok("select_window", {"windowId": row["linkRef"]})
    assert chosen["target"] == row["target"]


async def test_move_window_moves_within_and_across_sessions(
    shared: TmuxServer, swift_client: Client
) -> None:
    one = shared.new_session(f"m1-{tag()}").id
    two = shared.new_session(f"m2-{tag()}").id
    window, _ = new_window(shared, session=one)
    moved = await swift_client.ok("move_window", {"windowId": window, "index": 7})
    assert moved == {"windowId": window, "target": f"{one}:7"}
    assert placements(shared, window) == [f"{one}:7"]
    across = await swift_client.ok("move_window", {"windowId": window, "session": two})
    assert placements(shared, window) == [across["target"]]
    assert across["target"].startswith(f"{two}:")
    # The index taken by the session's first window is refused, and nothing moves.
    message = await swift_client.error("move_window", {"windowId": window, "index": 0})
    assert message.startswith("Invalid argument `index`") and "taken" in message
    assert placements(shared, window) == [across["target"]]


# --- sizes and layouts --------------------------------------------------------------------


async def test_resize_window_sets_the_size_tmux_reports(
    shared: TmuxServer, swift_client: Client
) -> None:
    window, _ = new_window(shared)
    assert await swift_client.ok(
        "resize_window", {"windowId": window, "width": 90, "height": 20}
    ) == {"windowId": window}
    assert show(shared, window, "window_width", "window_height") == ["90", "20"]
    await refused(shared, swift_client, "resize_window", {"windowId": window})
    message = await refused(
        shared, swift_client, "resize_window", {"windowId": window, "width": 10001}
    )
    assert message.startswith("Invalid argument `width`")


async def test_resize_pane_zoom_direction_and_size(
    shared: TmuxServer, swift_client: Client
) -> None:
    window, first = new_window(shared)
    shared.tmux("resize-window", "-t", window, "-x", "100", "-y", "30")
    second = shared.tmux("split-window", "-h", "-d", "-P", "-F", "#{pane_id}", "-t", first).strip()
    await swift_client.ok("resize_pane", {"paneId": first, "zoom": True})
    assert show(shared, window, "window_zoomed_flag") == ["1"]
    await swift_client.ok("resize_pane", {"paneId": first, "zoom": True})
    assert show(shared, window, "window_zoomed_flag") == ["0"]
    (width,) = show(shared, first, "pane_width")
    await swift_client.ok("resize_pane", {"paneId": first, "direction": "right", "amount": 5})
    assert show(shared, first, "pane_width") == [str(int(width) + 5)]
    await swift_client.ok("resize_pane", {"paneId": second, "width": 30})
    assert show(shared, second, "pane_width") == ["30"]
    message = await refused(shared, swift_client, "resize_pane", {"paneId": first, "amount": 3})
    assert message.startswith("Invalid argument `direction`")


async def test_select_layout_presets_abbreviations_and_saved_strings(
    shared: TmuxServer, swift_client: Client
) -> None:
    window, first = new_window(shared)
    shared.tmux("split-window", "-d", "-t", first)
    shared.tmux("split-window", "-d", "-t", first)
    tiled = await swift_client.ok("select_layout", {"windowId": window, "layout": "ti"})
    assert tiled == {"windowId": window, "layout": "tiled"}
    (saved,) = show(shared, window, "window_layout")
    await swift_client.ok("select_layout", {"windowId": window, "layout": "even-horizontal"})
    rows = shared.lines("list-panes", "-t", window, "-F", "#{pane_at_top}#{pane_at_bottom}")
    assert rows == ["11", "11", "11"]  # side by side: every pane spans the window's height
    assert show(shared, window, "window_layout") != [saved]
    back = await swift_client.ok("select_layout", {"windowId": window, "layout": saved})
    assert back["layout"] == saved == show(shared, window, "window_layout")[0]
    # An ambiguous word would crash tmux 3.3a; it never reaches it (only tmux's version is
    # read, to know which presets this tmux has).
    message = await refused(
        shared, swift_client, "select_layout", {"windowId": window, "layout": "main"}, looks=True
    )
    assert "ambiguous" in message
    broken = ("0000" if not saved.startswith("0000") else "ffff") + saved[4:]
    message = await refused(
        shared, swift_client, "select_layout", {"windowId": window, "layout": broken}
    )
    assert "checksum" in message


async def test_swap_pane_exchanges_places_and_ids_follow_their_processes(
    shared: TmuxServer, swift_client: Client
) -> None:
    _, left = new_window(shared)
    right = shared.tmux("split-window", "-h", "-d", "-P", "-F", "#{pane_id}", "-t", left).strip()
    before = {pane: show(shared, pane, "pane_left", "pane_pid") for pane in (left, right)}
    assert await swift_client.ok("swap_pane", {"paneId": left, "otherPaneId": right}) == {
        "paneId": left,
        "otherPaneId": right,
    }
    assert show(shared, left, "pane_left", "pane_pid") == [before[right][0], before[left][1]]
    assert show(shared, right, "pane_left", "pane_pid") == [before[left][0], before[right][1]]


# --- global settings ----------------------------------------------------------------------


async def test_history_limit_and_mouse_are_set_globally(
    shared: TmuxServer, swift_client: Client
) -> None:
    assert await swift_client.ok("set_history_limit", {"lines": 4321}) == {"lines": 4321}
    assert shared.tmux("show-options", "-gv", "history-limit").strip() == "4321"
    _, pane = new_window(shared)
    assert show(shared, pane, "history_limit") == ["4321"]
    assert await swift_client.ok("set_mouse_enabled", {"enabled": True}) == {"enabled": True}
    assert shared.tmux("show-options", "-gv", "mouse").strip() == "on"
    assert await swift_client.ok("set_mouse_enabled", {"enabled": False}) == {"enabled": False}
    assert shared.tmux("show-options", "-gv", "mouse").strip() == "off"


# --- channels -----------------------------------------------------------------------------


async def test_a_signal_releases_a_waiting_wait(shared: TmuxServer, swift_client: Client) -> None:
    channel = f"ch-{tag()}"
    found: dict[str, Any] = {}

    async def wait() -> None:
        found.update(
            await swift_client.ok("wait_for_channel", {"channel": channel, "timeoutMs": 900})
        )

    async with anyio.create_task_group() as group:
        group.start_soon(wait)
        # the wait sleeps in one tmux wait-for process
        await eventually(lambda: len(waiters(channel)) == 1, "one tmux wait-for process")
        shared.tmux("wait-for", "-S", channel)
    assert waiters(channel) == []
    assert found["channel"] == channel and found["released"] is True
    assert found["seconds"] < 0.9 and found["effectiveTimeout"] == 0.9


async def test_signal_channel_releases_the_next_wait(
    shared: TmuxServer, swift_client: Client
) -> None:
    channel = f"ch-{tag()}"
    assert await swift_client.ok("signal_channel", {"channel": channel}) == {
        "channel": channel,
        "signalled": True,
    }
    waited = await swift_client.ok("wait_for_channel", {"channel": channel, "timeoutMs": 500})
    assert waited["released"] is True


async def test_a_wait_times_out_and_its_timeout_is_cut_to_the_ceiling(
    shared: TmuxServer, swift_client: Client
) -> None:
    channel = f"ch-{tag()}"
    started = time.monotonic()
    waited = await swift_client.ok("wait_for_channel", {"channel": channel, "timeoutMs": 5000})
    elapsed = time.monotonic() - started
    assert waited["released"] is False
    assert waited["effectiveTimeout"] == 1.0  # LIBTMUX_MCP_WAIT_MAX_SECONDS=1 for this module
    assert waited["seconds"] >= 1.0 and elapsed < 4.0
    assert waiters(channel) == []  # the tmux wait-for process was ended with the wait


# --- bad input ----------------------------------------------------------------------------

BAD: list[tuple[str, dict[str, Any], str]] = [
    ("move_window", {"windowId": "%1"}, "`windowId`"),
    ("move_window", {"windowId": "@1", "index": -1}, "`index`"),
    ("rename_session", {"session": "$1"}, "`name`"),
    ("rename_window", {"windowId": "x", "name": "n"}, "`windowId`"),
    ("resize_pane", {"paneId": "%1", "direction": "sideways"}, "`direction`"),
    ("resize_pane", {"paneId": "%1", "width": 0}, "`width`"),
    ("resize_window", {"windowId": "@1", "height": "10"}, "`height`"),
    ("select_layout", {"windowId": "@1", "layout": "#(id)"}, "`layout`"),
    ("select_pane", {"paneId": "tmr1.forged"}, "`paneId`"),
    ("select_window", {"windowId": "@1", "sourceIndex": 1.5}, "`sourceIndex`"),
    ("set_history_limit", {"lines": 2_000_001}, "`lines`"),
    ("set_mouse_enabled", {"enabled": "yes"}, "`enabled`"),
    ("set_pane_title", {"paneId": "%1", "title": "t", "extra": 1}, "`extra`"),
    ("signal_channel", {"channel": ""}, "`channel`"),
    ("swap_pane", {"paneId": "%1", "otherPaneId": "4"}, "`otherPaneId`"),
    ("wait_for_channel", {"channel": "c", "timeoutMs": 99}, "`timeoutMs`"),
    ("wait_for_channel", {"channel": "c" * 1025}, "`channel`"),
]


@pytest.mark.parametrize(
    ("tool", "arguments", "field"), BAD, ids=[f"{t}-{f.strip('`')}" for t, _, f in BAD]
)
async def test_bad_input_names_the_field_and_changes_nothing(
    shared: TmuxServer, swift_client: Client, tool: str, arguments: dict[str, Any], field: str
) -> None:
    message = await refused(shared, swift_client, tool, arguments)
    assert field in message, message


async def test_a_target_that_does_not_exist_is_named_with_the_socket(
    shared: TmuxServer, swift_client: Client
) -> None:
    before = shared.state()
    for tool, arguments, what in (
        ("select_pane", {"paneId": "%999"}, "No pane %999"),
        ("rename_window", {"windowId": "@999", "name": "x"}, "No window @999"),
        ("rename_session", {"session": "no-such", "name": "x"}, "No session 'no-such'"),
    ):
        message = await swift_client.error(tool, arguments)
        assert message.startswith(what) and shared.name in message, message
    assert shared.state() == before
