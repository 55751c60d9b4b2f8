"""What the control client does to the user's tmux server, as docs/development.md lists it.

Over the control transport the server attaches one control-mode client (on the
first call that needs tmux), and a wait attaches an output client for as long as
it waits, over either transport. tmux treats both as attached clients; these tests
watch each consequence the page states from the tmux server's side.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import anyio
import pytest

from scripts.lab.client import open_in_process
from scripts.lab.tmuxserver import TmuxServer

pytestmark = pytest.mark.anyio

DEADLINE = 20.0
HOOKS = {"client-attached": "@att", "client-detached": "@det", "client-session-changed": "@chg"}


def count_hooks(tmux: TmuxServer) -> Callable[[], dict[str, int]]:
    """Count the client hooks tmux runs from now on; returns a reader of the counts."""
    for hook, option in HOOKS.items():
        tmux.tmux("set-option", "-g", option, "0")
        tmux.tmux("set-hook", "-g", hook, f"set-option -gF {option} '#{{e|+:#{{{option}}},1}}'")

    def read() -> dict[str, int]:
        return {h: int(tmux.tmux("show-options", "-gv", o).strip()) for h, o in HOOKS.items()}

    return read


async def settled(read: Callable[[], dict[str, int]], want: dict[str, int]) -> None:
    """Until the hook counts equal ``want``; then they must stay so for a moment."""
    with anyio.move_on_after(DEADLINE):
        while read() != want:
            await anyio.sleep(0.02)
    await anyio.sleep(0.2)
    assert read() == want


def control_clients(tmux: TmuxServer) -> list[str]:
    return tmux.lines("list-clients", "-F", "#{client_pid} #{client_flags}")


def env(tmux: TmuxServer, transport: str, **extra: str) -> dict[str, str]:
    return tmux.server_env(TMUX_CONTRACT_MCP_TRANSPORT=transport, **extra)


async def test_the_first_call_attaches_one_client_and_its_hooks_fire_once(
    tmux: TmuxServer,
) -> None:
    read = count_hooks(tmux)
    async with open_in_process(env(tmux, "control")) as client:
        await settled(
            read, {"client-attached": 0, "client-detached": 0, "client-session-changed": 0}
        )
        listed = await client.ok("list_sessions")
        await client.ok("list_panes")
        await client.ok("get_session_info", {"session_name": "main"})
        await settled(
            read, {"client-attached": 1, "client-detached": 0, "client-session-changed": 1}
        )
        (row,) = control_clients(tmux)  # tmux lists it...
        assert {"control-mode", "ignore-size", "no-output"} <= set(row.split(" ", 1)[1].split(","))
        assert listed["result"][0]["session_attached"] == "0"  # ...the tools never count it
    await settled(read, {"client-attached": 1, "client-detached": 1, "client-session-changed": 1})
    assert control_clients(tmux) == []


async def test_over_subprocesses_ordinary_calls_attach_nothing(tmux: TmuxServer) -> None:
    read = count_hooks(tmux)
    async with open_in_process(env(tmux, "subprocess")) as client:
        await client.ok("list_sessions")
        await client.ok("list_panes")
        await client.ok("display_message", {"format_string": "#{session_attached}"})
        assert control_clients(tmux) == []
    await settled(read, {"client-attached": 0, "client-detached": 0, "client-session-changed": 0})


@pytest.mark.parametrize("transport", ["control", "subprocess"])
async def test_a_wait_attaches_an_output_client_while_it_waits(
    tmux: TmuxServer, transport: str
) -> None:
    read = count_hooks(tmux)
    async with open_in_process(env(tmux, transport)) as client:
        pane = tmux.active_pane()
        await client.ok("list_panes")
        before = read()
        arguments = {"pane_id": pane, "patterns": ["never-printed"], "timeout": 0.5}
        assert (await client.ok("wait_for_text", arguments))["found"] is False
        await settled(read, {hook: count + 1 for hook, count in before.items()})


async def test_a_client_counting_format_detaches_the_client_until_the_next_call(
    tmux: TmuxServer,
) -> None:
    read = count_hooks(tmux)
    async with open_in_process(env(tmux, "control")) as client:
        await client.ok("list_panes")
        await settled(
            read, {"client-attached": 1, "client-detached": 0, "client-session-changed": 1}
        )
        await client.ok("display_message", {"format_string": "#{session_attached}"})
        await settled(
            read, {"client-attached": 1, "client-detached": 1, "client-session-changed": 1}
        )
        assert control_clients(tmux) == []
        await client.ok("list_panes")
        await settled(
            read, {"client-attached": 2, "client-detached": 1, "client-session-changed": 2}
        )


@pytest.mark.parametrize("transport", ["control", "subprocess"])
async def test_attaching_leaves_the_sessions_environment_alone(
    tmux: TmuxServer, transport: str
) -> None:
    """An attach copies update-environment's variables into the session; -E stops that."""
    tmux.tmux("set-option", "-g", "update-environment", "TCM_PROBE")
    tmux.tmux("set-environment", "-t", "main", "TCM_PROBE", "the session's")
    async with open_in_process(env(tmux, transport, TCM_PROBE="the server's")) as client:
        await client.ok("list_panes")
        arguments = {"pane_id": tmux.active_pane(), "patterns": ["never"], "timeout": 0.3}
        await client.ok("wait_for_text", arguments)  # an output client attaches too
        assert tmux.tmux("show-environment", "-t", "main", "TCM_PROBE").strip() == (
            "TCM_PROBE=the session's"
        )


