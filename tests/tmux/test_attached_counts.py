"""Attached counts leave this server's own tmux clients out, in user formats too.

tmux counts every attached client, the server's control client included, in
``session_attached`` and its kin. display_message (python) and get_tmux_variables
(swift) expand such a variable with this process's clients detached, so only
other clients count: here a control-mode client the test starts itself stands for
a user. The one exception is the output client of a wait still in progress.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import anyio
import pytest

from scripts.lab.client import Client, open_in_process
from scripts.lab.tmuxserver import TMUX, TmuxServer
from tests.helpers.tmux import output_clients
from tests.helpers.waiting import quiet_cat
from tmux_contract_mcp.handlers.tmux.transport.formats import counts_clients

pytestmark = [pytest.mark.anyio, pytest.mark.transports("control", "subprocess")]

DEADLINE = 20.0
COUNTS = (
    "#{session_attached}|#{session_many_attached}|#{window_active_clients}"
    "|#{session_attached_list}|#{window_active_clients_list}"
)


def client_names(server: TmuxServer) -> list[str]:
    return server.lines("list-clients", "-F", "#{client_name}")


@contextmanager
def someone_attached(server: TmuxServer, session: str) -> Iterator[str]:
    """A client of someone else (not this MCP server's) attached to ``session``: its name."""
    before = set(client_names(server))
    env = {**os.environ, **server.env}
    env.pop("TMUX", None)
    viewer = subprocess.Popen(
        [TMUX, "-L", server.name, "-C", "attach-session", "-t", session],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        name = ""
        deadline = time.monotonic() + DEADLINE
        while not name and time.monotonic() < deadline:
            new = set(client_names(server)) - before
            name = new.pop() if new else ""
            time.sleep(0.02)
        assert name, "the other client never attached"
        yield name
    finally:
        assert viewer.stdin is not None
        viewer.stdin.close()
        viewer.wait(timeout=10)


@pytest.mark.parametrize(
    "name",
    [
        "session_attached",
        "session_attached_list",
        "session_many_attached",
        "session_group_attached",
        "session_group_attached_list",
        "session_group_many_attached",
        "window_active_clients",
        "window_active_clients_list",
    ],
)
def test_every_client_counting_variable_of_tmux_is_recognised(name: str) -> None:
    assert counts_clients(f"#{{?{name},a,b}}") and counts_clients(name)


@pytest.mark.parametrize(
    "text", ["#{session_last_attached}", "#{window_active_sessions}", "#{client_pid}", "attached"]
)
def test_other_variables_take_the_ordinary_path(text: str) -> None:
    assert not counts_clients(text)


async def counts(client: Client, **target: str) -> list[str]:
    result = await client.ok("display_message", {"format_string": COUNTS, **target})
    return str(result["result"]).split("|")


async def test_display_message_counts_no_client_when_only_this_server_is_attached(
    shared: TmuxServer, python_client: Client
) -> None:
    await python_client.ok("list_panes")  # the control client (over that transport) is up
    pane = shared.active_pane()
    assert await counts(python_client, pane_id=pane) == ["0", "0", "0", "", ""]
    # Once more, now that the next call has attached the control client again.
    await python_client.ok("list_sessions")
    assert await counts(python_client, pane_id=pane) == ["0", "0", "0", "", ""]


async def test_display_message_counts_a_client_attached_by_someone_else(
    shared: TmuxServer, python_client: Client
) -> None:
    await python_client.ok("list_panes")
    pane = shared.active_pane()
    with someone_attached(shared, "main") as name:
        assert await counts(python_client, pane_id=pane) == ["1", "0", "1", name, name]
        listed = await python_client.ok("list_sessions", {"filters": {"session_name": "main"}})
        assert listed["result"][0]["session_attached"] == "1"
    assert await counts(python_client, pane_id=pane) == ["0", "0", "0", "", ""]


async def test_a_loop_over_sessions_counts_only_other_clients(
    shared: TmuxServer, python_client: Client
) -> None:
    shared.tmux("new-session", "-d", "-s", "loop-a")
    try:
        await python_client.ok("list_panes")
        fmt = "#{S:#{session_name}=#{session_attached} }"
        with someone_attached(shared, "loop-a"):
            result = await python_client.ok("display_message", {"format_string": fmt})
        assert result["result"].split() == ["loop-a=1", "main=0"]
    finally:
        shared.tmux("kill-session", "-t", "loop-a")


async def test_calls_in_flight_finish_while_a_count_detaches_the_control_client(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = await quiet_cat(shared)
    answers: list[list[str]] = []

    async def count() -> None:
        answers.append(await counts(python_client, pane_id=pane))

    async def other(n: int) -> None:
        await python_client.ok("send_keys", {"pane_id": pane, "keys": f"k{n}", "enter": True})
        await python_client.ok("get_pane_info", {"pane_id": pane})

    with anyio.fail_after(DEADLINE):
        async with anyio.create_task_group() as group:
            for n in range(12):
                group.start_soon(other, n)
                if n % 4 == 0:
                    group.start_soon(count)
    assert answers == [["0", "0", "0", "", ""]] * 3
    rows = shared.tmux("capture-pane", "-p", "-t", pane).split()
    assert sorted(r for r in rows if r.startswith("k")) == sorted(f"k{n}" for n in range(12))


async def test_a_wait_in_progress_is_counted_by_its_own_output_client(
    shared: TmuxServer, python_client: Client
) -> None:
    """The exception docs/development.md states: a wait's output client is attached while it waits."""
    pane = await quiet_cat(shared)
    assert not output_clients(shared)
    async with anyio.create_task_group() as group:
        arguments = {"pane_id": pane, "patterns": ["never-printed"], "timeout": 3}
        group.start_soon(python_client.ok, "wait_for_text", arguments)
        with anyio.fail_after(DEADLINE):
            while not output_clients(shared):
                await anyio.sleep(0.02)
        assert (await counts(python_client, pane_id=pane))[0] == "1"
    assert (await counts(python_client, pane_id=pane))[0] == "0"


@pytest.mark.parametrize("transport", ["control", "subprocess"])
async def test_swift_group_counts_leave_this_servers_clients_out(
    shared: TmuxServer, transport: str
) -> None:
    shared.tmux("new-session", "-d", "-t", "main", "-s", "grouped")
    names = ["session_group_attached", "session_group_many_attached"]
    try:
        env = shared.server_env(TMUX_CONTRACT_MCP_TRANSPORT=transport)
        async with open_in_process(env, "swift") as swift:
            await swift.ok("list_sessions")
            pane = shared.active_pane()
            answer = await swift.ok("get_tmux_variables", {"names": names, "paneId": pane})
            assert answer["values"] == {names[0]: "0", names[1]: "0"}
            with someone_attached(shared, "grouped"):
                answer = await swift.ok("get_tmux_variables", {"names": names, "paneId": pane})
            assert answer["values"] == {names[0]: "1", names[1]: "0"}
    finally:
        shared.tmux("kill-session", "-t", "grouped")


async def test_during_a_swift_wait_only_the_group_counts_see_its_output_client(
    shared: TmuxServer,
) -> None:
    """Swift recomputes session and window counts without any client of this process;
    the session_group_ ones come from tmux, which counts a wait's output client."""
    shared.tmux("new-session", "-d", "-t", "main", "-s", "grouped-wait")
    names = ["session_group_attached", "session_attached", "window_active_clients"]
    try:
        async with open_in_process(shared.server_env(), "swift") as swift:
            pane = shared.active_pane()
            first = await swift.ok("capture_since", {"paneId": pane})
            arguments = {"paneId": pane, "cursor": first["cursor"], "waitMs": 3000}
            async with anyio.create_task_group() as group:
                group.start_soon(swift.ok, "capture_since", arguments)
                # A cursor's row counter may hold (or hand over) the session's output client
                # as the wait starts: read until the wait's client is attached.
                with anyio.fail_after(DEADLINE):
                    while True:
                        answer = await swift.ok(
                            "get_tmux_variables", {"names": names, "paneId": pane}
                        )
                        if output_clients(shared) and answer["values"][names[0]] == "1":
                            break
                        await anyio.sleep(0.02)
            assert answer["values"] == {names[0]: "1", names[1]: "0", names[2]: "0"}
    finally:
        shared.tmux("kill-session", "-t", "grouped-wait")
