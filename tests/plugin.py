"""The suite's shared fixtures and hooks: one pytest plugin, registered by tests/conftest.py.

What a test module needs to reach tmux and a server under test comes from here, under one
name each, so no module makes its own copy (``tests/test_suite_layout.py`` fails one that
does):

- ``tmux`` (a throwaway tmux server for one test), ``other_tmux`` (a second one beside it),
  ``shared`` (one for a whole module), ``sshd`` (a private OpenSSH server for a module);
- the session factory is each lab server's own ``new_session`` (``shared.new_session(name)``,
  ``tmux.new_session(...)``): one signature, a session returned once its program runs;
- ``python_client``, ``rust_client``, ``swift_client``: one client per profile for the whole
  module, on ``shared``, each with the variables of ``python_env``, ``rust_env`` or
  ``swift_env`` (a module overrides one of those fixtures to serve something else). Outside
  ``tests/e2e/`` the server is built in this process and reached by the SDK's in-memory
  client (``open_in_process``); under it, it is the installed command over stdio
  (``open_client``). Both are ``scripts.lab.client.Client``: ``ok``, ``error``, ``call``,
  ``read``, every result checked against its contract;
- ``transport`` and ``shared_env``: a module marked ``transports("control", "subprocess")``
  runs each test that uses a client once per transport, one marked ``reach("local", "ssh")``
  once reaching ``shared`` directly and once through the lab sshd (``--ssh``'s wiring).

The tests that start the command are the ones under ``tests/e2e/`` (its conftest.py marks
them ``e2e``); one elsewhere that starts it fails (``-m "not e2e"`` must leave out every
process start of the server). Async tests get a deadline inside their event loop just
before pytest-timeout's alarm (see "timeouts" below).
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import time
from collections.abc import AsyncIterator, Callable, Generator, Iterator, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import anyio
import pytest

from scripts.lab.client import Client, open_client, open_in_process
from scripts.lab.overssh import remote_env
from scripts.lab.sshd import SshServer
from scripts.lab.tmuxserver import TmuxServer

TESTS = Path(__file__).resolve().parent
E2E = TESTS / "e2e"

# --- the e2e marker ---------------------------------------------------------------------------
# `pytest -m "not e2e"` must leave out every test that starts the server as a process. Every
# process start in Python raises the audit event "subprocess.Popen" (asyncio's subprocesses
# too), so an audit hook sees each start of the command; a test that starts it unmarked fails
# once its teardown begins. A hook only watches: it is the interpreter's own observation point,
# where replacing Popen.__init__ was a patch to undo. It cannot be removed, so it is added
# once per process and does nothing outside a test.

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


def _watch(event: str, args: tuple[Any, ...]) -> None:
    """The audit hook: ``subprocess.Popen`` carries (executable, args, cwd, env)."""
    if event != "subprocess.Popen" or not _current:
        return
    item = _current[-1]
    if item.get_closest_marker("e2e") is None and starts_the_server(args[1]):
        _unmarked.setdefault(item.nodeid, []).append(repr(args[1])[:200])


if not getattr(sys, "_tmux_contract_mcp_watch", False):
    sys.addaudithook(_watch)
    sys._tmux_contract_mcp_watch = True  # type: ignore[attr-defined]


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
            f"{request.node.nodeid} starts the server but is not marked e2e (the tests that "
            f"start it live under tests/e2e/): {starts[0]}",
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


# --- parametrizing a module's clients -----------------------------------------------------------


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A module marked ``transports(...)`` or ``reach(...)`` runs each test whose clients
    depend on ``transport`` or ``shared_env`` once per value, the module's servers made once
    per value (module scope); a test that parametrizes the name itself keeps its own values."""
    direct = {
        name.strip()
        for mark in metafunc.definition.iter_markers("parametrize")
        for name in (mark.args[0].split(",") if isinstance(mark.args[0], str) else mark.args[0])
    }
    for marker, fixture in (("transports", "transport"), ("reach", "shared_env")):
        found = metafunc.definition.get_closest_marker(marker)
        if found is not None and fixture in metafunc.fixturenames and fixture not in direct:
            metafunc.parametrize(fixture, found.args, indirect=True, scope="module")


