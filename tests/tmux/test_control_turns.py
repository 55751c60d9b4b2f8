"""Our control clients start and close by turns (``transport.gate``), so their coming
and going never sets off tmux 3.3a's crash on an event told to a client still
identifying itself (tmux/tmux#4980).

The churn test is the reproduction itself: without the turns (swapped out below to
show it) tmux 3.3a's server died within a few hundred overlapping starts and closes.
"""

from __future__ import annotations

import contextlib
import errno
import socket
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import Any

import anyio
import pytest

from scripts.lab.tmuxserver import TMUX, TmuxServer
from tmux_contract_mcp.handlers.tmux.transport import gate
from tmux_contract_mcp.handlers.tmux.transport.control import ControlClient
from tmux_contract_mcp.handlers.tmux.transport.gate import Gate
from tmux_contract_mcp.handlers.tmux.transport.process import SubprocessTransport
from tmux_contract_mcp.handlers.tmux.transport.sockets import Socket

pytestmark = pytest.mark.anyio

TASKS = 4
ROUNDS = 5
CYCLES = 60
SUBSCRIBE = ("refresh-client", "-B", "tcm-churn:%*:#{pane_dead}")


async def churn(tmux: TmuxServer) -> int:
    """TASKS tasks each start and close CYCLES clients of the server's one session; how
    many cycles went through (one fails once the server is gone)."""
    socket = Socket(tmux.socket_path, f"socket {tmux.socket_path}")
    session = tmux.tmux("display-message", "-p", "#{session_id}").strip()
    done = 0

    async def cycles() -> None:
        nonlocal done
        for _ in range(CYCLES):
            client = await ControlClient.start(
                socket, TMUX, session, environ=tmux.env, then=(SUBSCRIBE,), timeout=5.0
            )
            await anyio.sleep(0.002)
            await client.aclose()
            done += 1

    with anyio.fail_after(120), contextlib.suppress(Exception):
        async with anyio.create_task_group() as group:
            for _ in range(TASKS):
                group.start_soon(cycles)
    return done


async def test_clients_started_and_closed_at_once_leave_the_tmux_server_alive(
    tmux: TmuxServer,
) -> None:
    pid = tmux.server_pid()
    assert pid is not None
    assert await churn(tmux) == TASKS * CYCLES
    assert tmux.is_server(pid), "the tmux server died while our clients came and went"


@contextlib.asynccontextmanager
async def switched_off(self: Gate) -> AsyncIterator[None]:
    yield


async def dies_without(
    tmux: TmuxServer,
    monkeypatch: pytest.MonkeyPatch,
    part: str,
    run: Callable[[], Awaitable[int]],
    whole: int,
) -> None:
    """With the gate's ``part`` switched off, ``run`` (up to ``ROUNDS`` times) brings
    tmux 3.3a down: the reproduction the gate answers, kept honest. On a tmux with the
    fix there is nothing to see, and the check passes."""
    version = tmux.tmux("-V").strip()
    monkeypatch.setattr(Gate, part, switched_off)
    pid = tmux.server_pid()
    assert pid is not None
    for _ in range(ROUNDS):  # the overlap is a race: a loaded machine may need another round
        done = await run()
        if not tmux.is_server(pid):
            break
    if version == "tmux 3.3a":
        assert not tmux.is_server(pid) and done < whole, (version, done)


