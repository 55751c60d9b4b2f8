"""The python profile's pane and channel tools: resize_pane, set_pane_title, swap_pane,
enter_copy_mode, exit_copy_mode, wait_for_channel and signal_channel, over both transports.

One tmux server and one MCP server per transport serve the module; every test makes
its own windows and channels (unique names) and reads the result back from tmux itself.
"""

from __future__ import annotations

import subprocess
import time
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from scripts.lab.client import Client, open_in_process
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.family import window_running as new_window
from tests.helpers.processes import tmux_processes
from tests.helpers.processes import waiting_clients as waiters
from tests.helpers.tmux import cli_argument, socket_label, tag, tmux_wait
from tests.helpers.waiting import eventually

TRANSPORTS = ("control", "subprocess")
pytestmark = [pytest.mark.anyio, pytest.mark.transports(*TRANSPORTS)]

DEADLINE = 20.0  # only there to turn a hang into a failure


# --- fixtures ---------------------------------------------------------------------------


def server_env(tmux: TmuxServer, transport: str, **extra: str) -> dict[str, str]:
    return tmux.server_env(TMUX_CONTRACT_MCP_TRANSPORT=transport, **extra)


# --- helpers ----------------------------------------------------------------------------


def split(tmux: TmuxServer, pane: str, flag: str) -> str:
    """Split ``pane`` (-h beside it, -v below it) without changing the active pane."""
    return tmux.tmux("split-window", "-d", flag, "-P", "-F", "#{pane_id}", "-t", pane).strip()


def show(tmux: TmuxServer, pane: str, fmt: str) -> str:
    """A format expanded for ``pane`` by tmux itself (the trailing newline dropped)."""
    return tmux.tmux("display-message", "-p", "-t", pane, fmt)[:-1]


def geometry(tmux: TmuxServer, pane: str) -> tuple[int, int, int, int]:
    left, top, width, height = show(
        tmux, pane, "#{pane_left} #{pane_top} #{pane_width} #{pane_height}"
    ).split()
    return int(left), int(top), int(width), int(height)


def injected(marker: Path) -> list[str]:
    """Values that would do something if tmux or a shell interpreted them."""
    return [
        "semi;colon",
        "trailing;",
        "#{session_name} #S #H",
        f"#(touch {marker})",
        f"$(touch {marker})",
        "quotes ' and \" both",
        "back\\slash ~tilde $HOME",
        "é漢 non-ASCII",
        "-starts-with-a-dash",
    ]


def running(tmux: TmuxServer, process: subprocess.Popen[bytes]) -> bool:
    return process.pid in tmux_processes(tmux)


def finished(process: subprocess.Popen[bytes], deadline: float = DEADLINE) -> int:
    try:
        return process.wait(timeout=deadline)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


# --- resize_pane ------------------------------------------------------------------------


async def test_resize_pane_sets_width_and_height_and_reports_the_new_size(
    shared: TmuxServer, python_client: Client
) -> None:
    _, left = new_window(shared)
    split(shared, left, "-h")
    split(shared, left, "-v")
    result = await python_client.ok("resize_pane", {"pane_id": left, "width": 60, "height": 20})
    assert geometry(shared, left)[2:] == (60, 20)
    assert (result["pane_id"], result["pane_width"], result["pane_height"]) == (left, "60", "20")
    result = await python_client.ok("resize_pane", {"pane_id": left, "width": 90})
    assert geometry(shared, left)[2:] == (90, 20)
    assert result["pane_width"] == "90"


async def test_resize_pane_without_pane_id_resizes_the_active_pane_of_the_window(
    shared: TmuxServer, python_client: Client
) -> None:
    window, first = new_window(shared)
    second = split(shared, first, "-h")
    shared.tmux("select-pane", "-t", second)
    result = await python_client.ok("resize_pane", {"window_id": window, "width": 70})
    assert result["pane_id"] == second
    assert geometry(shared, second)[2] == 70


