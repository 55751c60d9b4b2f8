"""The rust profile's manage tools (all but select_pane), over stdio against real tmux.

One tmux server and one rust MCP server (every toolset on) serve the module; every
test makes its own sessions, windows and panes and checks each change with tmux
itself. Every failure is read as the family's envelope and its kind checked; a
refused call is checked to have changed nothing (and, when it could be judged from
the arguments alone, to have sent tmux nothing).
"""

from __future__ import annotations

import time
from typing import Any

import anyio
import anyio.to_thread
import mcp.types as types
import pytest

from scripts.lab.client import Client, error_text
from scripts.lab.tmuxserver import TmuxServer
from tests.test_error_envelope import envelope
from tests.test_python_panes import cli_argument, tmux_wait
from tests.test_swift_manage import refused, waiters
from tests.test_swift_tools import new_session, new_window, show, tag
from tests.test_transports import eventually, start_again
from tmux_contract_mcp.handlers.tmux.objects.layouts import layout_checksum

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


@pytest.fixture(scope="module", autouse=True)
async def connected(rust_client: Client) -> None:
    """The MCP server's control client attaches before any test looks at what a call
    sent (mouse off is tmux's default: nothing changes)."""
    await rust_client.ok("set_mouse_enabled", {"enabled": False})


WINDOW_FIELDS = ("window_id", "session_id", "window_index", "window_name", "window_panes")


async def fails(
    shared: TmuxServer,
    client: Client,
    tool: str,
    arguments: dict[str, Any],
    kind: str,
    *,
    looks: bool = False,
) -> str:
    """The message of a refused call of ``kind`` that changed nothing (``refused``)."""
    sent = envelope(await refused(shared, client, tool, arguments, looks=looks))
    assert sent["data"]["kind"] == kind, sent  # type: ignore[index]
    return str(sent["message"])


async def tmux_refuses(
    shared: TmuxServer, client: Client, tool: str, arguments: dict[str, Any], kind: str
) -> str:
    """The message of a call tmux itself refused: nothing any listing shows changed."""
    before = shared.state(), sessions(shared), links(shared)
    sent = envelope(await client.error(tool, arguments))
    assert sent["data"]["kind"] == kind, sent  # type: ignore[index]
    assert (shared.state(), sessions(shared), links(shared)) == before
    return str(sent["message"])


def sessions(shared: TmuxServer) -> list[str]:
    return shared.lines("list-sessions", "-F", "#{session_id} #{session_name}")


def links(shared: TmuxServer) -> list[str]:
    return shared.lines("list-windows", "-a", "-F", "#{window_id} #{session_id}:#{window_index}")


def window_as_tmux_sees_it(shared: TmuxServer, session_id: str, window_id: str) -> dict[str, Any]:
    """The rust window row of ``window_id`` in ``session_id``, from tmux's own listing."""
    fields = (*WINDOW_FIELDS, "window_active", "window_linked")
    fmt = "\x1f".join(f"#{{{name}}}" for name in fields)
    for line in shared.lines("list-windows", "-t", session_id, "-F", fmt):
        values = dict(zip(fields, line.split("\x1f"), strict=True))
        if values["window_id"] == window_id:
            return {
                "id": window_id,
                "session_id": values["session_id"],
                "index": int(values["window_index"]),
                "name": values["window_name"],
                "panes": int(values["window_panes"]),
                "active": values["window_active"] == "1",
                "linked": values["window_linked"] == "1",
            }
    raise AssertionError(f"{window_id} is not in {session_id}")


def pane_as_tmux_sees_it(shared: TmuxServer, pane: str) -> dict[str, Any]:
    """The rust pane row from tmux's own values (this MCP server runs outside tmux)."""
    window_id, active, command, path = show(
        shared, pane, "window_id", "pane_active", "pane_current_command", "pane_current_path"
    )
    return {
        "id": pane,
        "window_id": window_id,
        "active": active == "1",
        "caller": "unknown",
        "command": command or None,
        "path": path or None,
    }


# --- names ------------------------------------------------------------------------------


async def test_rename_session_takes_the_name_literally_and_answers_tmux_row(
    shared: TmuxServer, rust_client: Client
) -> None:
    session_id, _, _ = new_session(shared, f"rn-{tag()}")
    name = f"#{{session_id}} #(touch {shared.tmpdir}/ran) {tag()}"
    row = await rust_client.ok("rename_session", {"session": session_id, "name": name})
    assert row == {"id": session_id, "name": name, "windows": 1, "attached": False}
    assert show(shared, session_id, "session_name") == [name]
    assert not (shared.tmpdir / "ran").exists()
    again = await rust_client.ok("rename_session", {"session": name, "name": name})
    assert again == row  # by exact name, and the same name twice is no error
    dotted = await rust_client.ok("rename_session", {"session": session_id, "name": "a.b:c"})
    assert dotted["name"] == "a_b_c" == show(shared, session_id, "session_name")[0]