async def test_without_turns_the_same_churn_brings_tmux_3_3a_down(
    tmux: TmuxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    await dies_without(tmux, monkeypatch, "turn", partial(churn, tmux), TASKS * CYCLES)


async def test_a_turn_waits_while_another_process_holds_the_servers_name_and_not_after_it_died(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(gate, "TURN_WAIT", 600.0)  # only the holder's end lets the turn in
    key = f"socket-{uuid.uuid4().hex}"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, key], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        entered = anyio.Event()

        async def take() -> None:
            async with Gate(key).turn():
                entered.set()

        with anyio.fail_after(30):
            async with anyio.create_task_group() as group:
                group.start_soon(take)
                await anyio.sleep(0.2)
                assert not entered.is_set()
                holder.kill()  # no release: the kernel lets the name go with the process
                await entered.wait()
    finally:
        holder.kill()
        holder.wait()


HOLDER = """
import sys, time
import anyio
from tmux_contract_mcp.handlers.tmux.transport.gate import Gate
from tmux_contract_mcp.handlers.tmux.transport.process import SubprocessTransport

async def hold():
    async with Gate(sys.argv[1]).turn():
        print("held", flush=True)
        time.sleep(600)

anyio.run(hold)
"""


async def test_a_turn_goes_ahead_when_another_process_keeps_the_name_too_long(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(gate, "TURN_WAIT", 0.1)
    key = f"socket-{uuid.uuid4().hex}"
    stuck, waiting = Gate(key), Gate(key)  # two gates of one name: as two processes
    async with stuck.turn():
        with anyio.fail_after(30):
            async with waiting.turn():
                pass


async def test_turns_hold_in_the_process_where_no_name_can_be_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Unbindable(socket.socket):
        def bind(self, address: Any) -> None:
            raise OSError(errno.EAFNOSUPPORT, "no abstract namespace here")

    monkeypatch.setattr(socket, "socket", Unbindable)  # the module gate binds with
    alone = Gate(f"socket-{uuid.uuid4().hex}")
    order: list[str] = []

    async def later() -> None:
        async with alone.turn():
            order.append("second")

    async with anyio.create_task_group() as group, alone.turn():
        group.start_soon(later)
        await anyio.sleep(0.05)
        order.append("first done")
    assert order == ["first done", "second"]


async def starts_beside_commands(tmux: TmuxServer, by: str) -> int:
    """One task starts and closes STARTS clients, one after another, while another keeps
    switching the session's window (each switch is an event for every control client),
    ``by`` a client of its own or a process per command; how many starts went through."""
    socket = Socket(tmux.socket_path, f"socket {tmux.socket_path}")
    session = tmux.tmux("display-message", "-p", "#{session_id}").strip()
    tmux.tmux("new-window", "-d", "-t", session)
    switching: ControlClient | SubprocessTransport
    if by == "control":
        switching = await ControlClient.start(socket, TMUX, session, environ=tmux.env)
    else:
        switching = SubprocessTransport(socket, TMUX, tmux.env)
    done = 0

    async def switch() -> None:
        while True:
            await switching.run_many([("select-window", "-t", f"{session}:{i}") for i in (0, 1)])

    async def starts() -> None:
        nonlocal done
        for _ in range(STARTS):
            client = await ControlClient.start(socket, TMUX, session, environ=tmux.env)
            await client.aclose()
            done += 1

    with anyio.fail_after(120), contextlib.suppress(Exception):
        async with anyio.create_task_group() as group:
            group.start_soon(switch)
            await starts()
            group.cancel_scope.cancel()
    if isinstance(switching, ControlClient):
        with contextlib.suppress(Exception):
            await switching.aclose()
    return done


STARTS = 150


@pytest.mark.parametrize("by", ["control", "subprocess"])
async def test_our_commands_wait_while_a_client_of_ours_starts(tmux: TmuxServer, by: str) -> None:
    pid = tmux.server_pid()
    assert pid is not None
    assert await starts_beside_commands(tmux, by) == STARTS
    assert tmux.is_server(pid), "the tmux server died while our client started"


@pytest.mark.parametrize("by", ["control", "subprocess"])
async def test_without_the_quiet_start_the_same_commands_bring_tmux_3_3a_down(
    tmux: TmuxServer, monkeypatch: pytest.MonkeyPatch, by: str
) -> None:
    await dies_without(
        tmux, monkeypatch, "quiet", partial(starts_beside_commands, tmux, by), STARTS
    )
