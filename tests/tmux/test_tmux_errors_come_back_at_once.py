"""Every error tmux gives comes back at once, on every transport (control, subprocess, and
both through ssh), wherever the failing command sits: first, middle or last of commands
sent together, while notifications flow, right after a window is made, inside a guard.

The hang issue 37 reported ("tmux did not answer within 10s") was no lost reply: typing
into a pane in copy mode ran copy-mode-vi's binding for a digit, ``command-prompt``, for
the control client, and tmux 3.3a makes that command wait for the prompt's answer, so
every later command of that client waited behind it. The first test shows tmux doing
that to a bare control client; the rest show the transports never let it happen
(``transport.keyguard``) and answer every failure within one round trip.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import anyio
import pytest

from scripts.lab.tmuxserver import TMUX, TmuxServer
from tests.plugin import ServerEnv
from tmux_contract_mcp.handlers.tmux.errors import CommandFailed, InAMode
from tmux_contract_mcp.handlers.tmux.objects.server import Server, Tmux
from tmux_contract_mcp.handlers.tmux.transport.conditional import if_format
from tmux_contract_mcp.handlers.tmux.transport.control import ControlClient, ControlTransport
from tmux_contract_mcp.handlers.tmux.transport.keyguard import guarded, types_keys, wrap
from tmux_contract_mcp.handlers.tmux.transport.sockets import Socket

pytestmark = [pytest.mark.anyio, pytest.mark.reach("local", "ssh")]

ONE_ROUND_TRIP = 2.0  # seconds: a round trip takes milliseconds; the hang took the 10 s timeout
OK = ("display-message", "-p", "ok")
MISSING = ("select-pane", "-t", "%999999")  # tmux: "can't find pane: %999999"


@pytest.fixture(scope="module", params=["control", "subprocess"])
async def server(request: pytest.FixtureRequest, shared_env: ServerEnv) -> AsyncIterator[Server]:
    """The module's tmux server through one transport, here or through ssh (``shared_env``)."""
    tmux = Tmux(shared_env(TMUX_CONTRACT_MCP_TRANSPORT=request.param))
    try:
        yield tmux.server()
    finally:
        await tmux.aclose()


def new_pane(shared: TmuxServer) -> str:
    pane = shared.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:").strip()
    shared.wait_for_prompt(pane)
    return pane


def in_vi_copy_mode(shared: TmuxServer) -> str:
    """A pane in copy mode with vi keys, where the digits open a prompt (command-prompt)."""
    pane = new_pane(shared)
    shared.tmux("set-option", "-w", "-t", pane, "mode-keys", "vi")
    shared.tmux("copy-mode", "-t", pane)
    return pane


def mode_of(shared: TmuxServer, pane: str) -> str:
    return shared.tmux("display-message", "-p", "-t", pane, "#{pane_mode}").strip()


def screen(shared: TmuxServer, pane: str) -> str:
    return shared.tmux("capture-pane", "-p", "-t", pane)


async def at_once(
    call: Callable[[], Any], match: str | None = None, error: type[Exception] = CommandFailed
) -> Exception | Any:
    """``call()``'s error (if ``match`` is given, it must be one) or result, and that it came
    within one round trip."""
    began = time.monotonic()
    with anyio.fail_after(30):
        try:
            result = await call()
        except error as exc:
            assert match is not None, exc
            assert match in str(exc), exc
            result = exc
        else:
            assert match is None, f"expected an error with {match!r}, got {result!r}"
    took = time.monotonic() - began
    assert took < ONE_ROUND_TRIP, f"took {took:.2f}s"
    return result


# --- the cause, on a bare control client -------------------------------------------------


async def test_a_prompt_a_mode_key_opens_holds_back_every_later_reply_of_a_bare_control_client(
    shared: TmuxServer,
) -> None:
    pane = in_vi_copy_mode(shared)
    socket = Socket(shared.socket_path, "lab")
    env = {**os.environ, **shared.env}
    client = await ControlClient.start(socket, TMUX, "main", environ=env)
    try:
        with anyio.fail_after(10):
            assert await client.run(["send-keys", "-l", "-t", pane, "--", "1"]) == []
        # The digit ran copy-mode-vi's `command-prompt` for this client: it waits for an
        # answer a control client never gives, and every reply after it waits too.
        with anyio.move_on_after(ONE_ROUND_TRIP) as scope:
            await client.run(["display-message", "-p", "after"])
        assert scope.cancelled_caught, "tmux answered a command behind the prompt"
    finally:
        await client.aclose()
    shared.tmux("send-keys", "-X", "-t", pane, "cancel")