@pytest.mark.parametrize(("transport", "attached"), [("control", True), ("subprocess", False)])
async def test_the_session_it_attaches_to_shows_that_attach_time(
    tmux: TmuxServer, transport: str, attached: bool
) -> None:
    last = ["display-message", "-p", "-t", "main", "#{session_last_attached}"]
    assert tmux.tmux(*last).strip() == ""  # never attached
    async with open_in_process(env(tmux, transport)) as client:
        await client.ok("list_panes")
        stamp = tmux.tmux(*last).strip()
    assert (stamp != "" and abs(int(stamp) - time.time()) < 60) is attached


def ring_the_bell(tmux: TmuxServer) -> list[str]:
    """Ring a bell in window main:0 (bells monitored); the command that reads its flag."""
    tmux.tmux("set-option", "-g", "monitor-bell", "on")
    tmux.tmux("set-option", "-g", "bell-action", "any")
    pane = tmux.active_pane()
    tmux.tmux("send-keys", "-t", pane, "printf '\\a'; tmux wait-for -S rang", "Enter")
    tmux.tmux("wait-for", "rang")
    return ["display-message", "-p", "-t", "main:0", "#{window_bell_flag}"]


@pytest.mark.parametrize(("transport", "flagged"), [("control", "0"), ("subprocess", "1")])
async def test_a_bell_in_the_current_window_is_not_flagged_while_attached(
    tmux: TmuxServer, transport: str, flagged: str
) -> None:
    async with open_in_process(env(tmux, transport)) as client:
        await client.ok("list_panes")
        flag = ring_the_bell(tmux)
        await anyio.sleep(0.3)
        assert tmux.tmux(*flag).strip() == flagged


@pytest.mark.parametrize(("transport", "flagged"), [("control", "0"), ("subprocess", "1")])
async def test_attaching_clears_the_current_windows_bell_flag(
    tmux: TmuxServer, transport: str, flagged: str
) -> None:
    flag = ring_the_bell(tmux)
    await anyio.sleep(0.3)
    assert tmux.tmux(*flag).strip() == "1"  # nobody attached: the bell is flagged
    async with open_in_process(env(tmux, transport)) as client:
        await client.ok("list_panes")
        await anyio.sleep(0.3)
        assert tmux.tmux(*flag).strip() == flagged


async def test_exit_unattached_keeps_the_server_while_the_control_client_is_attached(
    tmux: TmuxServer,
) -> None:
    async with open_in_process(env(tmux, "control")) as client:
        await client.ok("list_panes")
        tmux.tmux("set-option", "-s", "exit-unattached", "on")
        await anyio.sleep(0.3)
        assert tmux.lines("list-sessions", "-F", "#{session_name}") == ["main"]
    deadline = time.monotonic() + DEADLINE
    while tmux.tmux("list-sessions", check=False) and time.monotonic() < deadline:
        await anyio.sleep(0.05)
    assert tmux.tmux("list-sessions", check=False) == ""  # it left, and tmux exited


async def test_over_subprocesses_exit_unattached_applies_at_once(tmux: TmuxServer) -> None:
    async with open_in_process(env(tmux, "subprocess")) as client:
        await client.ok("list_panes")
        tmux.tmux("set-option", "-s", "exit-unattached", "on")
        deadline = time.monotonic() + DEADLINE
        while tmux.tmux("list-sessions", check=False) and time.monotonic() < deadline:
            await anyio.sleep(0.05)
        assert tmux.tmux("list-sessions", check=False) == ""
