"""The control-mode client and transport against real tmux servers (and a scripted fake)."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from scripts.lab.tmuxserver import TMUX, TmuxServer
from tmux_contract_mcp.handlers.tmux.errors import (
    CommandFailed,
    ControlClientGone,
    NoServer,
    TmuxUnavailable,
)
from tmux_contract_mcp.handlers.tmux.transport.control import (
    ControlClient,
    ControlTransport,
    output_event,
    runs_in_control,
)
from tmux_contract_mcp.handlers.tmux.transport.process import SubprocessTransport
from tmux_contract_mcp.handlers.tmux.transport.sockets import Socket

pytestmark = pytest.mark.anyio

DEADLINE = 60.0  # only there to turn a hang into a failure

NASTY = [
    ";",
    "a;",
    "a ; kill-server",
    "\\;",
    "#{session_name}",
    "#{e|+:1,1}",
    "# not a comment",
    "'",
    '"',
    "'\"'\"",
    "\\",
    "a\\nb",
    "\\\\",
    "\\033",
    "$HOME",
    "${HOME}",
    "~",
    "~/x",
    "~root",
    "a\nb\nc",
    "\t",
    "a\tb",
    "{",
    "}",
    "{ kill-server }",
    "%if 1",
    "%end 1 2 1",
    "%error 1 2 1",
    "x\n%end 1 2 1\n%begin 1 2 1\ny",
    "\x01\x1b[1m\x7f",
    "\r",
    "é ✓ 日本語 🙂",
    "-x",
    "",
    "  padded  ",
    "A=b",
]


def socket_of(tmux: TmuxServer) -> Socket:
    return Socket(tmux.socket_path, f"socket {tmux.socket_path}")


def environ(tmux: TmuxServer) -> dict[str, str]:
    return {**os.environ, **tmux.env}


def subprocess_transport(tmux: TmuxServer, timeout: float = 10.0) -> SubprocessTransport:
    return SubprocessTransport(socket_of(tmux), TMUX, environ(tmux), timeout)


@asynccontextmanager
async def control(
    tmux: TmuxServer, session: str = "$0", output: bool = False
) -> AsyncIterator[ControlClient]:
    client = await ControlClient.start(
        socket_of(tmux), TMUX, session, environ=environ(tmux), output=output
    )
    try:
        yield client
    finally:
        await client.aclose()


@asynccontextmanager
async def transport(
    tmux: TmuxServer, tmux_bin: str = TMUX, timeout: float = 10.0
) -> AsyncIterator[ControlTransport]:
    control_transport = ControlTransport(socket_of(tmux), tmux_bin, environ(tmux), timeout)
    try:
        yield control_transport
    finally:
        await control_transport.aclose()


def process_exists(pid: int) -> bool:
    """True for a live process or an unreaped zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def eventually(check: Callable[[], bool], what: str, deadline: float = DEADLINE) -> None:
    with anyio.move_on_after(deadline):
        while not check():
            await anyio.sleep(0.02)
        return
    raise AssertionError(f"timed out waiting for {what}")


def sh_pane(tmux: TmuxServer) -> str:
    """A new pane in session main running /bin/sh (the first pane runs the user's shell,
    which can take long to start)."""
    return tmux.tmux("new-window", "-d", "-t", "main", "-P", "-F", "#{pane_id}").strip()


def client_pids(tmux: TmuxServer) -> list[str]:
    return tmux.lines("list-clients", "-F", "#{client_pid}")


# --- payloads and routing (no tmux needed; quoting is in test_quoting.py) -----------


def test_output_events_name_the_pane_and_carry_the_unescaped_bytes() -> None:
    assert output_event("%output %3 hi\\012") == ("%3", b"hi\n")
    assert output_event("%output %3 ") == ("%3", b"")
    assert output_event("%window-add @1") is None


def test_only_client_independent_commands_use_control_mode() -> None:
    assert runs_in_control(["list-panes", "-a"])
    assert runs_in_control(["send-keys", "-t", "%1", "x"])
    for command in ("if-shell", "run-shell", "source-file", "wait-for", "new-session", "if"):
        assert not runs_in_control([command, "x"])
    assert not runs_in_control([])


# --- replies from a real server ---------------------------------------------------------


