"""Many clients on one HTTP server: each session is its own, sessions are bounded, a client
that vanishes mid-wait cancels its wait, and SIGTERM leaves nothing behind.

tmux itself is shared, as it is; what one client asks for (a cancellation, a cursor, the
server's log) never touches another's.
"""

from __future__ import annotations

import math
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import mcp.types as types
import pytest
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.client.client import Client as SdkClient
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from scripts.lab import processes
from scripts.lab.client import Client
from scripts.lab.httpserver import HttpServer, open_http_client, raw_client
from scripts.lab.leftovers import leftovers
from scripts.lab.tmuxserver import TmuxServer
from scripts.lab.updates import Updates
from tests.helpers.http import INITIALIZE, authorized
from tests.helpers.tmux import tmux_clients, type_line
from tests.helpers.waiting import eventually

pytestmark = pytest.mark.anyio

MODES = ("auto", "legacy")
DEADLINE = 40.0


@pytest.fixture(scope="module")
def server(shared: TmuxServer) -> Iterator[HttpServer]:
    with HttpServer.running(shared.server_env(), "python") as running:
        yield running


def session_of_cat(tmux: TmuxServer) -> tuple[str, str]:
    """A 100x20 session whose pane runs cat: (its name, its pane)."""
    made = tmux.new_session(None, "sh", "-c", "stty -echo; exec cat", width=100, height=20)
    return made.name, made.pane


def shows(tmux: TmuxServer, pane: str, line: str) -> bool:
    """Whether ``pane`` holds ``line`` (typed keys reach the screen a moment later)."""
    return line in tmux.tmux("capture-pane", "-p", "-t", pane).splitlines()


def waiting(tmux: TmuxServer, session: str) -> bool:
    """Whether a wait's output client is attached to ``session`` (no one else attaches there)."""
    return session in {name for _, name in tmux_clients(tmux)}


# --- isolation -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_one_clients_cancellation_never_touches_anothers_wait(
    server: HttpServer, shared: TmuxServer, mode: str
) -> None:
    """Both clients' waits are their Nth request, so they carry the same JSON-RPC id."""
    first_session, first_pane = session_of_cat(shared)
    second_session, second_pane = session_of_cat(shared)
    async with (
        open_http_client(server, "python", mode) as first,
        open_http_client(server, "python", mode) as second,
    ):
        await first.ok("list_sessions")
        await second.ok("list_sessions")
        cancelled = anyio.CancelScope()
        answered: dict[str, types.CallToolResult] = {}

        async def wait(name: str, client: Client, pane: str, scope: anyio.CancelScope) -> None:
            with scope:
                arguments = {"pane_id": pane, "patterns": ["marker-2"], "timeout": 30}
                answered[name] = await client.session.call_tool("wait_for_text", arguments)

        with anyio.fail_after(DEADLINE):
            async with anyio.create_task_group() as group:
                group.start_soon(wait, "first", first, first_pane, cancelled)
                group.start_soon(wait, "second", second, second_pane, anyio.CancelScope())
                await eventually(lambda: waiting(shared, first_session), "the first wait")
                await eventually(lambda: waiting(shared, second_session), "the second wait")
                cancelled.cancel()
                await eventually(
                    lambda: not waiting(shared, first_session), "the cancelled wait to end"
                )
                assert waiting(shared, second_session), "the other client's wait was touched"
                await anyio.to_thread.run_sync(type_line, shared, second_pane, "marker-2")
    assert "first" not in answered
    result = answered["second"]
    assert not result.is_error and result.structured_content is not None
    assert result.structured_content["outcome"] == "matched"


async def test_a_clients_log_lines_are_its_own(server: HttpServer) -> None:
    """Both ask for the log; each gets the lines its own calls make, never the other's."""
    received: dict[str, list[str]] = {"first": [], "second": []}
    streams = {name: anyio.create_memory_object_stream[str](math.inf) for name in received}

    def collector(name: str):  # type: ignore[no-untyped-def]
        async def collect(params: types.LoggingMessageNotificationParams) -> None:
            received[name].append(str(params.data))
            await streams[name][0].send(str(params.data))

        return collect

    async def own_line(client: Client, lines: MemoryObjectReceiveStream[str], marker: str) -> None:
        """Call badly until this client's own line arrives (its GET stream opens a moment after
        it initialized)."""
        with anyio.fail_after(DEADLINE):
            while True:
                await client.call("list_sessions", {marker: 1})
                with anyio.move_on_after(0.5):
                    while marker not in await lines.receive():
                        pass
                    return

    async with (
        open_http_client(server, "python", "legacy", logging_callback=collector("first")) as first,
        open_http_client(
            server, "python", "legacy", logging_callback=collector("second")
        ) as second,
    ):
        with warnings.catch_warnings():  # deprecated from 2026-07-28 on; this is 2025-11-25
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await first.session.set_logging_level("info")
            await second.session.set_logging_level("info")
        await own_line(first, streams["first"][1], "first_marker")
        await own_line(second, streams["second"][1], "second_marker")
        await first.ok("list_sessions")  # a last round trip: anything queued has been sent
        await anyio.sleep(0.5)
    assert not any("second_marker" in line for line in received["first"]), received["first"]
    assert not any("first_marker" in line for line in received["second"]), received["second"]