def test_only_a_send_keys_that_types_keys_is_guarded() -> None:
    assert types_keys(["send-keys", "-t", "%1", "x"])
    assert types_keys(["send-keys", "-l", "-t", "%1", "--", "-x"])
    assert types_keys(["send-keys", "-t%1", "Enter"])
    assert types_keys(["send-keys", "-N", "2", "-t", "%1", "Up"])
    assert not types_keys(["send-keys", "-X", "-t", "%1", "cancel"])
    assert not types_keys(["send-keys", "-t", "%1", "-X", "-N", "3", "scroll-up"])
    assert not types_keys(["send-keys", "-R", "-t", "%1"])
    assert not types_keys(["display-message", "-p", "x"])
    wrapped = wrap(["send-keys", "-t", "%1", "x"])
    assert wrapped is not None and wrapped[:4] == ("if-shell", "-F", "-t", "%1")
    assert wrap(["send-keys", "-X", "-t", "%1", "cancel"]) is None


# --- keys into a pane in a mode: refused at once, on every transport ---------------------


async def test_keys_into_a_pane_in_copy_mode_fail_at_once_and_the_next_reply_is_its_own(
    shared: TmuxServer, server: Server
) -> None:
    pane = in_vi_copy_mode(shared)
    before = screen(shared, pane)
    own = server.own_client_pids()
    error = await at_once(
        lambda: server.run_many(
            ("send-keys", "-l", "-t", pane, "--", "echo 12"), ("send-keys", "-t", pane, "Enter")
        ),
        "is in copy-mode",
        InAMode,
    )
    assert isinstance(error, InAMode) and error.pane_id == pane and error.mode == "copy-mode"
    assert await at_once(lambda: server.run(*OK)) == ["ok"]
    assert mode_of(shared, pane) == "copy-mode" and screen(shared, pane) == before
    assert not own or server.own_client_pids() == own  # no client was given up on
    shared.tmux("send-keys", "-X", "-t", pane, "cancel")
    assert "echo 12" not in screen(shared, pane)


# --- a failure in each position, and what comes around it ----------------------------------


@pytest.mark.parametrize("position", [0, 1, 2])
async def test_a_failure_first_middle_or_last_of_commands_sent_together_comes_back_at_once(
    server: Server, position: int
) -> None:
    commands = [OK, OK, OK]
    commands[position] = MISSING
    await at_once(lambda: server.run_many(*commands), "can't find pane: %999999")
    assert await at_once(lambda: server.run(*OK)) == ["ok"]


@pytest.mark.parametrize("position", [0, 1, 2])
async def test_a_failure_inside_a_guard_first_middle_or_last_comes_back_at_once(
    shared: TmuxServer, server: Server, position: int
) -> None:
    pane = new_pane(shared)
    branch: list[tuple[str, ...]] = [
        ("set-option", "-p", "-t", pane, "@step", str(n)) for n in range(3)
    ]
    branch[position] = MISSING
    guard = if_format(pane, "#{?pane_in_mode,1,}", [OK], branch)
    await at_once(lambda: server.run_many(OK, guard, OK), "can't find pane: %999999")
    # tmux skipped the branch after the failure; what ran before it ran.
    step = shared.tmux("show-options", "-pqv", "-t", pane, "@step").strip()
    assert step == ("" if position == 0 else str(position - 1))
    assert await at_once(lambda: server.run(*OK)) == ["ok"]


async def test_a_guard_answers_with_the_branch_it_ran_and_in_order(
    shared: TmuxServer, server: Server
) -> None:
    pane = new_pane(shared)
    report = ("display-message", "-p", "-t", pane, "blocked #{pane_mode}")
    typing = [("send-keys", "-l", "-t", pane, "--", "typed")]
    first = ("display-message", "-p", "first")
    last = ("display-message", "-p", "last")
    replies = await at_once(
        lambda: server.run_many(first, guarded(pane, typing, report=report), last)
    )
    assert replies == [["first"], [], ["last"]]
    shared.tmux("copy-mode", "-t", pane)
    replies = await at_once(
        lambda: server.run_many(first, guarded(pane, typing, report=report), last)
    )
    assert replies == [["first"], ["blocked copy-mode"], ["last"]]
    shared.tmux("send-keys", "-X", "-t", pane, "cancel")