async def test_rename_session_refusals_name_the_field_and_change_nothing(
    shared: TmuxServer, rust_client: Client
) -> None:
    first, _, _ = new_session(shared, f"one-{tag()}")
    taken = f"two-{tag()}"
    new_session(shared, taken)
    message = await tmux_refuses(
        shared, rust_client, "rename_session", {"session": first, "name": taken}, "refused"
    )
    assert "`name`" in message and "another session" in message
    message = await fails(
        shared, rust_client, "rename_session", {"session": first, "name": ""}, "invalid_input"
    )
    assert "`name`" in message and "empty" in message
    message = await fails(
        shared,
        rust_client,
        "rename_session",
        {"session": f"none-{tag()}", "name": "x"},
        "object_gone",
        looks=True,
    )
    assert "`session`" in message and shared.name in message


async def test_rename_window_is_literal_stops_auto_renaming_and_answers_tmux_row(
    shared: TmuxServer, rust_client: Client
) -> None:
    session_id, window, _ = new_session(shared, f"rw-{tag()}")
    name = f"#{{window_id}} #(touch {shared.tmpdir}/ran-w) é"
    row = await rust_client.ok("rename_window", {"window": window, "name": name})
    assert row == window_as_tmux_sees_it(shared, session_id, window)
    assert row["name"] == name and not (shared.tmpdir / "ran-w").exists()
    assert shared.tmux("show-options", "-wv", "-t", window, "automatic-rename").strip() == "off"
    message = await fails(
        shared, rust_client, "rename_window", {"window": "1", "name": "x"}, "invalid_input"
    )
    assert "`window`" in message and "@" in message
    message = await fails(
        shared,
        rust_client,
        "rename_window",
        {"window": "@99999", "name": "x"},
        "object_gone",
        looks=True,
    )
    assert "@99999" in message and shared.name in message


# --- places and sizes -------------------------------------------------------------------


async def test_move_window_moves_to_a_free_index_and_refuses_a_taken_one(
    shared: TmuxServer, rust_client: Client
) -> None:
    source, _, _ = new_session(shared, f"mv-{tag()}")
    window, _ = new_window(shared, session=source)
    target_name = f"mvto-{tag()}"
    target, _, _ = new_session(shared, target_name)
    arguments = {"window": window, "destination_session": target_name, "destination_index": 7}
    row = await rust_client.ok("move_window", arguments)
    assert row == window_as_tmux_sees_it(shared, target, window)
    assert row["session_id"] == target and row["index"] == 7
    assert [line for line in links(shared) if line.startswith(f"{window} ")] == [
        f"{window} {target}:7"
    ]
    assert await rust_client.ok("move_window", arguments) == row  # already there
    occupied = {"window": window, "destination_session": target, "destination_index": 0}
    message = await tmux_refuses(shared, rust_client, "move_window", occupied, "refused")
    assert "`destination_index`" in message and "free index" in message
    negative = {"window": window, "destination_session": target, "destination_index": -1}
    message = await fails(shared, rust_client, "move_window", negative, "invalid_input")
    assert "`destination_index`" in message
    nowhere = {"window": window, "destination_session": f"no-{tag()}", "destination_index": 1}
    message = await fails(shared, rust_client, "move_window", nowhere, "object_gone", looks=True)
    assert "`destination_session`" in message


async def test_resize_pane_moves_one_edge_and_reports_tmux_size(
    shared: TmuxServer, rust_client: Client
) -> None:
    _, _, top = new_session(shared, f"rp-{tag()}")
    shared.tmux("split-window", "-v", "-t", top)
    (height,) = show(shared, top, "pane_height")
    row = await rust_client.ok("resize_pane", {"pane": top, "direction": "down", "cells": 3})
    width_now, height_now = show(shared, top, "pane_width", "pane_height")
    assert row == {"pane": top, "width": int(width_now), "height": int(height_now)}
    assert int(height_now) == int(height) + 3
    _, _, alone = new_session(shared, f"rq-{tag()}")
    size = show(shared, alone, "pane_width", "pane_height")
    row = await rust_client.ok("resize_pane", {"pane": alone, "direction": "left", "cells": 5})
    assert (
        [str(row["width"]), str(row["height"])]
        == size
        == show(shared, alone, "pane_width", "pane_height")
    )  # alone in its window: nothing to take room from
    for cells in (0, 10001):
        arguments = {"pane": top, "direction": "up", "cells": cells}
        message = await fails(shared, rust_client, "resize_pane", arguments, "invalid_input")
        assert "`cells`" in message
    arguments = {"pane": "%99999", "direction": "up", "cells": 1}
    message = await tmux_refuses(shared, rust_client, "resize_pane", arguments, "object_gone")
    assert "%99999" in message and "`pane`" in message


