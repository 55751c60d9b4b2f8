"""The log of what a server under test sends to tmux sees every kind of command, so a test
that finds it empty has shown that nothing was sent.

Servers under test run ``scripts/lab/tmux-logged`` as their tmux (``TmuxServer.server_env``): it
writes down each invocation's argv and each line written to a control client, then is
replaced by the real tmux. These tests prove both halves, and that the wrapper changes
nothing tmux's callers rely on: pid, exit status, output, and no process left behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator

import pytest

from scripts.lab.client import open_client
from scripts.lab.processes import alive, children
from scripts.lab.sentlog import LOGGED_TMUX, Sent, control_words
from scripts.lab.tmuxserver import TmuxServer

DEADLINE = 20.0


def commands(sent: list[Sent], kind: str) -> list[str]:
    return [item.command for item in sent if item.kind == kind]


def logged_env(tmux: TmuxServer) -> dict[str, str]:
    """The environment the wrapper sees when a server under test runs it."""
    return {**os.environ, **tmux.server_env()}


def until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


# --- what a server under test sends is seen --------------------------------------------------


@pytest.mark.anyio
@pytest.mark.e2e
async def test_a_read_over_the_control_client_is_seen_as_a_control_line(
    tmux: TmuxServer,
) -> None:
    env = tmux.server_env(TMUX_CONTRACT_MCP_TRANSPORT="control")
    async with open_client(env, "python") as client:
        mark = tmux.mark()
        await client.ok("list_sessions")
        first = tmux.sent_since(mark)
        mark = tmux.mark()
        await client.ok("list_sessions")
        second = tmux.sent_since(mark)
    # The first call starts the control client (a tmux process) and reads through it.
    (attach,) = [item for item in first if item.command == "attach-session"]
    assert attach.kind == "argv" and "-C" in attach.words
    assert "list-sessions" in commands(first, "control")
    assert {item.pid for item in first if item.kind == "control"} == {attach.pid}
    # Once attached, a read is control lines only, no process.
    assert commands(second, "argv") == []
    assert "list-sessions" in commands(second, "control")


@pytest.mark.anyio
@pytest.mark.e2e
@pytest.mark.parametrize("transport", ["control", "subprocess"])
async def test_send_keys_is_seen_over_either_transport(tmux: TmuxServer, transport: str) -> None:
    pane = tmux.active_pane()
    env = tmux.server_env(TMUX_CONTRACT_MCP_TRANSPORT=transport)
    async with open_client(env, "python") as client:
        await client.ok("list_sessions")  # the control client, if any, is up
        mark = tmux.mark()
        await client.ok("send_keys", {"pane_id": pane, "keys": "echo seen", "enter": False})
        sent = tmux.sent_since(mark)
    kind = "control" if transport == "control" else "argv"
    # The keys travel inside the guard that reads the pane's mode as they are typed.
    typed = [i for i in sent if any(c[0] == "send-keys" for c in i.commands)]
    assert typed and all(item.kind == kind for item in typed), [str(item) for item in sent]
    assert any("echo seen" in c for i in typed for c in i.commands), [str(i) for i in typed]


@pytest.mark.anyio
@pytest.mark.e2e
async def test_commands_run_as_their_own_process_are_seen(tmux: TmuxServer) -> None:
    """new-window and split-window never travel over the control client: each is a process."""
    env = tmux.server_env(TMUX_CONTRACT_MCP_TRANSPORT="control")
    async with open_client(env, "python") as client:
        await client.ok("list_sessions")
        mark = tmux.mark()
        window = await client.ok("create_window", {"session_name": "main"})
        await client.ok("split_window", {"pane_id": window["active_pane_id"]})
        sent = tmux.sent_since(mark)
    started = commands(sent, "argv")
    assert "new-window" in started and "split-window" in started, [str(item) for item in sent]


@pytest.mark.anyio
@pytest.mark.e2e
async def test_an_invalid_call_between_two_valid_ones_is_the_only_silent_one(
    tmux: TmuxServer,
) -> None:
    async with open_client(tmux.server_env(), "python") as client:
        before = tmux.mark()
        await client.ok("list_windows")
        between = tmux.mark()
        await client.error("list_windows", {"session_id": "not-an-id"})
        tmux.assert_nothing_sent_since(between)
        await client.ok("list_windows")
        with pytest.raises(AssertionError, match="list-windows"):
            tmux.assert_nothing_sent_since(between)
    assert len([item for item in tmux.sent_since(before) if item.reaches_a_server]) >= 2


# --- the wrapper changes nothing tmux's callers rely on ----------------------------------------


def test_each_invocation_is_logged_with_its_exact_arguments_and_status(tmux: TmuxServer) -> None:
    mark = tmux.mark()
    odd = 'two  spaces\nnew line \u00e9 #{x} "q" -'
    done = subprocess.run(
        [str(LOGGED_TMUX), "-L", tmux.name, "display-message", "-p", "--", odd],
        env=logged_env(tmux),
        capture_output=True,
        text=True,
    )
    assert (done.returncode, done.stdout) == (0, odd.replace("#{x}", "") + "\n")
    failed = subprocess.run(
        [str(LOGGED_TMUX), "-L", tmux.name, "no-such-command"],
        env=logged_env(tmux),
        capture_output=True,
        text=True,
    )
    assert failed.returncode == 1 and "unknown command" in failed.stderr
    sent = tmux.sent_since(mark)
    assert [item.words for item in sent] == [
        ("-L", tmux.name, "display-message", "-p", "--", odd),
        ("-L", tmux.name, "no-such-command"),
    ]
    assert [item.command for item in sent] == ["display-message", "no-such-command"]


def test_without_a_log_directory_the_wrapper_only_runs_tmux(tmux: TmuxServer) -> None:
    """As when a pane's shell runs it (run_command's completion signal): no log, same tmux."""
    mark = tmux.mark()
    env = {k: v for k, v in logged_env(tmux).items() if k != "TCM_TMUX_LOG"}
    done = subprocess.run(
        [str(LOGGED_TMUX), "-L", tmux.name, "display-message", "-p", "#{session_name}"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert (done.returncode, done.stdout) == (0, "main\n")
    assert tmux.sent_since(mark) == []


def test_a_version_query_is_logged_but_reaches_no_server(tmux: TmuxServer) -> None:
    mark = tmux.mark()
    done = subprocess.run([str(LOGGED_TMUX), "-V"], env=logged_env(tmux), capture_output=True)
    assert done.returncode == 0 and done.stdout.startswith(b"tmux ")
    (sent,) = tmux.sent_since(mark)
    assert sent.words == ("-V",) and sent.reaches_a_server is False
    tmux.assert_nothing_sent_since(mark)


@pytest.fixture
def control_client(tmux: TmuxServer) -> Iterator[subprocess.Popen[bytes]]:
    """A control client run through the wrapper, as a server under test runs one."""
    process = subprocess.Popen(
        [str(LOGGED_TMUX), "-N", "-S", tmux.socket_path, "-C", "attach-session", "-t", "main"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=logged_env(tmux),
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        for pipe in (process.stdin, process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()


def attached_pids(tmux: TmuxServer) -> list[int]:
    return [int(pid) for pid in tmux.lines("list-clients", "-F", "#{client_pid}")]


def test_a_control_client_keeps_its_pid_and_its_lines_reach_tmux_unchanged(
    tmux: TmuxServer, control_client: subprocess.Popen[bytes]
) -> None:
    mark = tmux.mark()
    assert control_client.stdin is not None
    line = b'"display-message" "-p" "\\303\\251 \\$HOME \\"q\\" \\~"\n'
    control_client.stdin.write(line)
    control_client.stdin.flush()
    until(lambda: attached_pids(tmux) == [control_client.pid], "the client to attach")
    control_client.stdin.close()  # tmux reads the line, then EOF, and leaves
    assert control_client.stdout is not None
    out = control_client.stdout.read()  # to EOF: nothing but tmux holds its stdout
    assert control_client.wait(timeout=DEADLINE) == 0
    assert '\u00e9 $HOME "q" ~'.encode() in out.splitlines()
    control = [item for item in tmux.sent_since(mark) if item.kind == "control"]
    assert [item.words for item in control] == [("display-message", "-p", 'é $HOME "q" ~')]
    assert control_words(line.decode().rstrip("\n")) == control[0].words
    assert control[0].pid == control_client.pid


def test_a_killed_control_client_leaves_no_client_and_no_process_behind(
    tmux: TmuxServer, control_client: subprocess.Popen[bytes]
) -> None:
    until(lambda: attached_pids(tmux) == [control_client.pid], "the client to attach")
    (copier,) = children(control_client.pid)
    control_client.send_signal(signal.SIGKILL)
    assert control_client.wait(timeout=DEADLINE) == -signal.SIGKILL  # tmux itself was killed
    until(lambda: attached_pids(tmux) == [], "tmux to drop the client")
    assert control_client.stdin is not None
    control_client.stdin.close()  # what the owner of a killed client does next
    until(lambda: not alive(copier), "the stdin copier to end")