@pytest.fixture
def notifications(shared: TmuxServer) -> Iterator[None]:
    """Windows renamed, made and closed as fast as tmux takes them, and a pane printing
    without pause, for as long as the test runs: notifications flow to every control client."""
    busy = shared.tmux(
        "new-window", "-d", "-P", "-F", "#{window_id}", "-t", "main:",
        "sh", "-c", "while :; do echo noise; done",
    ).strip()  # fmt: skip
    stop = threading.Event()

    def churn() -> None:
        n = 0
        while not stop.is_set():
            n += 1
            shared.tmux("rename-window", "-t", busy, f"churn-{n}", check=False)
            made = shared.tmux(
                "new-window", "-d", "-P", "-F", "#{window_id}", "-t", "main:", check=False
            )
            shared.tmux("kill-window", "-t", made.strip(), check=False)

    thread = threading.Thread(target=churn, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(30)
        shared.tmux("kill-window", "-t", busy, check=False)


@pytest.mark.parametrize("position", [0, 1, 2])
async def test_a_failure_while_notifications_flow_comes_back_at_once(
    shared: TmuxServer, server: Server, notifications: None, position: int
) -> None:
    for _ in range(5):
        commands = [OK, OK, OK]
        commands[position] = MISSING
        await at_once(lambda c=commands: server.run_many(*c), "can't find pane: %999999")  # type: ignore[misc]
        assert await at_once(lambda: server.run_many(OK, OK)) == [["ok"], ["ok"]]


async def test_a_failure_among_a_panes_output_on_a_client_that_hears_it_comes_back_at_once(
    shared: TmuxServer,
) -> None:
    busy = shared.tmux(
        "new-session", "-d", "-P", "-F", "#{session_id}", "sh", "-c", "while :; do echo noise; done"
    ).strip()
    socket = Socket(shared.socket_path, "lab")
    client = await ControlClient.start(
        socket, TMUX, busy, environ={**os.environ, **shared.env}, output=True
    )
    try:
        heard = 0

        def count(line: str) -> None:
            nonlocal heard
            heard += line.startswith("%output ")

        client.add_listener(count)
        with anyio.fail_after(10):  # on a loaded machine the loop may take a while to start
            while not heard:
                await anyio.sleep(0.02)
        for position in range(3):
            commands: list[list[str]] = [list(OK), list(OK), list(OK)]
            commands[position] = list(MISSING)
            await at_once(lambda c=commands: client.run_many(c), "can't find pane")  # type: ignore[misc]
            assert await at_once(lambda: client.run(list(OK))) == ["ok"]
    finally:
        await client.aclose()
        shared.tmux("kill-session", "-t", busy)


async def test_a_failure_right_after_a_window_is_made_comes_back_at_once(
    shared: TmuxServer, server: Server
) -> None:
    for position in range(3):
        (pane,) = await server.run("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:")
        commands: list[tuple[str, ...]] = [("display-message", "-p", "-t", pane, "#{pane_id}")] * 3
        commands[position] = MISSING
        await at_once(lambda c=commands: server.run_many(*c), "can't find pane: %999999")  # type: ignore[misc]
        # and keys typed into the new pane at once are typed
        await at_once(lambda p=pane: server.run("send-keys", "-l", "-t", p, "--", "fresh"))  # type: ignore[misc]
        deadline = time.monotonic() + 10
        while "fresh" not in screen(shared, pane):
            assert time.monotonic() < deadline, screen(shared, pane)
            await anyio.sleep(0.02)


async def test_a_control_transport_keeps_one_client_through_every_failure(
    shared: TmuxServer,
) -> None:
    """No failure above made the control transport give its client up (a timeout does)."""
    socket = Socket(shared.socket_path, "lab")
    transport = ControlTransport(socket, TMUX, {**os.environ, **shared.env})
    try:
        await transport.run(list(OK))
        (pid,) = transport.own_client_pids()
        pane = in_vi_copy_mode(shared)
        for commands in (
            [MISSING, OK],
            [OK, MISSING],
            [("send-keys", "-l", "-t", pane, "--", "123"), OK],
            [guarded(pane, [("send-keys", "-t", pane, "9")]), MISSING],
        ):
            failed = await at_once(lambda c=commands: transport.run_many(c), "")  # type: ignore[misc]
            assert isinstance(failed, CommandFailed)
        assert await transport.run(list(OK)) == ["ok"]
        assert transport.own_client_pids() == {pid}
        assert mode_of(shared, pane) == "copy-mode"
    finally:
        await transport.aclose()