async def test_resize_window_sets_the_size_and_tmux_keeps_it_manual(
    shared: TmuxServer, rust_client: Client
) -> None:
    session_id, window, _ = new_session(shared, f"rz-{tag()}")
    row = await rust_client.ok("resize_window", {"window": window, "width": 90, "height": 20})
    assert row == window_as_tmux_sees_it(shared, session_id, window)
    assert show(shared, window, "window_width", "window_height") == ["90", "20"]
    assert shared.tmux("show-options", "-wv", "-t", window, "window-size").strip() == "manual"
    for field in ("width", "height"):
        arguments = {"window": window, "width": 90, "height": 20} | {field: 0}
        message = await fails(shared, rust_client, "resize_window", arguments, "invalid_input")
        assert f"`{field}`" in message


# --- layouts ----------------------------------------------------------------------------


async def test_select_layout_presets_abbreviations_and_saved_strings_as_tmux_applies_them(
    shared: TmuxServer, rust_client: Client
) -> None:
    _, window, pane = new_session(shared, f"ly-{tag()}")
    shared.tmux("split-window", "-t", pane)
    shared.tmux("split-window", "-t", pane)
    assert await rust_client.ok("select_layout", {"window": window, "layout": "ti"}) == {
        "window": window,
        "layout": "tiled",
    }
    (tiled,) = show(shared, window, "window_layout")
    shared.tmux("select-layout", "-t", window, "tiled")
    assert show(shared, window, "window_layout") == [tiled]  # what tmux makes of "tiled"
    main = await rust_client.ok("select_layout", {"window": window, "layout": "main-h"})
    assert main["layout"] == "main-horizontal"  # unambiguous before tmux 3.5
    assert show(shared, window, "window_layout") != [tiled]
    back = await rust_client.ok("select_layout", {"window": window, "layout": tiled})
    assert back == {"window": window, "layout": tiled}
    assert show(shared, window, "window_layout") == [tiled]
    # A string with more cells than the window has panes: tmux drops the last cells,
    # and the answer is the layout tmux applied.
    body = "200x50,0,0{50x50,0,0,1,49x50,51,0,2,49x50,101,0,3,48x50,151,0,4}"
    four = await rust_client.ok(
        "select_layout", {"window": window, "layout": f"{layout_checksum(body):04x},{body}"}
    )
    assert four["layout"] == show(shared, window, "window_layout")[0] != tiled


async def test_select_layout_refuses_words_that_would_crash_tmux_and_the_server_lives(
    shared: TmuxServer, rust_client: Client
) -> None:
    _, window, pane = new_session(shared, f"lz-{tag()}")
    shared.tmux("split-window", "-t", pane)
    # Words need tmux's version to judge; other text is refused unread.
    words = [("main", True), ("mai", True), ("tiledx", True), ("x", True)]
    for word, looks in [*words, ("", False), ("#(id)", False)]:
        arguments = {"window": window, "layout": word}
        message = await fails(
            shared, rust_client, "select_layout", arguments, "invalid_input", looks=looks
        )
        assert "`layout`" in message
    (layout,) = show(shared, window, "window_layout")
    broken = f"{(int(layout[:4], 16) + 1) % 0x10000:04x}{layout[4:]}"
    message = await fails(
        shared, rust_client, "select_layout", {"window": window, "layout": broken}, "invalid_input"
    )
    assert "checksum" in message
    (version,) = show(shared, window, "version")
    if version.startswith("3.3"):
        for word in ("main-horizontal-mirrored", "main-vertical-m"):
            arguments = {"window": window, "layout": word}
            message = await fails(
                shared, rust_client, "select_layout", arguments, "unsupported_version", looks=True
            )
            assert "3.5" in message and version in message
    body = "200x50,0,0,1"  # one pane; the window has two
    single = f"{layout_checksum(body):04x},{body}"
    message = await tmux_refuses(
        shared, rust_client, "select_layout", {"window": window, "layout": single}, "refused"
    )
    assert "`layout`" in message
    assert shared.tmux("display-message", "-p", "#{pid}").strip()  # tmux still runs