async def test_one_clients_cursor_never_moves_anothers(
    server: HttpServer, shared: TmuxServer
) -> None:
    _, pane = session_of_cat(shared)
    async with (
        open_http_client(server, "python", "legacy") as first,
        open_http_client(server, "python", "auto") as second,
    ):
        first_cursor = (await first.ok("capture_since", {"pane_id": pane}))["cursor"]
        second_cursor = (await second.ok("capture_since", {"pane_id": pane}))["cursor"]
        await anyio.to_thread.run_sync(type_line, shared, pane, "line-one")
        await eventually(lambda: shows(shared, pane, "line-one"), "line-one on the pane")
        read = await first.ok("capture_since", {"pane_id": pane, "cursor": first_cursor})
        assert "line-one" in read["lines"]
        await anyio.to_thread.run_sync(type_line, shared, pane, "line-two")
        await eventually(lambda: shows(shared, pane, "line-two"), "line-two on the pane")
        read = await second.ok("capture_since", {"pane_id": pane, "cursor": second_cursor})
    assert [line for line in read["lines"] if line] == ["line-one", "line-two"]


# --- bounds on sessions ----------------------------------------------------------------------


def mcp_error(exc: BaseException) -> MCPError:
    """The protocol error inside the exception groups the SDK's task groups wrap it in."""
    if isinstance(exc, MCPError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            try:
                return mcp_error(inner)
            except LookupError:
                continue
    raise LookupError(f"no protocol error in {exc!r}") from exc


async def test_an_idle_session_expires(shared: TmuxServer) -> None:
    env = shared.server_env(TMUX_CONTRACT_MCP_HTTP_IDLE_SECONDS="1")
    with HttpServer.running(env, "python") as server:
        async with raw_client(server) as web:
            opened = await web.post("/mcp", json=INITIALIZE, headers=authorized(server))
            session = opened.headers["mcp-session-id"]
            ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
            in_session = authorized(server, **{"Mcp-Session-Id": session})
            assert (await web.post("/mcp", json=ping, headers=in_session)).status_code == 200
            await anyio.sleep(2.5)
            expired = await web.post("/mcp", json=ping, headers=in_session)
    assert expired.status_code == 404


async def test_a_hundred_clients_at_once_are_served_up_to_the_session_limit(
    shared: TmuxServer,
) -> None:
    """A hundred clients of each era at once: every 2026-07-28 request is answered (it opens
    no session); of the handshake sessions, the limit's worth open, the others are told
    503 and nothing breaks; once they close, new ones open again."""
    env = shared.server_env(TMUX_CONTRACT_MCP_HTTP_MAX_SESSIONS="20")
    outcomes: dict[str, list[str]] = {"auto": [], "legacy": []}
    release = anyio.Event()
    with HttpServer.running(env, "python") as server:

        async def one(mode: str) -> None:
            try:
                async with open_http_client(server, "python", mode) as client:
                    await client.ok("list_sessions")
                    outcomes[mode].append("served")
                    await release.wait()  # hold the session while the others try
            except Exception as exc:  # the SDK wraps it in exception groups
                outcomes[mode].append(mcp_error(exc).error.message)

        with anyio.fail_after(120):
            async with anyio.create_task_group() as group:
                for _ in range(100):
                    group.start_soon(one, "auto")
                for _ in range(100):
                    group.start_soon(one, "legacy")
                while len(outcomes["auto"]) + len(outcomes["legacy"]) < 200:
                    await anyio.sleep(0.1)
                release.set()
        assert outcomes["auto"] == ["served"] * 100
        assert outcomes["legacy"].count("served") == 20
        assert set(outcomes["legacy"]) == {"served", "Too many open sessions"}
        async with open_http_client(server, "python", "legacy") as again:
            await again.ok("list_sessions")
        assert server.process.poll() is None


# --- a vanished client, a stopped server -----------------------------------------------------

WAITING_CLIENT = textwrap.dedent(
    """
    import sys, anyio
    from scripts.lab.httpserver import Endpoint, open_http_client

    async def main(url, token, mode, pane):
        async with open_http_client(Endpoint(url, token), "python", mode) as client:
            print("calling", flush=True)
            await client.session.call_tool(
                "wait_for_text", {"pane_id": pane, "patterns": ["never"], "timeout": 60}
            )

    anyio.run(main, *sys.argv[1:])
    """
)


@pytest.mark.parametrize("mode", MODES)
async def test_a_client_killed_mid_wait_cancels_the_wait(
    server: HttpServer, shared: TmuxServer, mode: str
) -> None:
    session, pane = session_of_cat(shared)
    root = Path(__file__).resolve().parents[2]
    client = subprocess.Popen(
        [sys.executable, "-c", WAITING_CLIENT, server.url, server.token, mode, pane],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        await eventually(lambda: waiting(shared, session), "the killed client's wait", DEADLINE)
        client.kill()
        started = time.monotonic()
        await eventually(lambda: not waiting(shared, session), "the wait to be cancelled", 10)
        assert time.monotonic() - started < 10  # of the 60 s it would have waited
    finally:
        client.kill()
        client.wait()
    async with open_http_client(server, "python", mode) as after:
        await after.ok("list_sessions")


async def test_sigterm_ends_sessions_and_waits_and_leaves_nothing_in_tmux(
    shared: TmuxServer, tmp_path: Path, server: HttpServer
) -> None:
    """A second server beside the module's: the module's may keep its own client."""
    others = [server.process.pid]
    env = {**shared.server_env(), "XDG_RUNTIME_DIR": str(tmp_path)}
    stopped = HttpServer.start(env, "python", token=None)
    sessions = [session_of_cat(shared) for _ in MODES]
    failures: list[BaseException] = []
    try:

        async def wait(mode: str, pane: str) -> None:
            try:
                async with open_http_client(stopped, "python", mode) as client:
                    await client.session.call_tool(
                        "wait_for_text", {"pane_id": pane, "patterns": ["never"], "timeout": 60}
                    )
            except BaseException as exc:  # the server went away under it
                failures.append(exc)

        with anyio.fail_after(DEADLINE):
            async with anyio.create_task_group() as group:
                for mode, (_, pane) in zip(MODES, sessions, strict=True):
                    group.start_soon(wait, mode, pane)
                await eventually(
                    lambda: all(waiting(shared, name) for name, _ in sessions), "the waits"
                )
                started = time.monotonic()
                status = await anyio.to_thread.run_sync(stopped.stop)
                stopped_in = time.monotonic() - started
    finally:
        stopped.stop()
    assert status == 143
    assert stopped_in < 10, stopped_in
    assert len(failures) == len(MODES)
    assert leftovers(shared, others) == []  # no client of its own attached, no tmux process
    assert not list((tmp_path / "tmux-contract-mcp").iterdir())  # the token file went too
    assert not processes.alive(stopped.process.pid)


@pytest.mark.parametrize("signal_name", ["SIGHUP", "SIGINT"])
def test_sighup_and_sigint_stop_it_as_sigterm_does(shared: TmuxServer, signal_name: str) -> None:
    number = getattr(signal, signal_name)
    server = HttpServer.start(shared.server_env(), "python")
    try:
        server.process.send_signal(number)
        assert server.process.wait(20) == 128 + number
    finally:
        server.stop()


@pytest.mark.parametrize("mode", MODES)
async def test_a_client_keeps_its_connection_from_call_to_call(
    server: HttpServer, mode: str
) -> None:
    """A handshake-era answer is one JSON body, not an event stream the SDK client stops
    reading at its last event: that left every connection unusable, one new one per call."""
    ports: list[int] = []

    async def record(response: httpx2.Response) -> None:
        if response.request.method == "POST":
            stream = response.extensions["network_stream"]
            ports.append(stream.get_extra_info("client_addr")[1])

    hooks = {"response": [record]}
    async with (
        httpx2.AsyncClient(headers=server.headers, event_hooks=hooks) as http,
        SdkClient(streamable_http_client(server.url, http_client=http), mode=mode) as sdk,
    ):
        for _ in range(20):
            result = await sdk.session.call_tool("list_sessions", {})
            assert not result.is_error
    assert len(ports) >= 20 and len(set(ports[-20:])) <= 2, sorted(set(ports))


# --- subscriptions ----------------------------------------------------------------------------


async def subscribe(client: Client, uri: str) -> None:
    """``resources/subscribe`` (the SDK marks it deprecated: 2026-07-28 drops it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        await client.session.subscribe_resource(uri)


async def test_an_update_reaches_the_session_that_subscribed_and_no_other(
    server: HttpServer, shared: TmuxServer
) -> None:
    """Over HTTP an update is a server-to-client notification: it must reach the stream of
    the session that subscribed, and another session on the same server sees none."""
    _, pane = session_of_cat(shared)
    _, other_pane = session_of_cat(shared)
    uri, other_uri = f"tmux://panes/{pane}/content", f"tmux://panes/{other_pane}/content"
    first_updates, second_updates = Updates(), Updates()
    async with (
        open_http_client(server, "python", "legacy", message_handler=first_updates) as first,
        open_http_client(server, "python", "legacy", message_handler=second_updates) as second,
    ):
        await subscribe(first, uri)
        await subscribe(second, other_uri)
        await anyio.to_thread.run_sync(type_line, shared, pane, "for-the-first")
        await first_updates.wait_for(uri, timeout=DEADLINE)
        await anyio.to_thread.run_sync(type_line, shared, other_pane, "for-the-second")
        await second_updates.wait_for(other_uri, timeout=DEADLINE)
        await second.ok("list_sessions")  # a round trip: anything queued has been sent
        await anyio.sleep(1.0)
    assert second_updates.of(uri) == []
    assert first_updates.of(other_uri) == []
