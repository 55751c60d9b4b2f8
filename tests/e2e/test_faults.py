"""Faults around the server: it answers clearly, recovers, and leaves nothing behind.

Each case starts a fresh private tmux server (a new server on the module's socket),
makes something go wrong during or between calls, and ends with a working call from
every profile and nothing left behind (``scripts.lab.leftovers``): no tmux client
but each MCP server's own control client, no child process of an MCP server that is
not such a client, no tmux process of the socket that nobody accounts for.

The MCP servers (one per profile, the python and the swift one) live through the
whole module: surviving the faults of one case and serving the next is part of
what is tested. Each wait case runs for the python profile (``wait_for_text``) and
the swift one (``capture_since`` with ``waitMs``). A waited pane that is killed, its
window, session or server going: ``tests/tmux/test_waits_end_when_targets_go.py`` covers
every wait; here one case checks that nothing is left behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import mcp.types as types
import pytest

from scripts.lab.client import COMMAND, Client, error_text, open_client
from scripts.lab.leftovers import leftovers
from scripts.lab.processes import alive, mcp_servers, parent_of
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.tmux import start_again
from tests.helpers.waiting import eventually

pytestmark = pytest.mark.anyio

PROMPTLY = 5.0  # seconds: far below every wait's own timeout, generous for a loaded machine
HANG = 60.0  # only there to turn a hang into a failure
INTERNAL = "failed inside the server"
PROFILES = ("python", "swift")


# --- the lab -----------------------------------------------------------------------------


@dataclass
class Lab:
    tmux: TmuxServer
    clients: dict[str, Client]  # profile -> its MCP client
    pids: dict[str, int]  # profile -> its MCP server's pid


@pytest.fixture(scope="module")
async def lab(shared: TmuxServer) -> AsyncIterator[Lab]:
    async with (
        open_client(shared.server_env(), "python") as python,
        open_client(shared.server_env(), "swift") as swift,
    ):
        pids = {profile: pid for pid, profile in mcp_servers(shared.name).items()}
        assert sorted(pids) == sorted(PROFILES), pids
        yield Lab(shared, {"python": python, "swift": swift}, pids)


@pytest.fixture
async def fresh(lab: Lab) -> Lab:
    """The lab on a new tmux server: the old one is killed, one starts on its socket.

    Each MCP server's control client attaches again at once, to ``main`` (the only
    session yet): so a client attached to a session a case makes is a wait's.
    """
    lab.tmux.tmux("kill-server", check=False)
    await anyio.to_thread.run_sync(start_again, lab.tmux, "main")
    for client in lab.clients.values():
        await client.ok("list_sessions")
    return lab


async def ends_clean(lab: Lab, extra_owners: tuple[int, ...] = ()) -> None:
    """A working call from every profile, then nothing left behind."""
    for client in lab.clients.values():
        await client.ok("list_panes")
    owners = (*lab.pids.values(), *extra_owners)
    problems: list[str] = []

    def clean() -> bool:
        problems[:] = leftovers(lab.tmux, owners)
        return not problems

    with anyio.move_on_after(PROMPTLY * 2):
        while not await anyio.to_thread.run_sync(clean):
            await anyio.sleep(0.02)
    assert problems == []


def attached(server: TmuxServer) -> dict[int, str]:
    """The clients attached to ``server``: pid -> session name."""
    rows = server.lines("list-clients", "-F", "#{client_pid} #{session_name}")
    return {int(pid): name for pid, name in (row.split(" ", 1) for row in rows)}


async def wait_arguments(
    profile: str, client: Client, pane: str, tmux: TmuxServer, *, cursor: bool = True
) -> tuple[str, dict[str, Any]]:
    """The profile's wait on ``pane`` (of ``tmux``) with a long timeout: (tool, arguments);
    swift's continues from a cursor ``client`` opens unless not ``cursor``."""
    if profile == "python":
        return "wait_for_text", {"pane_id": pane, "patterns": ["FAULT-DONE"], "timeout": 30}
    if not cursor:
        return "capture_since", {"paneId": pane, "waitMs": 10_000}
    # A line above the cursor first: a cursor on a pane with no rows above it has its rows
    # counted by an output client that outlives the wait (tests/e2e/test_live_cursor_counts.py).
    tmux.tmux("send-keys", "-t", pane, "echo ready", "Enter")
    await eventually(lambda: "ready" in tmux.lines("capture-pane", "-p", "-t", pane), "ready")
    first = await client.ok("capture_since", {"paneId": pane})
    return "capture_since", {"paneId": pane, "cursor": first["cursor"], "waitMs": 10_000}


@dataclass
class Waiting:
    """A wait running in the background: its answer and when it came."""

    answer: types.CallToolResult | None = None
    answered_at: float = 0.0