# --- selection --------------------------------------------------------------------------


async def test_select_window_by_id_next_previous_last_answers_the_active_window(
    shared: TmuxServer, rust_client: Client
) -> None:
    session_id, first, _ = new_session(shared, f"sw-{tag()}")
    second, _ = new_window(shared, session=session_id)
    third, _ = new_window(shared, session=session_id)

    async def select(window: str, direction: str | None = None) -> str:
        arguments = {"window": window} | ({"direction": direction} if direction else {})
        (row,) = (await rust_client.ok("select_window", arguments))["windows"]
        (active,) = show(shared, session_id, "window_id")
        assert row == window_as_tmux_sees_it(shared, session_id, active)
        assert row["active"] is True
        return str(row["id"])

    assert await select(second) == second
    assert await select(third, "next") == first  # wraps
    assert await select(first, "previous") == third  # wraps back
    assert await select(first, "next") == second  # from the named window, not the current
    assert await select(first, "last") == third  # the window current before
    lone, only, _ = new_session(shared, f"sl-{tag()}")
    message = await tmux_refuses(
        shared, rust_client, "select_window", {"window": only, "direction": "last"}, "refused"
    )
    assert lone in message and "no previously selected window" in message
    message = await fails(shared, rust_client, "select_window", {"window": "main"}, "invalid_input")
    assert "`window`" in message
    arguments = {"window": "@99999", "direction": "next"}
    message = await fails(
        shared, rust_client, "select_window", arguments, "object_gone", looks=True
    )
    assert "@99999" in message


async def test_set_mouse_enabled_globally_and_per_session_as_tmux_holds_it(
    shared: TmuxServer, rust_client: Client
) -> None:
    session_id, _, _ = new_session(shared, f"ms-{tag()}")
    try:
        row = await rust_client.ok("set_mouse_enabled", {"enabled": True})
        assert row == {"name": "mouse", "target": None, "value": "on"}
        assert shared.tmux("show-options", "-gv", "mouse").strip() == "on"
        row = await rust_client.ok("set_mouse_enabled", {"enabled": False, "session": session_id})
        assert row == {"name": "mouse", "target": session_id, "value": "off"}
        assert shared.tmux("show-options", "-v", "-t", session_id, "mouse").strip() == "off"
        assert shared.tmux("show-options", "-gv", "mouse").strip() == "on"
    finally:
        shared.tmux("set-option", "-g", "mouse", "off")
    arguments = {"enabled": True, "session": f"none-{tag()}"}
    message = await fails(
        shared, rust_client, "set_mouse_enabled", arguments, "object_gone", looks=True
    )
    assert "`session`" in message
    arguments = {"enabled": "yes"}
    message = await fails(shared, rust_client, "set_mouse_enabled", arguments, "invalid_input")
    assert "enabled" in message


# --- panes ------------------------------------------------------------------------------


async def test_set_pane_title_is_literal_and_refuses_control_characters(
    shared: TmuxServer, rust_client: Client
) -> None:
    _, _, pane = new_session(shared, f"pt-{tag()}")
    title = f"#{{pane_id}} #(touch {shared.tmpdir}/ran-t) é ✓"
    row = await rust_client.ok("set_pane_title", {"pane": pane, "title": title})
    assert row == pane_as_tmux_sees_it(shared, pane)
    assert show(shared, pane, "pane_title") == [title]
    assert not (shared.tmpdir / "ran-t").exists()
    for bad in ("a\nb", "tab\there", "esc\x1b[31m"):
        arguments = {"pane": pane, "title": bad}
        message = await fails(shared, rust_client, "set_pane_title", arguments, "invalid_input")
        assert "`title`" in message and "control character" in message
    arguments = {"pane": "3", "title": "x"}
    message = await fails(shared, rust_client, "set_pane_title", arguments, "invalid_input")
    assert "`pane`" in message


async def test_swap_pane_exchanges_places_and_ids_follow_the_processes(
    shared: TmuxServer, rust_client: Client
) -> None:
    _, window_a, pane_a = new_session(shared, f"spa-{tag()}")
    _, window_b, pane_b = new_session(shared, f"spb-{tag()}")
    (pid_a,) = show(shared, pane_a, "pane_pid")
    row = await rust_client.ok("swap_pane", {"source_pane": pane_a, "target_pane": pane_b})
    assert row == pane_as_tmux_sees_it(shared, pane_a)
    assert row["window_id"] == window_b and show(shared, pane_a, "pane_pid") == [pid_a]
    assert show(shared, pane_b, "window_id") == [window_a]
    same = {"source_pane": pane_a, "target_pane": pane_a}
    message = await fails(shared, rust_client, "swap_pane", same, "invalid_input")
    assert "`target_pane`" in message
    gone = {"source_pane": pane_a, "target_pane": "%99999"}
    message = await fails(shared, rust_client, "swap_pane", gone, "object_gone", looks=True)
    assert "`target_pane`" in message and "%99999" in message