# --- tmux servers -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """Module scope, so module-scoped async fixtures (a shared MCP client) can use it."""
    return "asyncio"


@pytest.fixture
def tmux() -> Iterator[TmuxServer]:
    """A tmux server of this test's own (private socket and TMUX_TMPDIR), killed after it."""
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


# --- servers under test -----------------------------------------------------------------------

ServerEnv = Callable[..., dict[str, str]]

# Every toolset of the rust and swift families, teardown included (off by default).
ALL_TOOLSETS = "inspect,manage,execute,teardown"


@pytest.fixture(scope="module")
def shared_env(request: pytest.FixtureRequest, shared: TmuxServer) -> ServerEnv:
    """How a server under test reaches the module's shared server: directly, or (in a
    module marked ``reach("local", "ssh")``, once each) with ``--ssh`` through the lab sshd.
    Called with extra variables, like ``TmuxServer.server_env``."""
    if getattr(request, "param", "local") == "local":
        return shared.server_env
    return functools.partial(remote_env, shared, request.getfixturevalue("sshd"))


@pytest.fixture(scope="module")
def transport(request: pytest.FixtureRequest) -> str | None:
    """The transport the module's clients use (``TMUX_CONTRACT_MCP_TRANSPORT``): one value
    per run in a module marked ``transports(...)``, else the server's default."""
    return getattr(request, "param", None)


@pytest.fixture(scope="module")
def python_env() -> dict[str, str]:
    """The variables the module's python server gets beside those reaching tmux."""
    return {}


@pytest.fixture(scope="module")
def rust_env() -> dict[str, str]:
    """The rust server's: every toolset."""
    return {"LIBTMUX_TOOLSETS": ALL_TOOLSETS}


@pytest.fixture(scope="module")
def swift_env() -> dict[str, str]:
    """The swift server's: every toolset, waits capped at 1 s."""
    return {"LIBTMUX_TOOLSETS": ALL_TOOLSETS, "LIBTMUX_MCP_WAIT_MAX_SECONDS": "1"}


Opener = Callable[..., AbstractAsyncContextManager[Client]]


@pytest.fixture(scope="module")
def serve(request: pytest.FixtureRequest) -> Opener:
    """How this module reaches a server under test: the installed command over stdio under
    tests/e2e/, else the same server built in this process (``open_client``'s signature)."""
    return open_client if request.path.is_relative_to(E2E) else open_in_process


def _reaching(shared_env: ServerEnv, transport: str | None, env: dict[str, str]) -> dict[str, str]:
    chosen = {"TMUX_CONTRACT_MCP_TRANSPORT": transport} if transport is not None else {}
    return shared_env(**env, **chosen)


@pytest.fixture(scope="module")
async def python_client(
    serve: Opener, shared_env: ServerEnv, transport: str | None, python_env: dict[str, str]
) -> AsyncIterator[Client]:
    """One python-profile client for the whole module, on the module's shared tmux server."""
    async with serve(_reaching(shared_env, transport, python_env), "python") as opened:
        yield opened


@pytest.fixture(scope="module")
async def rust_client(
    serve: Opener, shared_env: ServerEnv, transport: str | None, rust_env: dict[str, str]
) -> AsyncIterator[Client]:
    """One rust-profile client for the whole module, on the module's shared tmux server."""
    async with serve(_reaching(shared_env, transport, rust_env), "rust") as opened:
        yield opened


@pytest.fixture(scope="module")
async def swift_client(
    serve: Opener, shared_env: ServerEnv, transport: str | None, swift_env: dict[str, str]
) -> AsyncIterator[Client]:
    """One swift-profile client for the whole module, on the module's shared tmux server."""
    async with serve(_reaching(shared_env, transport, swift_env), "swift") as opened:
        yield opened


@pytest.fixture
def clients(python_client: Client, rust_client: Client) -> dict[str, Client]:
    """The module's python and rust clients, by profile."""
    return {"python": python_client, "rust": rust_client}