async def test_resize_pane_zoom_true_zooms_the_pane_and_false_unzooms(
    shared: TmuxServer, python_client: Client
) -> None:
    window, first = new_window(shared)
    second = split(shared, first, "-h")

    def zoomed() -> tuple[str, str]:
        return show(shared, window, "#{window_zoomed_flag}"), shared.active_pane(window)

    result = await python_client.ok("resize_pane", {"pane_id": second, "zoom": True})
    assert zoomed() == ("1", second)
    assert result["pane_width"] == "200" and result["pane_active"] == "1"
    await python_client.ok(
        "resize_pane", {"pane_id": second, "zoom": True}
    )  # already: stays zoomed
    assert zoomed() == ("1", second)
    # Zoomed on another pane: that one is unzoomed and this one zoomed.
    result = await python_client.ok("resize_pane", {"pane_id": first, "zoom": True})
    assert zoomed() == ("1", first)
    assert result["pane_width"] == "200"
    result = await python_client.ok("resize_pane", {"pane_id": second, "zoom": False})
    assert zoomed() == ("0", first)
    assert int(result["pane_width"]) < 200
    await python_client.ok("resize_pane", {"pane_id": second, "zoom": False})  # already: stays
    assert zoomed() == ("0", first)


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"width": 50, "zoom": True}, "width"),
        ({"height": 10, "zoom": False}, "height"),
        ({}, "width"),
        ({"width": 0}, "width"),
        ({"height": -3}, "height"),
        ({"width": 10001}, "width"),
    ],
)
async def test_resize_pane_refuses_conflicting_missing_or_impossible_sizes_before_tmux_runs(
    shared: TmuxServer, python_client: Client, arguments: dict[str, Any], field: str
) -> None:
    pane = shared.active_pane()
    before = shared.state()
    mark = shared.mark()
    message = await python_client.error("resize_pane", {"pane_id": pane, **arguments})
    shared.assert_nothing_sent_since(mark)
    assert f"`{field}`" in message
    assert shared.state() == before


async def test_pane_tools_refuse_a_malformed_pane_id_and_name_an_unknown_one(
    shared: TmuxServer, python_client: Client
) -> None:
    tmux = shared
    mark = tmux.mark()
    for tool, arguments in (
        ("resize_pane", {"pane_id": "3", "width": 10}),
        ("set_pane_title", {"pane_id": "%x", "title": "t"}),
        ("swap_pane", {"source_pane_id": "%0", "target_pane_id": "0"}),
        ("swap_pane", {"source_pane_id": "pane", "target_pane_id": "%0"}),
        ("enter_copy_mode", {"pane_id": "@1"}),
        ("exit_copy_mode", {"window_id": "%1"}),
        ("enter_copy_mode", {"session_id": "main"}),
    ):
        message = await python_client.error(tool, arguments)
        assert "Invalid argument" in message, (tool, message)
    tmux.assert_nothing_sent_since(mark)
    for tool, arguments in (
        ("resize_pane", {"pane_id": "%999", "width": 10}),
        ("set_pane_title", {"pane_id": "%999", "title": "t"}),
        ("enter_copy_mode", {"pane_id": "%999"}),
        ("exit_copy_mode", {"pane_id": "%999"}),
    ):
        message = await python_client.error(tool, arguments)
        assert "%999" in message and socket_label(tmux) in message, (tool, message)
        assert "list_panes" in message
    message = await python_client.error("resize_pane", {"session_name": "nope", "width": 10})
    assert "'nope'" in message and socket_label(tmux) in message


# --- set_pane_title ---------------------------------------------------------------------


