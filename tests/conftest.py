from __future__ import annotations

import functools
import inspect
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Generator, Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

from scripts.lab.client import Client, open_client
from scripts.lab.overssh import remote_env
from scripts.lab.sshd import SshServer
from scripts.lab.tmuxserver import TmuxServer

# --- the e2e marker ---------------------------------------------------------------------------
# `pytest -m "not e2e"` must leave out every test that starts the server as a process. Every
# process the tests start goes through subprocess.Popen (asyncio's subprocesses too), so a
# wrapper there sees each start of the command, and a test that starts it unmarked fails.

SERVER_COMMAND = str(Path(sys.executable).parent / "tmux-contract-mcp")
_current: list[pytest.Item] = []
_unmarked: dict[str, list[str]] = {}


def starts_the_server(args: Any) -> bool:
    """Whether a Popen argument list runs the command (directly, as a module, or in a shell)."""
    argv = [args] if isinstance(args, str | bytes | os.PathLike) else list(args)
    words = [os.fsdecode(arg) for arg in argv]
    if words and os.path.basename(words[0]) == "tmux-contract-mcp":
        return True
    return any(SERVER_COMMAND in word for word in words) or _runs_module(words)


def _runs_module(words: Sequence[str]) -> bool:
    for at, word in enumerate(words):
        if word == "-mtmux_contract_mcp" or (
            word == "-m" and words[at + 1 : at + 2] == ["tmux_contract_mcp"]
        ):
            return True
    return False


def pytest_configure(config: pytest.Config) -> None:
    original = subprocess.Popen.__init__

    def watched(self: subprocess.Popen[Any], args: Any, *rest: Any, **options: Any) -> None:
        item = _current[-1] if _current else None
        if item is not None and item.get_closest_marker("e2e") is None and starts_the_server(args):
            _unmarked.setdefault(item.nodeid, []).append(repr(args)[:200])
        original(self, args, *rest, **options)

    subprocess.Popen.__init__ = watched  # type: ignore[method-assign]
    config.add_cleanup(lambda: setattr(subprocess.Popen, "__init__", original))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    _current.append(item)
    try:
        return (yield)
    finally:
        _current.pop()


@pytest.fixture(autouse=True)
def server_starts_are_marked_e2e(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    starts = _unmarked.pop(request.node.nodeid, None)
    if starts:
        pytest.fail(
            f"{request.node.nodeid} starts the server but is not marked e2e: {starts[0]}",
            pytrace=False,
        )


# --- timeouts ---------------------------------------------------------------------------------
# pytest-timeout's signal method (pyproject.toml) fails a test that runs past its timeout by
# raising from a SIGALRM handler. In an async test that exception leaves the event loop mid-step:
# anyio's runner, shared by a module, is still running the hung test, so every later async test
# of the module and its async fixtures' teardown hang in turn. So an async test is also given a
# deadline inside its event loop, a little before the alarm: it is cancelled where it awaits
# (the traceback shows where), its fixtures are torn down and the module goes on. The alarm
# stays for what cancellation cannot reach: a fixture, a sync test, a loop blocked in a call.

DEADLINE = pytest.StashKey[tuple[float, float]]()  # (the timeout, when it runs out)


@pytest.hookimpl(tryfirst=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> None:
    """Called as pytest-timeout arms the alarm for a test (setup, call and teardown)."""
    item.stash[DEADLINE] = (settings.timeout, time.monotonic() + settings.timeout)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Generator[None, object, object]:
    test = pyfuncitem.obj
    timed = pyfuncitem.stash.get(DEADLINE, None)
    if timed is None or "anyio_backend" not in pyfuncitem.funcargs:
        return (yield)
    if not inspect.iscoroutinefunction(test):
        return (yield)
    timeout, runs_out = timed
    margin = min(10.0, timeout / 3)  # time to report the cancelled test and end its fixtures

    @functools.wraps(test)
    async def within_the_timeout(**kwargs: Any) -> Any:
        try:
            with anyio.fail_after(max(runs_out - margin - time.monotonic(), 0)) as scope:
                return await test(**kwargs)
        except TimeoutError:
            if not scope.cancelled_caught:
                raise  # the test's own
            pytest.fail(f"Timeout (>{timeout:g}s) from pytest-timeout: cancelled where it awaited")

    pyfuncitem.obj = within_the_timeout
    try:
        return (yield)
    finally:
        pyfuncitem.obj = test


# --- tmux servers -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """Module scope, so module-scoped async fixtures (a shared MCP client) can use it."""
    return "asyncio"


@pytest.fixture
def tmux() -> Iterator[TmuxServer]:
    server = TmuxServer.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture(scope="module")
def shared() -> Iterator[TmuxServer]:
    """One tmux server for a whole module, for tests that each make their own panes."""
    server = TmuxServer.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def other_tmux(tmux: TmuxServer) -> Iterator[TmuxServer]:
    """A second server in the same TMUX_TMPDIR: its ids collide with the first one's."""
    server = TmuxServer.start(beside=tmux)
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture(scope="module")
def sshd() -> Iterator[SshServer]:
    """One private OpenSSH server on 127.0.0.1 for a whole module (scripts/lab/sshd.py)."""
    server = SshServer.start()
    try:
        yield server
    finally:
        server.kill()


ServerEnv = Callable[..., dict[str, str]]


@pytest.fixture(scope="module", params=["local", "ssh"])
def shared_env(request: pytest.FixtureRequest, shared: TmuxServer) -> ServerEnv:
    """How a server under test reaches the module's shared server: directly, or with
    ``--ssh`` through the lab sshd; a module whose clients take this runs each test both ways.
    Called with extra variables, like ``TmuxServer.server_env``."""
    if request.param == "local":
        return shared.server_env
    return functools.partial(remote_env, shared, request.getfixturevalue("sshd"))


@pytest.fixture(scope="module")
async def client(shared: TmuxServer) -> AsyncIterator[Client]:
    """One python-profile MCP client for a whole module, on the module's shared tmux server."""
    async with open_client(shared.server_env(), "python") as opened:
        yield opened


# Every toolset of the rust and swift families, teardown included (off by default).
ALL_TOOLSETS = "inspect,manage,execute,teardown"


@pytest.fixture(scope="module")
async def rust_client(shared: TmuxServer) -> AsyncIterator[Client]:
    """One rust-profile MCP client serving every toolset, for a whole module, on the
    module's shared tmux server."""
    async with open_client(shared.server_env(LIBTMUX_TOOLSETS=ALL_TOOLSETS), "rust") as opened:
        yield opened


@pytest.fixture(scope="module")
async def swift_client(shared: TmuxServer) -> AsyncIterator[Client]:
    """One swift-profile MCP client serving every toolset, for a whole module, on the
    module's shared tmux server (waits capped at 1 s by LIBTMUX_MCP_WAIT_MAX_SECONDS)."""
    env = shared.server_env(LIBTMUX_TOOLSETS=ALL_TOOLSETS, LIBTMUX_MCP_WAIT_MAX_SECONDS="1")
    async with open_client(env, "swift") as opened:
        yield opened


@pytest.fixture
def clients(client: Client, rust_client: Client) -> dict[str, Client]:
    """The module's python and rust clients, by profile."""
    return {"python": client, "rust": rust_client}
