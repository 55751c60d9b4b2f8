"""The swift profile's 14 manage tools, called over stdio against real tmux.

One tmux server and one MCP server serve the module (its waits capped at 1 s by
LIBTMUX_MCP_WAIT_MAX_SECONDS); every test makes its own sessions, windows and
panes and checks each change with tmux itself. Every refused call is checked
to have sent tmux nothing and changed nothing.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from scripts.lab.client import Client, open_client
from scripts.lab.processes import cmdline, pids
from scripts.lab.tmuxserver import TmuxServer
from tests.test_swift_tools import new_session, new_window, show, tag
from tmux_contract_mcp.handlers.tmux.transport.kinds import is_read

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


@pytest.fixture(scope="module")
async def client(shared: TmuxServer) -> AsyncIterator[Client]:
    async with open_client(shared.server_env(LIBTMUX_MCP_WAIT_MAX_SECONDS="1"), "swift") as c:
        yield c


async def refused(
    shared: TmuxServer,
    client: Client,
    tool: str,
    arguments: dict[str, Any],
    *,
    looks: bool = False,
) -> str:
    """The call's error text, once it is known to have changed nothing: it sent tmux
    nothing, or (``looks``: a refusal that needs to see tmux's state) only reads."""
    before = shared.state()
    mark = shared.mark()
    message = await client.error(tool, arguments)
    if looks:
        sent = [item for item in shared.sent_since(mark) if item.reaches_a_server]
        assert sent and all(is_read(item.words) for item in sent), [str(i) for i in sent]
    else:
        shared.assert_nothing_sent_since(mark, tool)
    assert shared.state() == before
    return message


def waiters(channel: str) -> list[int]:
    """Pids of the processes waiting on ``channel`` (``tmux wait-for CHANNEL``)."""
    return [pid for pid in pids() if "wait-for" in (argv := cmdline(pid)) and channel in argv]


def placements(shared: TmuxServer, window: str) -> list[str]:
    rows = shared.lines("list-windows", "-a", "-F", "#{window_id} #{session_id}:#{window_index}")
    return [target for window_id, target in (row.split() for row in rows) if window_id == window]


# --- names ------------------------------------------------------------------------------


async def test_rename_session_takes_the_name_literally(shared: TmuxServer, client: Client) -> None:
    session_id, _, _ = new_session(shared, f"rn-{tag()}")
    name = f"#{{session_id}} #(touch {shared.tmpdir}/ran) {tag()}"
    ref = (await client.ok("get_session_info", {"session": session_id}))["session"]["ref"]
    renamed = await client.ok("rename_session", {"session": ref, "name": name})
    assert renamed == {"sessionId": session_id, "name": name}
    assert show(shared, session_id, "session_name") == [name]
    assert not (shared.tmpdir / "ran").exists()
    dotted = await client.ok("rename_session", {"session": session_id, "name": "a.b:c"})
    assert dotted["name"] == "a_b_c" == show(shared, session_id, "session_name")[0]


async def test_rename_session_refuses_a_name_another_session_has(
    shared: TmuxServer, client: Client
) -> None:
    first, _, _ = new_session(shared, f"one-{tag()}")
    taken = f"two-{tag()}"
    new_session(shared, taken)
    message = await client.error("rename_session", {"session": first, "name": taken})
    assert message.startswith("Invalid argument `name`")
    assert "duplicate session" in message
    assert show(shared, first, "session_name") != [taken]


async def test_rename_window_takes_the_name_literally(shared: TmuxServer, client: Client) -> None:
    window, _ = new_window(shared)
    name = "#{pane_id} ;x"
    assert await client.ok("rename_window", {"windowId": window, "name": name}) == {
        "windowId": window,
        "name": name,
    }
    assert show(shared, window, "window_name") == [name]


async def test_set_pane_title_takes_the_title_literally(shared: TmuxServer, client: Client) -> None:
    _, pane = new_window(shared)
    title = "#{pane_id} é ✓"
    assert await client.ok("set_pane_title", {"paneId": pane, "title": title}) == {
        "paneId": pane,
        "title": title,
    }
    assert show(shared, pane, "pane_title") == [title]
    message = await refused(shared, client, "set_pane_title", {"paneId": pane, "title": "a\nb"})
    assert "control character" in message


# --- selection and order ----------------------------------------------------------------


async def test_select_pane_makes_the_pane_active(shared: TmuxServer, client: Client) -> None:
    _, first = new_window(shared)
    second = shared.tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", first).strip()
    assert show(shared, second, "pane_active") == ["0"]
    assert await client.ok("select_pane", {"paneId": second}) == {"paneId": second}
    assert show(shared, second, "pane_active") == ["1"]
    assert show(shared, first, "pane_active") == ["0"]


async def test_select_window_picks_one_placement_of_a_linked_window(
    shared: TmuxServer, client: Client
) -> None:
    one, _, _ = new_session(shared, f"s1-{tag()}")
    two, _, _ = new_session(shared, f"s2-{tag()}")
    window, _ = new_window(shared, session=one)
    shared.tmux("link-window", "-d", "-s", window, "-t", f"{two}:")
    assert len(placements(shared, window)) == 2
    message = await refused(shared, client, "select_window", {"windowId": window}, looks=True)
    assert "more than one of them fits" in message
    for target in placements(shared, window):
        assert target in message
    picked = await client.ok("select_window", {"windowId": window, "sourceSession": two})
    assert picked["windowId"] == window and picked["target"].startswith(f"{two}:")
    session, index = picked["target"].split(":")
    active = shared.lines("list-windows", "-t", session, "-F", "#{window_active} #{window_index}")
    assert f"1 {index}" in active
    # A placement ref names one placement by itself.
    rows = (await client.ok("list_windows", {"session": one}))["windows"]
    (row,) = (row for row in rows if row["id"] == window)
    chosen = await client.ok("select_window", {"windowId": row["linkRef"]})
    assert chosen["target"] == row["target"]


async def test_move_window_moves_within_and_across_sessions(
    shared: TmuxServer, client: Client
) -> None:
    one, _, _ = new_session(shared, f"m1-{tag()}")
    two, _, _ = new_session(shared, f"m2-{tag()}")
    window, _ = new_window(shared, session=one)
    moved = await client.ok("move_window", {"windowId": window, "index": 7})
    assert moved == {"windowId": window, "target": f"{one}:7"}
    assert placements(shared, window) == [f"{one}:7"]
    across = await client.ok("move_window", {"windowId": window, "session": two})
    assert placements(shared, window) == [across["target"]]
    assert across["target"].startswith(f"{two}:")
    # The index taken by the session's first window is refused, and nothing moves.
    message = await client.error("move_window", {"windowId": window, "index": 0})
    assert message.startswith("Invalid argument `index`") and "taken" in message
    assert placements(shared, window) == [across["target"]]


# --- sizes and layouts --------------------------------------------------------------------


async def test_resize_window_sets_the_size_tmux_reports(shared: TmuxServer, client: Client) -> None:
    window, _ = new_window(shared)
    assert await client.ok("resize_window", {"windowId": window, "width": 90, "height": 20}) == {
        "windowId": window
    }
    assert show(shared, window, "window_width", "window_height") == ["90", "20"]
    await refused(shared, client, "resize_window", {"windowId": window})
    message = await refused(shared, client, "resize_window", {"windowId": window, "width": 10001})
    assert message.startswith("Invalid argument `width`")


async def test_resize_pane_zoom_direction_and_size(shared: TmuxServer, client: Client) -> None:
    window, first = new_window(shared)
    shared.tmux("resize-window", "-t", window, "-x", "100", "-y", "30")
    second = shared.tmux("split-window", "-h", "-d", "-P", "-F", "#{pane_id}", "-t", first).strip()
    await client.ok("resize_pane", {"paneId": first, "zoom": True})
    assert show(shared, window, "window_zoomed_flag") == ["1"]
    await client.ok("resize_pane", {"paneId": first, "zoom": True})
    assert show(shared, window, "window_zoomed_flag") == ["0"]
    (width,) = show(shared, first, "pane_width")
    await client.ok("resize_pane", {"paneId": first, "direction": "right", "amount": 5})
    assert show(shared, first, "pane_width") == [str(int(width) + 5)]
    await client.ok("resize_pane", {"paneId": second, "width": 30})
    assert show(shared, second, "pane_width") == ["30"]
    message = await refused(shared, client, "resize_pane", {"paneId": first, "amount": 3})
    assert message.startswith("Invalid argument `direction`")


async def test_select_layout_presets_abbreviations_and_saved_strings(
    shared: TmuxServer, client: Client
) -> None:
    window, first = new_window(shared)
    shared.tmux("split-window", "-d", "-t", first)
    shared.tmux("split-window", "-d", "-t", first)
    tiled = await client.ok("select_layout", {"windowId": window, "layout": "ti"})
    assert tiled == {"windowId": window, "layout": "tiled"}
    (saved,) = show(shared, window, "window_layout")
    await client.ok("select_layout", {"windowId": window, "layout": "even-horizontal"})
    rows = shared.lines("list-panes", "-t", window, "-F", "#{pane_at_top}#{pane_at_bottom}")
    assert rows == ["11", "11", "11"]  # side by side: every pane spans the window's height
    assert show(shared, window, "window_layout") != [saved]
    back = await client.ok("select_layout", {"windowId": window, "layout": saved})
    assert back["layout"] == saved == show(shared, window, "window_layout")[0]
    # An ambiguous word would crash tmux 3.3a; it never reaches it (only tmux's version is
    # read, to know which presets this tmux has).
    message = await refused(
        shared, client, "select_layout", {"windowId": window, "layout": "main"}, looks=True
    )
    assert "ambiguous" in message
    broken = ("0000" if not saved.startswith("0000") else "ffff") + saved[4:]
    message = await refused(shared, client, "select_layout", {"windowId": window, "layout": broken})
    assert "checksum" in message


async def test_swap_pane_exchanges_places_and_ids_follow_their_processes(
    shared: TmuxServer, client: Client
) -> None:
    _, left = new_window(shared)
    right = shared.tmux("split-window", "-h", "-d", "-P", "-F", "#{pane_id}", "-t", left).strip()
    before = {pane: show(shared, pane, "pane_left", "pane_pid") for pane in (left, right)}
    assert await client.ok("swap_pane", {"paneId": left, "otherPaneId": right}) == {
        "paneId": left,
        "otherPaneId": right,
    }
    assert show(shared, left, "pane_left", "pane_pid") == [before[right][0], before[left][1]]
    assert show(shared, right, "pane_left", "pane_pid") == [before[left][0], before[right][1]]


# --- global settings ----------------------------------------------------------------------


async def test_history_limit_and_mouse_are_set_globally(shared: TmuxServer, client: Client) -> None:
    assert await client.ok("set_history_limit", {"lines": 4321}) == {"lines": 4321}
    assert shared.tmux("show-options", "-gv", "history-limit").strip() == "4321"
    _, pane = new_window(shared)
    assert show(shared, pane, "history_limit") == ["4321"]
    assert await client.ok("set_mouse_enabled", {"enabled": True}) == {"enabled": True}
    assert shared.tmux("show-options", "-gv", "mouse").strip() == "on"
    assert await client.ok("set_mouse_enabled", {"enabled": False}) == {"enabled": False}
    assert shared.tmux("show-options", "-gv", "mouse").strip() == "off"


# --- channels -----------------------------------------------------------------------------


async def test_a_signal_releases_a_waiting_wait(shared: TmuxServer, client: Client) -> None:
    channel = f"ch-{tag()}"
    found: dict[str, Any] = {}

    async def wait() -> None:
        found.update(await client.ok("wait_for_channel", {"channel": channel, "timeoutMs": 900}))

    async with anyio.create_task_group() as group:
        group.start_soon(wait)
        await anyio.sleep(0.2)
        assert len(waiters(channel)) == 1  # the wait sleeps in one tmux wait-for process
        shared.tmux("wait-for", "-S", channel)
    assert waiters(channel) == []
    assert found["channel"] == channel and found["released"] is True
    assert found["seconds"] < 0.9 and found["effectiveTimeout"] == 0.9


async def test_signal_channel_releases_the_next_wait(shared: TmuxServer, client: Client) -> None:
    channel = f"ch-{tag()}"
    assert await client.ok("signal_channel", {"channel": channel}) == {
        "channel": channel,
        "signalled": True,
    }
    waited = await client.ok("wait_for_channel", {"channel": channel, "timeoutMs": 500})
    assert waited["released"] is True


async def test_a_wait_times_out_and_its_timeout_is_cut_to_the_ceiling(
    shared: TmuxServer, client: Client
) -> None:
    channel = f"ch-{tag()}"
    started = time.monotonic()
    waited = await client.ok("wait_for_channel", {"channel": channel, "timeoutMs": 5000})
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
    shared: TmuxServer, client: Client, tool: str, arguments: dict[str, Any], field: str
) -> None:
    message = await refused(shared, client, tool, arguments)
    assert field in message, message


async def test_a_target_that_does_not_exist_is_named_with_the_socket(
    shared: TmuxServer, client: Client
) -> None:
    before = shared.state()
    for tool, arguments, what in (
        ("select_pane", {"paneId": "%999"}, "No pane %999"),
        ("rename_window", {"windowId": "@999", "name": "x"}, "No window @999"),
        ("rename_session", {"session": "no-such", "name": "x"}, "No session 'no-such'"),
    ):
        message = await client.error(tool, arguments)
        assert message.startswith(what) and shared.name in message, message
    assert shared.state() == before