async def test_set_pane_title_sets_each_value_literally_and_runs_nothing(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    marker = tmp_path / "MARKER"
    window, pane = new_window(shared)
    other = split(shared, pane, "-h")
    for title in [*injected(marker), "##double #", "#[fg=red]style ##[b] a#", ""]:
        result = await python_client.ok("set_pane_title", {"pane_id": other, "title": title})
        assert show(shared, other, "#{pane_title}") == title
        assert result["pane_title"] == title and result["pane_id"] == other
    # Setting a title does not select the pane.
    assert shared.active_pane(window) == pane
    await anyio.sleep(0.2)  # a #() job would have run by now
    assert not marker.exists()


async def test_set_pane_title_targets_the_active_pane_of_a_session_by_name(
    shared: TmuxServer, python_client: Client
) -> None:
    name = f"titled-{tag()}"
    pane = shared.tmux(
        "new-session", "-d", "-s", name, "-x", "80", "-y", "20", "-P", "-F", "#{pane_id}"
    ).strip()
    title = f"by name {tag()}"
    result = await python_client.ok("set_pane_title", {"session_name": name, "title": title})
    assert result["pane_id"] == pane
    assert show(shared, pane, "#{pane_title}") == title


@pytest.mark.parametrize("title", ["two\nlines", "tab\there", "escape\x1b[31m", "c1\x85"])
async def test_set_pane_title_refuses_control_characters_tmux_would_drop(
    shared: TmuxServer, python_client: Client, title: str
) -> None:
    _, pane = new_window(shared)
    shared.tmux("select-pane", "-t", pane, "-T", "kept")
    message = await python_client.error("set_pane_title", {"pane_id": pane, "title": title})
    assert "`title`" in message and "control character" in message
    assert show(shared, pane, "#{pane_title}") == "kept"


# --- swap_pane --------------------------------------------------------------------------


async def test_swap_pane_exchanges_positions_and_keeps_the_active_pane(
    shared: TmuxServer, python_client: Client
) -> None:
    window, left = new_window(shared)
    right = split(shared, left, "-h")
    before_left, before_right = geometry(shared, left), geometry(shared, right)
    result = await python_client.ok("swap_pane", {"source_pane_id": left, "target_pane_id": right})
    assert geometry(shared, left) == before_right
    assert geometry(shared, right) == before_left
    assert result["pane_id"] == left
    assert (result["pane_left"], result["pane_width"]) == (before_right[0], str(before_right[2]))
    assert shared.active_pane(window) == left


async def test_swap_pane_moves_panes_between_windows(
    shared: TmuxServer, python_client: Client
) -> None:
    window_a, pane_a = new_window(shared)
    window_b, pane_b = new_window(shared)
    result = await python_client.ok(
        "swap_pane", {"source_pane_id": pane_a, "target_pane_id": pane_b}
    )
    assert result["window_id"] == window_b
    assert show(shared, pane_a, "#{window_id}") == window_b
    assert show(shared, pane_b, "#{window_id}") == window_a


async def test_swap_pane_with_an_unknown_pane_names_it_and_swaps_nothing(
    shared: TmuxServer, python_client: Client
) -> None:
    _, left = new_window(shared)
    right = split(shared, left, "-h")
    before = shared.state()
    message = await python_client.error(
        "swap_pane", {"source_pane_id": left, "target_pane_id": "%999"}
    )
    assert "%999" in message and "target_pane_id" in message
    assert socket_label(shared) in message
    message = await python_client.error(
        "swap_pane", {"source_pane_id": "%998", "target_pane_id": right}
    )
    assert "%998" in message and "source_pane_id" in message
    assert shared.state() == before


# --- copy mode --------------------------------------------------------------------------


async def test_enter_copy_mode_scrolls_up_and_exit_copy_mode_leaves_it(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = new_window(shared, "sh", "-c", "seq 1 200; exec cat")
    deadline = time.monotonic() + DEADLINE
    while int(show(shared, pane, "#{history_size}")) < 150:
        assert time.monotonic() < deadline, "the output never reached the history"
        await anyio.sleep(0.02)
    history = int(show(shared, pane, "#{history_size}"))

    result = await python_client.ok("enter_copy_mode", {"pane_id": pane, "scroll_up": 10})
    assert result["pane_id"] == pane
    assert show(shared, pane, "#{pane_in_mode} #{pane_mode} #{scroll_position}") == (
        "1 copy-mode 10"
    )
    await python_client.ok("enter_copy_mode", {"pane_id": pane, "scroll_up": 5})  # already in it
    assert show(shared, pane, "#{scroll_position}") == "15"
    await python_client.ok(
        "enter_copy_mode", {"pane_id": pane, "scroll_up": 10**12}
    )  # stops at top
    assert show(shared, pane, "#{scroll_position}") == str(history)

    await python_client.ok("exit_copy_mode", {"pane_id": pane})
    assert show(shared, pane, "#{pane_in_mode}") == "0"
    await python_client.ok("exit_copy_mode", {"pane_id": pane})  # not in a mode: left as it is
    assert show(shared, pane, "#{pane_in_mode}") == "0"

    await python_client.ok("enter_copy_mode", {"pane_id": pane})
    assert show(shared, pane, "#{pane_in_mode} #{scroll_position}") == "1 0"
    await python_client.ok("exit_copy_mode", {"pane_id": pane})
    assert show(shared, pane, "#{pane_in_mode}") == "0"


async def test_enter_copy_mode_refuses_a_negative_scroll(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = new_window(shared)
    message = await python_client.error("enter_copy_mode", {"pane_id": pane, "scroll_up": -1})
    assert "`scroll_up`" in message
    assert show(shared, pane, "#{pane_in_mode}") == "0"


# --- channels ---------------------------------------------------------------------------


async def test_wait_for_channel_returns_when_tmux_signals_the_channel(
    shared: TmuxServer, python_client: Client
) -> None:
    channel = f"done-{tag()}"
    before = waiters(shared)
    answered: dict[str, Any] = {}

    async def wait() -> None:
        answered.update(
            await python_client.ok("wait_for_channel", {"channel": channel, "timeout": 15})
        )

    async with anyio.create_task_group() as group:
        group.start_soon(wait)
        await eventually(lambda: len(waiters(shared)) == len(before) + 1, "the wait's process")
        assert answered == {}
        await anyio.to_thread.run_sync(lambda: shared.tmux("wait-for", "-S", channel))
    assert channel in answered["result"]
    await eventually(lambda: waiters(shared) == before, "the wait's process to end")


async def test_a_signal_sent_before_the_wait_is_kept_for_it(
    shared: TmuxServer, python_client: Client
) -> None:
    channel = f"early-{tag()}"
    result = await python_client.ok("signal_channel", {"channel": channel})
    assert channel in result["result"]
    result = await python_client.ok("wait_for_channel", {"channel": channel, "timeout": 15})
    assert channel in result["result"]


async def test_signal_channel_wakes_a_waiting_tmux_client(
    shared: TmuxServer, python_client: Client
) -> None:
    channel = f"wake-{tag()}"
    process = tmux_wait(shared, channel)
    await eventually(partial(running, shared, process), "the tmux wait")
    await python_client.ok("signal_channel", {"channel": channel})
    assert await anyio.to_thread.run_sync(finished, process) == 0


async def test_channel_names_reach_tmux_literally_and_run_nothing(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    marker = tmp_path / "MARKER"
    for value in [*injected(marker), "new\nline"]:
        channel = f"{value} {tag()}"
        # Our signal ends a wait tmux was given the name by argv: the same channel.
        process = tmux_wait(shared, channel)
        await eventually(partial(running, shared, process), "the tmux wait")
        await python_client.ok("signal_channel", {"channel": channel})
        assert await anyio.to_thread.run_sync(finished, process) == 0, repr(channel)
        # And a signal given by argv ends our wait (kept by tmux if it came first).
        await anyio.to_thread.run_sync(
            partial(shared.tmux, "wait-for", "-S", "--", cli_argument(channel))
        )
        result = await python_client.ok("wait_for_channel", {"channel": channel, "timeout": 15})
        assert repr(channel) in result["result"]
    await anyio.sleep(0.2)  # a #() job would have run by now
    assert not marker.exists()


async def test_wait_for_channel_clamps_the_timeout_to_the_configured_ceiling(
    tmux: TmuxServer,
) -> None:
    env = tmux.server_env(LIBTMUX_MCP_WAIT_MAX_SECONDS="0.4")
    async with open_in_process(env, "python") as client:
        started = time.monotonic()
        message = await client.error("wait_for_channel", {"channel": "slow", "timeout": 600})
        assert time.monotonic() - started < 60  # not the 600 s asked for
    assert "0.4 s" in message and "LIBTMUX_MCP_WAIT_MAX_SECONDS" in message


@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("wait_for_channel", {"channel": ""}, "channel"),
        ("signal_channel", {"channel": ""}, "channel"),
        ("wait_for_channel", {"channel": "nul\x00"}, "channel"),
        ("wait_for_channel", {"channel": "c", "timeout": 0}, "timeout"),
        ("wait_for_channel", {"channel": "c", "timeout": -1}, "timeout"),
    ],
)
async def test_channel_tools_refuse_empty_names_and_non_positive_timeouts(
    shared: TmuxServer, python_client: Client, tool: str, arguments: dict[str, Any], field: str
) -> None:
    processes = tmux_processes(shared)
    message = await python_client.error(tool, arguments)
    assert f"`{field}`" in message
    assert tmux_processes(shared) == processes


async def test_channel_tools_name_the_socket_when_no_server_runs(tmux: TmuxServer) -> None:
    async with open_in_process(tmux.server_env(), "python") as client:
        tmux.kill()
        for tool, arguments in (
            ("wait_for_channel", {"channel": "c", "timeout": 5}),
            ("signal_channel", {"channel": "c"}),
        ):
            message = await client.error(tool, arguments)
            assert "no tmux server" in message and tmux.name in message, message