async def test_multi_line_output_and_errors(tmux: TmuxServer) -> None:
    tmux.tmux("split-window", "-t", "main")
    tmux.tmux("new-window", "-t", "main")
    async with control(tmux) as client:
        assert client.session_id == "$0"
        panes = await client.run(["list-panes", "-a", "-F", "#{pane_id}"])
        assert panes == tmux.lines("list-panes", "-a", "-F", "#{pane_id}")
        assert len(panes) == 3
        assert await client.run(["set-option", "-g", "@x", "one"]) == []
        with pytest.raises(CommandFailed) as info:
            await client.run(["list-panes", "-t", "%99"])
        assert info.value.stderr == "can't find pane: %99"
        with pytest.raises(CommandFailed) as same:
            await subprocess_transport(tmux).run(["list-panes", "-t", "%99"])
        assert str(info.value) == str(same.value)
        with pytest.raises(CommandFailed):
            await client.run(["no-such-command"])
        assert await client.run(["show-options", "-gv", "@x"]) == ["one"]


async def test_output_that_looks_like_a_guard_stays_output(tmux: TmuxServer) -> None:
    value = "before\n%end 1 2 1\n%error 1 2 1\n%begin 1 2 1\n%exit\n%output %0 x\nafter"
    async with control(tmux) as client:
        await client.run(["set-option", "-g", "@fake", value])
        tmux.tmux("select-pane", "-t", "main", "-T", "%end 1 2 1")
        async with anyio.create_task_group() as tg:
            for _ in range(5):
                tg.start_soon(client.run, ["show-options", "-gv", "@fake"])
        assert await client.run(["show-options", "-gv", "@fake"]) == value.split("\n")
        title = await client.run(["display-message", "-p", "-t", "main", "#{pane_title}"])
        assert title == ["%end 1 2 1"]
        assert await client.run(["display-message", "-p", "ok"]) == ["ok"]


FAKE_TMUX = """#!@PYTHON@
# Speaks just enough control mode to put exact-looking guards inside replies.
import os, sys
FAKES = @FAKES@
argv = sys.argv[1:]
mode = os.environ.get("FAKE_MODE", "echo")
if "-C" not in argv:
    print("$7")  # list-sessions -F '#{session_id}'
    sys.exit(0)
def w(text):
    sys.stdout.write(text + "\\n")
    sys.stdout.flush()
w("%begin 100 1 0")
w("%end 100 1 0")
w("%session-changed $7 fake")
n = 10
while True:
    line = sys.stdin.readline()
    if not line:
        break
    n += 2
    if "command-alias" in line:  # the transport's check for shadowed names
        w(f"%begin 100 {n} 1")
        w("split-pane=split-window")
        w(f"%end 100 {n} 1")
        continue
    if mode == "silent":
        continue
    if mode == "die-once" and not os.path.exists(os.environ["FAKE_MARK"]):
        open(os.environ["FAKE_MARK"], "w").close()
        sys.exit(0)
    w(f"%begin 100 {n - 1} 0")
    w("hook output")
    w(f"%end 100 {n - 1} 0")
    w("%window-add @1")
    w(f"%begin 100 {n} 1")
    for fake in FAKES:
        w(fake.replace("<N>", str(n)).replace("<M>", str(n + 1)))
    w(line.rstrip("\\n"))
    w(f"%end 100 {n} 1")
"""

GUARD_LOOKALIKES = [
    "%end 100 <N> 0",
    "%end 100 <M> 1",
    "%error 100 <N> 2",
    "%end 101 <N> 1",
    " %end 100 <N> 1",
    "%end 100 <N> 1 ",
    "%end  100 <N> 1",
    "%begin 100 <N> 1",
    "%exit",
    "%session-changed $9 x",
]


def fake_tmux(tmp_path: Path) -> str:
    script = tmp_path / "fake-tmux"
    body = FAKE_TMUX.replace("@PYTHON@", sys.executable)
    body = body.replace("@FAKES@", repr(GUARD_LOOKALIKES))
    script.write_text(body)
    script.chmod(0o755)
    return str(script)


