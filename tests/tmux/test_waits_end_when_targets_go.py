"""A wait whose pane goes ends at once, saying what went, instead of at its own timeout.

Every wait of every profile (python ``wait_for_text`` and ``run_command``, swift
``capture_since`` with ``waitMs``) is started with a long timeout, then its pane is
killed, its window or session is killed, its program exits, its program exits under
``remain-on-exit`` (the pane stays, dead), or the whole tmux server is killed. The
call must answer well before its timeout, as an error naming the pane (or the
server) and the socket, and saying what to do next.

One tmux server and one MCP server per profile serve the module; every test makes
its own session, so the wait's output client (attached to that session) tells when
the wait is waiting. The server-killed tests restart tmux on the same socket.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread
import mcp.types as types
import pytest

from scripts.lab.client import Client, error_text, open_in_process
from scripts.lab.processes import cmdline, end_session
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.processes import tmux_processes
from tests.helpers.tmux import start_again
from tests.helpers.tmux import tmux_clients as clients
from tests.helpers.waiting import eventually

pytestmark = pytest.mark.anyio

PROMPTLY = 5.0  # seconds: far below every wait's own timeout, generous for a loaded machine
HANG = 60.0  # only there to turn a hang into a failure


# --- the waits ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Waiting:
    """One kind of wait: its profile, its tool, and its arguments for a pane."""

    profile: str
    tool: str
    timeout: float  # the wait's own timeout, in seconds

    async def arguments(self, client: Client, pane: str) -> dict[str, Any]:
        if self.tool == "wait_for_text":
            return {"pane_id": pane, "patterns": ["never printed"], "timeout": self.timeout}
        if self.tool == "run_command":
            return {"pane_id": pane, "command": "sleep 120", "timeout": self.timeout}
        first = await client.ok("capture_since", {"paneId": pane})
        return {"paneId": pane, "cursor": first["cursor"], "waitMs": int(self.timeout * 1000)}


WAITS = {
    "wait_for_text": Waiting("python", "wait_for_text", 30.0),
    "run_command": Waiting("python", "run_command", 30.0),
    "capture_since": Waiting("swift", "capture_since", 10.0),  # waitMs is at most 10 s
}


@pytest.fixture(scope="module")
async def profiles(shared: TmuxServer) -> AsyncIterator[dict[str, Client]]:
    async with (
        open_in_process(shared.server_env(), "python") as python,
        open_in_process(shared.server_env(), "swift") as swift,
    ):
        yield {"python": python, "swift": swift}


# --- the world ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """A session of its own holding the waited pane, a second pane beside it in its
    window, and a second window: so killing the pane leaves its window, and killing
    its window leaves its session."""

    session: str
    pane: str
    window: str
    pane_pid: int


def new_target(server: TmuxServer) -> Target:
    session = f"g-{uuid.uuid4().hex[:8]}"
    line = server.tmux(
        "new-session", "-d", "-s", session, "-x", "120", "-y", "30",
        "-P", "-F", "#{pane_id} #{window_id} #{pane_pid}",
    ).split()  # fmt: skip
    pane, window, pid = line
    server.tmux("split-window", "-d", "-t", pane)
    server.tmux("new-window", "-d", "-t", f"{session}:")
    server.wait_for_prompt(pane)
    return Target(session, pane, window, int(pid))


async def ended_by(
    client: Client,
    server: TmuxServer,
    waiting: Waiting,
    target: Target,
    act: Callable[[], object],
) -> tuple[types.CallToolResult, float]:
    """Start the wait; once it waits, ``act``; the answer and how long after ``act`` it came."""
    arguments = await waiting.arguments(client, target.pane)
    answer: list[types.CallToolResult] = []
    acted_at: list[float] = []
    answered_at: list[float] = []

    async def wait() -> None:
        answer.append(await client.session.call_tool(waiting.tool, arguments))
        answered_at.append(anyio.current_time())

    with anyio.fail_after(HANG):
        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await eventually(
                lambda: target.session in {name for _, name in clients(server)}, "the wait"
            )
            if waiting.tool == "run_command":
                await eventually(lambda: running(server, target.pane, "sleep"), "the command")
            acted_at.append(anyio.current_time())
            await anyio.to_thread.run_sync(act)
    return answer[0], answered_at[0] - acted_at[0]


def running(server: TmuxServer, pane: str, command: str) -> bool:
    shown = server.tmux("display-message", "-p", "-t", pane, "#{pane_current_command}")
    return shown.strip() == command


def assert_ended_promptly(
    result: types.CallToolResult, took: float, waiting: Waiting, *expected: str
) -> str:
    message = error_text(result)
    assert result.is_error, f"{waiting.tool} answered {result.structured_content}"
    assert took < PROMPTLY, f"{waiting.tool} took {took:.1f}s to end (timeout {waiting.timeout}s)"
    for text in expected:
        assert text in message, (text, message)
    return message


# --- the pane, its window, its session go ------------------------------------------------


GOING: dict[str, Callable[[TmuxServer, Target], object]] = {
    "the pane is killed": lambda server, t: server.tmux("kill-pane", "-t", t.pane),
    "its window is killed": lambda server, t: server.tmux("kill-window", "-t", t.window),
    "its session is killed": lambda server, t: server.tmux("kill-session", "-t", t.session),
    "its program exits": lambda server, t: end_session(t.pane_pid),
}
# What the message names, beside the pane and the socket: what went, and where to look.
SAYS = {
    "the pane is killed": ("list_panes",),
    "its window is killed": ("window", "list_windows"),
    "its session is killed": ("session", "list_sessions"),
    "its program exits": ("list_panes",),
}


@pytest.mark.parametrize("going", GOING)
@pytest.mark.parametrize("tool", WAITS)
async def test_a_wait_ends_at_once_with_an_error_when_its_target_goes(
    shared: TmuxServer, profiles: dict[str, Client], tool: str, going: str
) -> None:
    waiting = WAITS[tool]
    target = new_target(shared)
    result, took = await ended_by(
        profiles[waiting.profile],
        shared,
        waiting,
        target,
        lambda: GOING[going](shared, target),
    )
    assert_ended_promptly(result, took, waiting, target.pane, shared.socket_path, *SAYS[going])


@pytest.mark.parametrize("tool", WAITS)
async def test_a_wait_ends_when_its_pane_dies_and_remain_on_exit_keeps_it(
    shared: TmuxServer, profiles: dict[str, Client], tool: str
) -> None:
    """A dead pane prints nothing more: waiting on is pointless, so the wait says so.

    capture_since first hands over the rows the pane's end completed (tmux writes its
    "Pane is dead" line below them), as any read would; its next wait says the pane is dead.
    """
    waiting = WAITS[tool]
    target = new_target(shared)
    shared.tmux("set-option", "-w", "-t", target.pane, "remain-on-exit", "on")
    client = profiles[waiting.profile]
    result, took = await ended_by(
        client, shared, waiting, target, lambda: end_session(target.pane_pid)
    )
    if tool == "capture_since" and not result.is_error:
        assert took < PROMPTLY, f"capture_since took {took:.1f}s to hand over the last rows"
        assert result.structured_content is not None
        cursor = result.structured_content["cursor"]
        started = anyio.current_time()
        with anyio.fail_after(HANG):
            result = await client.session.call_tool(
                "capture_since", {"paneId": target.pane, "cursor": cursor, "waitMs": 10_000}
            )
        took = anyio.current_time() - started
    message = assert_ended_promptly(
        result, took, waiting, target.pane, shared.socket_path, "dead", "remain-on-exit"
    )
    assert "respawn" in message
    # The pane is still there, dead, and a new wait on it is refused at once.
    assert shared.tmux("display-message", "-p", "-t", target.pane, "#{pane_dead}").strip() == "1"
    with anyio.fail_after(PROMPTLY):
        again = await client.session.call_tool(
            waiting.tool, await waiting.arguments(client, target.pane)
        )
    assert again.is_error and "dead" in error_text(again), error_text(again)


# --- the server goes (last: each restarts tmux on the same socket) -----------------------


@pytest.mark.parametrize("tool", WAITS)
async def test_a_wait_ends_at_once_when_the_tmux_server_is_killed(
    shared: TmuxServer, profiles: dict[str, Client], tool: str
) -> None:
    waiting = WAITS[tool]
    target = new_target(shared)
    try:
        result, took = await ended_by(
            profiles[waiting.profile],
            shared,
            waiting,
            target,
            lambda: shared.tmux("kill-server"),
        )
    finally:
        await anyio.to_thread.run_sync(start_again, shared, "main")
    message = assert_ended_promptly(result, took, waiting, shared.socket_path)
    assert "server" in message
    # The next call, on the new server, works.
    client = profiles[waiting.profile]
    listed = await client.ok("list_panes")
    assert listed


async def test_wait_for_channel_says_the_server_went_rather_than_signalled(
    shared: TmuxServer, profiles: dict[str, Client]
) -> None:
    """tmux lets every ``wait-for`` go, as if signalled, when its server exits."""
    channel = f"c-{uuid.uuid4().hex[:8]}"
    answer: list[types.CallToolResult] = []
    acted_at: list[float] = []
    answered_at: list[float] = []

    async def wait() -> None:
        arguments = {"channel": channel, "timeout": 30}
        answer.append(await profiles["python"].session.call_tool("wait_for_channel", arguments))
        answered_at.append(anyio.current_time())

    try:
        with anyio.fail_after(HANG):
            async with anyio.create_task_group() as group:
                group.start_soon(wait)
                await eventually(lambda: waiting_for(shared, channel), "the wait-for process")
                acted_at.append(anyio.current_time())
                await anyio.to_thread.run_sync(shared.tmux, "kill-server")
    finally:
        await anyio.to_thread.run_sync(start_again, shared, "main")
    result = answer[0]
    message = error_text(result)
    assert result.is_error, f"wait_for_channel answered {message}"
    assert answered_at[0] - acted_at[0] < PROMPTLY
    assert shared.socket_path in message and "server" in message and channel in message
    # The next wait, on the new server, is signalled.
    async with anyio.create_task_group() as group:
        group.start_soon(wait)
        await eventually(lambda: waiting_for(shared, channel), "the second wait-for process")
        await anyio.to_thread.run_sync(shared.tmux, "wait-for", "-S", channel)
    assert not answer[1].is_error, error_text(answer[1])
    assert "signalled" in error_text(answer[1])


def waiting_for(server: TmuxServer, channel: str) -> bool:
    """Whether a ``tmux wait-for`` on ``channel`` runs against ``server``'s socket."""
    return any(
        "wait-for" in argv and channel in argv and server.socket_path in argv
        for argv in map(cmdline, tmux_processes(server))
    )