# --- channels ---------------------------------------------------------------------------


async def test_wait_for_channel_ends_when_tmux_signals_it(
    shared: TmuxServer, rust_client: Client
) -> None:
    channel = f"done; -x #{{pane_id}} {tag()}"
    answered: list[dict[str, Any]] = []

    async def wait() -> None:
        arguments = {"channel": channel, "seconds": 60}
        answered.append(await rust_client.ok("wait_for_channel", arguments))

    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await eventually(lambda: bool(waiters(channel)), "the wait-for process")
            await anyio.to_thread.run_sync(
                shared.tmux, "wait-for", "-S", "--", cli_argument(channel)
            )
    assert answered == [{"channel": channel, "outcome": "signalled"}]
    assert waiters(channel) == []


async def test_kept_signals_cleared_signals_and_the_signal_an_ended_wait_takes(
    shared: TmuxServer, rust_client: Client
) -> None:
    """tmux's channel rules as signal_channel's and wait_for_channel's descriptions and
    reference notes state them (tmux 3.3a)."""
    channel = f"kept-{tag()}"

    async def wait(seconds: int) -> tuple[str, float]:
        started = time.monotonic()
        result = await rust_client.ok("wait_for_channel", {"channel": channel, "seconds": seconds})
        assert result["channel"] == channel
        return str(result["outcome"]), time.monotonic() - started

    async def signal() -> None:
        answer = await rust_client.ok("signal_channel", {"channel": channel, "seconds": 5})
        assert answer == {"channel": channel}

    await signal()  # nobody waits: kept once
    outcome, took = await wait(30)
    assert outcome == "signalled" and took < 10
    await signal()
    await signal()  # the second clears the kept one
    outcome, took = await wait(0)  # read as 1 s
    assert outcome == "deadline" and took >= 0.9
    assert waiters(channel) == []  # the wait's tmux client was killed at the deadline
    await signal()  # tmux hands it to the wait that just ended
    outcome, _ = await wait(1)
    assert outcome == "deadline"


async def test_signal_channel_wakes_a_waiting_tmux_client(
    shared: TmuxServer, rust_client: Client
) -> None:
    channel = f"-wake; #(id) {tag()}"
    process = tmux_wait(shared, channel)
    try:
        await eventually(lambda: bool(waiters(channel)), "the test's own wait-for")
        assert await rust_client.ok("signal_channel", {"channel": channel}) == {"channel": channel}
        assert await anyio.to_thread.run_sync(process.wait, 10) == 0
    finally:
        process.kill()
        process.wait()


async def test_channel_refusals_name_the_field_and_run_nothing(
    shared: TmuxServer, rust_client: Client
) -> None:
    for tool in ("wait_for_channel", "signal_channel"):
        message = await fails(shared, rust_client, tool, {"channel": ""}, "invalid_input")
        assert "`channel`" in message and "empty" in message
    arguments = {"channel": f"long-{tag()}", "seconds": 601}
    message = await fails(shared, rust_client, "wait_for_channel", arguments, "invalid_input")
    assert "`seconds`" in message and "600" in message


async def test_wait_for_channel_ends_at_once_as_server_gone_when_tmux_exits(
    shared: TmuxServer, rust_client: Client
) -> None:
    """Last in the module: it restarts the module's tmux server on the same socket."""
    channel = f"gone-{tag()}"
    answer: list[types.CallToolResult] = []
    acted: list[float] = []

    async def wait() -> None:
        arguments = {"channel": channel, "seconds": 600}
        answer.append(await rust_client.session.call_tool("wait_for_channel", arguments))

    try:
        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                group.start_soon(wait)
                await eventually(lambda: bool(waiters(channel)), "the wait-for process")
                acted.append(time.monotonic())
                await anyio.to_thread.run_sync(shared.tmux, "kill-server")
    finally:
        await anyio.to_thread.run_sync(start_again, shared, "main")
    assert time.monotonic() - acted[0] < 10
    assert answer[0].is_error
    sent = envelope(error_text(answer[0]))
    assert sent["data"]["kind"] == "server_gone"  # type: ignore[index]
    assert channel in str(sent["message"]) and shared.socket_path in str(sent["message"])