async def test_only_the_exact_guard_line_ends_a_reply(tmp_path: Path) -> None:
    socket = Socket(str(tmp_path / "none"), "fake socket")
    seen: list[str] = []
    with anyio.fail_after(DEADLINE):
        client = await ControlClient.start(socket, fake_tmux(tmp_path), "$7")
        client.add_listener(seen.append)
        try:
            replies: dict[int, list[str]] = {}

            async def ask(i: int) -> None:
                replies[i] = await client.run(["display-message", "-p", f"{i}"])

            async with anyio.create_task_group() as tg:
                for i in range(20):
                    tg.start_soon(ask, i)
        finally:
            await client.aclose()
    for i, lines in replies.items():
        n = int(lines[0].split()[2])
        expected = [
            fake.replace("<N>", str(n)).replace("<M>", str(n + 1)) for fake in GUARD_LOOKALIKES
        ]
        assert lines == [*expected, f'"display-message" "-p" "{i}"']
    assert client.session_id == "$7"  # the lookalike %session-changed was output, not news
    assert "%window-add @1" in seen
    assert not any(line.startswith("%exit") for line in seen)


async def test_nasty_values_arrive_literally(tmux: TmuxServer, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    values = [*NASTY, f"#(touch {marker})", f"$(touch {marker})", f"`touch {marker}`"]
    plain = subprocess_transport(tmux)
    async with control(tmux) as client:
        for value in values:
            await client.run(["set-option", "-g", "@x", value])
            shown = await client.run(["show-options", "-gv", "@x"])
            assert "\n".join(shown) == value, repr(value)
            assert shown == await plain.run(["show-options", "-gv", "@x"])
            await client.run(["set-environment", "-g", "TCM_X", value])
            shown = await client.run(["show-environment", "-g", "TCM_X"])
            assert "\n".join(shown) == f"TCM_X={value}", repr(value)
            assert shown == await plain.run(["show-environment", "-g", "TCM_X"])
        # and as one pipelined burst
        async with anyio.create_task_group() as tg:
            for i, value in enumerate(values):
                tg.start_soon(client.run, ["set-option", "-g", f"@v{i}", value])
        for i, value in enumerate(values):
            assert "\n".join(await client.run(["show-options", "-gv", f"@v{i}"])) == value
        assert await client.run(["display-message", "-p", "#{session_name}"]) == ["main"]
    await anyio.sleep(0.3)  # a #() job would run in the background
    assert not marker.exists()
    assert tmux.lines("list-sessions", "-F", "#{session_name}") == ["main"]


async def test_fifty_pipelined_commands_each_get_their_own_reply(tmux: TmuxServer) -> None:
    for _ in range(3):
        tmux.tmux("split-window", "-t", "main")
        tmux.tmux("select-layout", "-t", "main", "tiled")
    panes = tmux.lines("list-panes", "-a", "-F", "#{pane_id}")
    replies: dict[int, list[str]] = {}
    async with transport(tmux) as control_transport:

        async def ask(i: int) -> None:
            pane = panes[i % len(panes)]
            args = ["display-message", "-p", "-t", pane, f"#{{pane_id}} {i}"]
            replies[i] = await control_transport.run(args)

        with anyio.fail_after(DEADLINE):
            async with anyio.create_task_group() as tg:
                for i in range(50):
                    tg.start_soon(ask, i)
        assert len(control_transport.own_client_pids()) == 1
    assert replies == {i: [f"{panes[i % len(panes)]} {i}"] for i in range(50)}


@pytest.mark.anyio
async def test_commands_written_together_run_in_order_and_report_the_first_failure(
    tmux: TmuxServer,
) -> None:
    async with transport(tmux) as control_transport:
        with anyio.fail_after(DEADLINE):
            replies = await control_transport.run_many(
                [
                    ["set-option", "-g", "@step", "one"],
                    ["show-options", "-gv", "@step"],
                    ["set-option", "-g", "@step", "two"],
                    ["show-options", "-gv", "@step"],
                ]
            )
            assert replies == [[], ["one"], [], ["two"]]
            with pytest.raises(CommandFailed, match="can't find pane"):
                await control_transport.run_many(
                    [["display-message", "-p", "-t", "%999999", "x"], ["kill-pane", "-t", "%999"]]
                )
            # The failure left the connection in step: the next reply is its own.
            assert await control_transport.run(["show-options", "-gv", "@step"]) == ["two"]
        assert len(control_transport.own_client_pids()) == 1


# --- death and reconnection -------------------------------------------------------------


Outcome = list[str] | BaseException


async def burst_during(
    client: ControlClient, action: Callable[[], object], count: int = 50
) -> list[Outcome]:
    """Pipeline ``count`` reads while ``action`` runs in a thread; every outcome, in order."""
    outcomes: list[Outcome] = [[] for _ in range(count)]

    async def ask(i: int) -> None:
        try:
            outcomes[i] = await client.run(["display-message", "-p", f"r{i}"])
        except Exception as exc:
            outcomes[i] = exc

    async with anyio.create_task_group() as tg:
        for i in range(count):
            tg.start_soon(ask, i)
        await anyio.to_thread.run_sync(action)
    return outcomes


def assert_answered_or_gone(outcomes: list[Outcome]) -> None:
    """Each read got its own answer, or a clear 'may or may not have run': never another's."""
    for i, outcome in enumerate(outcomes):
        if isinstance(outcome, BaseException):
            assert isinstance(outcome, ControlClientGone), outcome
            assert outcome.sent or "was not sent" in str(outcome)
        else:
            assert outcome == [f"r{i}"]


async def test_killing_the_session_ends_in_flight_and_later_calls(tmux: TmuxServer) -> None:
    tmux.tmux("new-session", "-d", "-s", "other")
    with anyio.fail_after(DEADLINE):
        async with control(tmux, "$0") as client:
            outcomes = await burst_during(client, lambda: tmux.tmux("kill-session", "-t", "main"))
            await client.wait_closed()
            with pytest.raises(ControlClientGone) as info:
                await client.run(["list-sessions"])
            assert not info.value.sent
            assert str(socket_of(tmux)) in str(info.value)
            assert "was not sent" in str(info.value)
            assert not client.running
    assert_answered_or_gone(outcomes)


async def test_a_command_in_flight_when_the_server_dies_fails(tmux: TmuxServer) -> None:
    server_pid = int(tmux.tmux("display-message", "-p", "#{pid}"))
    with anyio.fail_after(DEADLINE):
        async with control(tmux) as client:
            os.kill(server_pid, signal.SIGSTOP)  # the command stays unanswered
            try:

                def crash() -> None:
                    time.sleep(0.2)
                    os.kill(server_pid, signal.SIGKILL)

                outcomes = await burst_during(client, crash, count=5)
            finally:
                if process_exists(server_pid):
                    os.kill(server_pid, signal.SIGCONT)
            await client.wait_closed()
    for outcome in outcomes:
        assert isinstance(outcome, ControlClientGone), outcome
        assert outcome.sent
        assert "may or may not have run" in str(outcome)
        assert str(socket_of(tmux)) in str(outcome)
    assert not process_exists(client.pid)


async def test_transport_reconnects_to_another_session(tmux: TmuxServer) -> None:
    tmux.tmux("new-session", "-d", "-s", "other")
    with anyio.fail_after(DEADLINE):
        async with transport(tmux) as control_transport:
            first = await control_transport.client()
            assert first is not None
            assert first.session_id == "$0"
            tmux.tmux("kill-session", "-t", "main")
            await first.wait_closed()
            assert not process_exists(first.pid)
            # not sent before the death was known: no retry needed to go on
            names = await control_transport.run(["list-sessions", "-F", "#{session_name}"])
            assert names == ["other"]
            second = await control_transport.client()
            assert second is not None
            assert second.pid != first.pid
            assert second.session_id == "$1"
            assert control_transport.own_client_pids() == {second.pid}
            assert client_pids(tmux) == [str(second.pid)]


async def test_retry_runs_a_read_again_when_the_client_died_under_it(tmp_path: Path) -> None:
    socket = Socket(str(tmp_path / "none"), "fake socket")
    env = {**os.environ, "FAKE_MODE": "die-once", "FAKE_MARK": str(tmp_path / "died")}
    with anyio.fail_after(DEADLINE):
        writes = ControlTransport(socket, fake_tmux(tmp_path), env)
        try:
            with pytest.raises(ControlClientGone) as info:
                await writes.run(["list-panes"])
            assert info.value.sent
            assert "fake socket" in str(info.value)
        finally:
            await writes.aclose()
        (tmp_path / "died").unlink()
        reads = ControlTransport(socket, fake_tmux(tmp_path), env)
        try:
            lines = await reads.run(["list-panes"], retry=True)
            assert lines[-1] == '"list-panes"'
        finally:
            await reads.aclose()


async def test_killing_the_server_gives_no_server_and_no_hang(tmux: TmuxServer) -> None:
    with anyio.fail_after(DEADLINE):
        async with transport(tmux) as control_transport:
            names = await control_transport.run(["list-sessions", "-F", "#{session_name}"])
            assert names == ["main"]
            client = await control_transport.client()
            assert client is not None
            outcomes = await burst_during(client, lambda: tmux.tmux("kill-server"))
            await client.wait_closed()
            with pytest.raises(NoServer) as info:
                await control_transport.run(["list-sessions"], retry=True)
            with pytest.raises(NoServer) as plain:
                await subprocess_transport(tmux).run(["list-sessions"])
            assert str(info.value) == str(plain.value)
            with pytest.raises(NoServer):
                await control_transport.run(["set-option", "-g", "@x", "1"])
            assert control_transport.own_client_pids() == frozenset()
    assert_answered_or_gone(outcomes)
    assert not process_exists(client.pid)


async def test_no_server_at_all_is_reported_like_the_subprocess_transport(
    tmp_path: Path,
) -> None:
    socket = Socket(str(tmp_path / "nothing-here"), f"socket {tmp_path / 'nothing-here'}")
    with anyio.fail_after(DEADLINE):
        control_transport = ControlTransport(socket, TMUX, dict(os.environ))
        try:
            with pytest.raises(NoServer) as info:
                await control_transport.run(["list-panes", "-a"])
        finally:
            await control_transport.aclose()
        with pytest.raises(NoServer) as plain:
            await SubprocessTransport(socket, TMUX, dict(os.environ)).run(["list-panes", "-a"])
    assert str(info.value) == str(plain.value)
    assert not (tmp_path / "nothing-here").exists()  # -N: the client started no server


async def test_without_a_session_it_uses_subprocesses_until_one_exists(
    tmux: TmuxServer,
) -> None:
    tmux.tmux("set-option", "-s", "exit-empty", "off")
    tmux.tmux("kill-session", "-t", "main")
    with anyio.fail_after(DEADLINE):
        async with transport(tmux) as control_transport:
            assert await control_transport.run(["list-sessions"]) == []
            assert await control_transport.client() is None
            assert control_transport.own_client_pids() == frozenset()
            assert tmux.tmux("list-clients", "-F", "#{client_pid}", check=False) == ""
            tmux.tmux("new-session", "-d", "-s", "again")
            names = await control_transport.run(["list-sessions", "-F", "#{session_name}"])
            assert names == ["again"]
            pids = control_transport.own_client_pids()
            assert len(pids) == 1
            assert client_pids(tmux) == [str(pid) for pid in pids]


async def test_a_silent_tmux_times_out_and_its_client_is_discarded(tmp_path: Path) -> None:
    socket = Socket(str(tmp_path / "none"), "fake socket")
    env = {**os.environ, "FAKE_MODE": "silent"}
    with anyio.fail_after(DEADLINE):
        control_transport = ControlTransport(socket, fake_tmux(tmp_path), env, timeout=1.0)
        try:
            client = await control_transport.client()
            assert client is not None
            with pytest.raises(TmuxUnavailable) as info:
                await control_transport.run(["list-panes"])
            assert "did not answer within 1s on fake socket" in str(info.value)
            assert control_transport.own_client_pids() == frozenset()
            assert not process_exists(client.pid)
        finally:
            await control_transport.aclose()


async def test_concurrent_first_calls_start_one_client(tmux: TmuxServer) -> None:
    async with transport(tmux) as control_transport:
        with anyio.fail_after(DEADLINE):
            async with anyio.create_task_group() as tg:
                for _ in range(20):
                    tg.start_soon(control_transport.run, ["list-sessions"])
        assert len(control_transport.own_client_pids()) == 1
        assert len(client_pids(tmux)) == 1


async def test_aclose_leaves_no_client_process(tmux: TmuxServer) -> None:
    with anyio.fail_after(DEADLINE):
        control_transport = ControlTransport(socket_of(tmux), TMUX, environ(tmux))
        await control_transport.run(["list-sessions"])
        (pid,) = control_transport.own_client_pids()
        assert client_pids(tmux) == [str(pid)]
        await control_transport.aclose()
    assert not process_exists(pid)
    assert client_pids(tmux) == []
    assert control_transport.own_client_pids() == frozenset()
    # still usable, one process per command
    assert await control_transport.run(["list-sessions", "-F", "#{session_name}"]) == ["main"]
    assert client_pids(tmux) == []


async def test_attaching_where_nothing_is_fails_clearly(tmux: TmuxServer, tmp_path: Path) -> None:
    with anyio.fail_after(DEADLINE):
        with pytest.raises(ControlClientGone) as info:
            await ControlClient.start(socket_of(tmux), TMUX, "$99", environ=environ(tmux))
        assert "can't find session: $99" in str(info.value)
        assert not info.value.sent
        nothing = Socket(str(tmp_path / "no-server"), "socket no-server")
        with pytest.raises(ControlClientGone) as info:
            await ControlClient.start(nothing, TMUX, "$0")
        assert "error connecting to" in str(info.value)
        assert not (tmp_path / "no-server").exists()  # -N: no server was started
        with pytest.raises(TmuxUnavailable):
            await ControlClient.start(socket_of(tmux), str(tmp_path / "no-tmux"), "$0")
    assert client_pids(tmux) == []


async def test_a_user_alias_over_a_listed_command_does_not_shift_replies(
    tmux: TmuxServer,
) -> None:
    alias = "list-buffers=if-shell -F 1 'display-message -p one' 'display-message -p two'"
    tmux.tmux("set-option", "-s", "command-alias[100]", alias)
    plain = subprocess_transport(tmux)
    async with transport(tmux) as control_transport:
        with anyio.fail_after(DEADLINE):
            expected = await plain.run(["list-buffers"])
            assert expected == ["one"]
            assert await control_transport.run(["list-buffers"]) == expected
            assert await control_transport.run(["display-message", "-p", "next"]) == ["next"]
            assert len(control_transport.own_client_pids()) == 1


# --- what attaching does (and does not do) to the server --------------------------------


@pytest.mark.timeout(180)  # under 1 s; its own wait for the pane allows 120 s
async def test_a_pane_printing_a_lot_is_not_stalled_by_the_no_output_client(
    tmux: TmuxServer,
) -> None:
    seen: list[str] = []
    async with transport(tmux) as control_transport:
        client = await control_transport.client()
        assert client is not None
        client.add_listener(seen.append)
        assert client_pids(tmux) == [str(client.pid)]  # the only client attached
        pane = sh_pane(tmux)
        command = "seq 300000; tmux wait-for -S tcm-printed"
        await control_transport.run(["send-keys", "-t", pane, command, "Enter"])
        await subprocess_transport(tmux, timeout=120).run(["wait-for", "tcm-printed"])
        screen = await control_transport.run(["capture-pane", "-p", "-t", pane])
        assert "300000" in screen
    assert not any(line.startswith("%output") for line in seen)


async def test_attaching_never_resizes_windows(tmux: TmuxServer) -> None:
    tmux.tmux("new-window", "-t", "main")
    sizes = ["list-windows", "-a", "-F", "#{window_id} #{window_width}x#{window_height}"]
    before = tmux.lines(*sizes)
    assert before[0].endswith(" 200x50")
    async with control(tmux) as quiet, control(tmux, output=True) as loud:
        await quiet.run(["list-sessions"])
        await loud.run(["list-sessions"])
        flags = dict(
            line.split(" ", 1)
            for line in tmux.lines("list-clients", "-F", "#{client_pid} #{client_flags}")
        )
        assert "ignore-size" in flags[str(quiet.pid)].split(",")
        assert "no-output" in flags[str(quiet.pid)].split(",")
        assert "no-output" not in flags[str(loud.pid)].split(",")
        await anyio.sleep(0.2)
        assert tmux.lines(*sizes) == before
    assert tmux.lines(*sizes) == before


async def test_an_output_client_hears_its_panes(tmux: TmuxServer) -> None:
    pane = sh_pane(tmux)
    heard = bytearray()

    def listen(line: str) -> None:
        event = output_event(line)
        if event is not None and event[0] == pane:
            heard.extend(event[1])

    async with control(tmux, output=True) as client:
        remove = client.add_listener(listen)
        await client.run(["send-keys", "-t", pane, "printf 'A\\134B\\033C|\\n'", "Enter"])
        await eventually(lambda: b"A\\B\x1bC|" in heard, "the printed bytes")
        remove()


async def test_session_id_follows_the_client(tmux: TmuxServer) -> None:
    tmux.tmux("new-session", "-d", "-s", "other")
    async with control(tmux, "$0") as client:
        assert client.session_id == "$0"
        await client.run(["switch-client", "-t", "other"])
        await eventually(lambda: client.session_id == "$1", "%session-changed")


async def test_subprocess_transport_accepts_retry(tmux: TmuxServer) -> None:
    lines = await subprocess_transport(tmux).run(["list-sessions", "-F", "#S"], retry=True)
    assert lines == ["main"]