async def start_wait(
    group: anyio.abc.TaskGroup,
    lab: Lab,
    profile: str,
    session: str,
    pane: str,
    scope: anyio.CancelScope | None = None,
) -> Waiting:
    """Start the profile's wait on ``pane``; return once it waits (its output client is
    attached to ``session``, where nothing else attaches)."""
    client = lab.clients[profile]
    tool, arguments = await wait_arguments(profile, client, pane, lab.tmux)
    waiting = Waiting()

    async def wait() -> None:
        with scope or anyio.CancelScope():
            waiting.answer = await client.session.call_tool(tool, arguments)
            waiting.answered_at = anyio.current_time()

    group.start_soon(wait)
    await eventually(lambda: session in attached(lab.tmux).values(), "the wait")
    return waiting


def clear_error(result: types.CallToolResult | None, *expected: str) -> str:
    """An isError answer, not an internal error, naming each of ``expected``."""
    assert result is not None, "no answer"
    message = error_text(result)
    assert result.is_error, f"expected an error, got {message[:300]}"
    assert INTERNAL not in message, message
    for text in expected:
        assert text in message, (text, message)
    return message


# --- tmux killed during a wait, then restarted -------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
async def test_tmux_killed_during_a_wait_errors_at_once_and_the_next_call_works(
    fresh: Lab, profile: str
) -> None:
    made = fresh.tmux.new_session()
    session, pane = made.name, made.pane
    with anyio.fail_after(HANG):
        async with anyio.create_task_group() as group:
            waiting = await start_wait(group, fresh, profile, session, pane)
            killed_at = anyio.current_time()
            await anyio.to_thread.run_sync(fresh.tmux.tmux, "kill-server")
    clear_error(waiting.answer, fresh.tmux.socket_path, "server")
    assert waiting.answered_at - killed_at < PROMPTLY
    # Before a new server starts, a call says that none runs; then calls work again.
    clear_error(await fresh.clients[profile].call("list_sessions"), fresh.tmux.socket_path)
    await anyio.to_thread.run_sync(start_again, fresh.tmux, "main")
    await ends_clean(fresh)


# --- the control-mode clients killed -----------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_killed_control_client_is_replaced_and_the_calls_go_on(
    fresh: Lab, profile: str
) -> None:
    client = fresh.clients[profile]
    await client.ok("list_sessions")  # its control client is attached
    ours = [pid for pid in attached(fresh.tmux) if parent_of(pid) == fresh.pids[profile]]
    assert len(ours) == 1, ours
    os.kill(ours[0], signal.SIGKILL)
    # The next call works or errors clearly; the one after works.
    after = await client.call("list_panes")
    if after.is_error:
        clear_error(after, fresh.tmux.socket_path)
    await client.ok("list_panes")
    await eventually(lambda: not alive(ours[0]), "the killed client to be reaped")
    await ends_clean(fresh)


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_wait_whose_output_client_is_killed_still_sees_the_pane_print(
    fresh: Lab, profile: str
) -> None:
    made = fresh.tmux.new_session()
    session, pane = made.name, made.pane
    with anyio.fail_after(HANG):
        async with anyio.create_task_group() as group:
            waiting = await start_wait(group, fresh, profile, session, pane)
            (watcher,) = [pid for pid, name in attached(fresh.tmux).items() if name == session]
            os.kill(watcher, signal.SIGKILL)
            # The typed line does not hold the text it prints: only the output matches.
            await anyio.to_thread.run_sync(fresh.tmux.tmux, "send-keys", "-t", pane, "-l", "--",
                                           'echo FAULT-""DONE')  # fmt: skip
            fresh.tmux.tmux("send-keys", "-t", pane, "Enter")
    assert waiting.answer is not None
    assert not waiting.answer.is_error, error_text(waiting.answer)
    found = waiting.answer.structured_content
    assert found is not None
    if profile == "python":
        assert found["outcome"] == "matched"
        assert found["matched_lines"] == ["FAULT-DONE"]
    else:
        # The rows completed since the cursor: the typed line, and its output if it came.
        assert found["lines"] and 'echo FAULT-""DONE' in found["lines"][0], found["lines"]
    await ends_clean(fresh)


# --- the waited pane killed --------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_wait_whose_pane_is_killed_leaves_nothing_behind(fresh: Lab, profile: str) -> None:
    made = fresh.tmux.new_session()
    session, pane = made.name, made.pane
    fresh.tmux.tmux("split-window", "-d", "-t", pane)  # the session outlives the pane
    with anyio.fail_after(HANG):
        async with anyio.create_task_group() as group:
            waiting = await start_wait(group, fresh, profile, session, pane)
            await anyio.to_thread.run_sync(fresh.tmux.tmux, "kill-pane", "-t", pane)
    clear_error(waiting.answer, pane, fresh.tmux.socket_path)
    await ends_clean(fresh)


# --- cancellation ------------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_cancelled_wait_leaves_no_output_client_and_the_server_answers(
    fresh: Lab, profile: str
) -> None:
    made = fresh.tmux.new_session()
    session, pane = made.name, made.pane
    scope = anyio.CancelScope()
    with anyio.fail_after(HANG):
        async with anyio.create_task_group() as group:
            waiting = await start_wait(group, fresh, profile, session, pane, scope)
            # The SDK sends notifications/cancelled for a request whose caller gives up.
            scope.cancel()
    assert waiting.answer is None
    await eventually(
        lambda: session not in attached(fresh.tmux).values(),
        "the output client to leave",
        deadline=PROMPTLY,
    )
    await ends_clean(fresh)


# --- stdin EOF in the middle of a wait ---------------------------------------------------


def rpc(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


@pytest.mark.parametrize("profile", PROFILES)
async def test_stdin_eof_during_a_wait_ends_the_server_and_leaves_nothing(
    fresh: Lab, profile: str
) -> None:
    made = fresh.tmux.new_session()
    session, pane = made.name, made.pane
    process = subprocess.Popen(
        [COMMAND, "--profile", profile],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=fresh.tmux.server_env(),
    )
    try:
        assert process.stdin is not None and process.stdout is not None
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
        hello["clientInfo"] = {"name": "faults", "version": "0"}
        process.stdin.write(
            rpc({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
        )
        process.stdin.flush()
        answer = await anyio.to_thread.run_sync(process.stdout.readline)
        assert json.loads(answer)["id"] == 1
        # No cursor: this process cannot read another one's.
        client = fresh.clients[profile]
        tool, arguments = await wait_arguments(profile, client, pane, fresh.tmux, cursor=False)
        process.stdin.write(rpc({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        call = {"name": tool, "arguments": arguments}
        process.stdin.write(
            rpc({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
        )
        process.stdin.flush()
        await eventually(lambda: session in attached(fresh.tmux).values(), "the wait")
        process.stdin.close()
        with anyio.fail_after(PROMPTLY):
            status = await anyio.to_thread.run_sync(process.wait)
        assert status == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    await ends_clean(fresh)


# --- the socket file removed while serving -----------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_removed_socket_file_is_named_and_nothing_hangs(fresh: Lab, profile: str) -> None:
    made = fresh.tmux.new_session()
    session, pane = made.name, made.pane
    client = fresh.clients[profile]
    await client.ok("list_panes")
    socket = Path(fresh.tmux.socket_path)
    server_pid = int(fresh.tmux.tmux("display-message", "-p", "#{pid}").strip())
    tool, arguments = await wait_arguments(profile, client, pane, fresh.tmux)
    socket.unlink()
    with anyio.fail_after(PROMPTLY * 2):
        # A read over the control client already attached may still be answered...
        listed = await client.call("list_panes")
        if listed.is_error:
            clear_error(listed, fresh.tmux.socket_path)
        # ...but a wait needs a new client, and says why it cannot have one.
        clear_error(await client.call(tool, arguments), fresh.tmux.socket_path, "socket")
    # tmux makes its socket again on SIGUSR1; then everything works.
    os.kill(server_pid, signal.SIGUSR1)
    await eventually(socket.exists, "the socket to come back", deadline=PROMPTLY)
    assert session in fresh.tmux.lines("list-sessions", "-F", "#{session_name}")
    await ends_clean(fresh)


# --- many calls at once while a pane prints a lot ----------------------------------------


def reads(profile: str, pane: str) -> list[tuple[str, dict[str, Any]]]:
    """64 reads: list panes, capture a pane, snapshot it, search every pane, 16 of each."""
    key = "pane_id" if profile == "python" else "paneId"
    kinds = [
        ("list_panes", {}),
        ("capture_pane", {key: pane}),
        ("snapshot_pane", {key: pane}),
        ("search_panes", {"pattern": "4999"}),
    ]
    return kinds * 16


@pytest.mark.parametrize("profile", PROFILES)
async def test_64_concurrent_reads_while_a_pane_prints_50000_lines_are_all_answered(
    fresh: Lab, profile: str
) -> None:
    client = fresh.clients[profile]
    pane = fresh.tmux.tmux(
        "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:",
        "seq 50000; echo printed-all; exec cat",
    ).strip()  # fmt: skip
    answers: list[tuple[str, types.CallToolResult]] = []

    async def one(tool: str, arguments: dict[str, Any]) -> None:
        answers.append((tool, await client.call(tool, arguments)))

    with anyio.fail_after(HANG):
        async with anyio.create_task_group() as group:
            for tool, arguments in reads(profile, pane):
                group.start_soon(one, tool, arguments)
    assert len(answers) == 64
    failed = [(tool, error_text(result)[:200]) for tool, result in answers if result.is_error]
    assert failed == []
    await eventually(
        lambda: "printed-all" in fresh.tmux.tmux("capture-pane", "-p", "-t", pane),
        "the pane to finish printing",
    )
    await ends_clean(fresh)
