"""Faults of remote tmux over ssh: a connection dropped mid-wait, a host that cannot be
reached, a key the host refuses, and a server stopped by a signal.

The faults are real: the lab sshd's per-connection process is killed, a port nobody
listens on is dialled, a key that is not in authorized_keys is offered.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import Any

import anyio
import pytest

from scripts.lab import processes
from scripts.lab.client import COMMAND, open_client
from scripts.lab.sshd import SshServer, free_port, keygen, private_tmpdir, ssh_under
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.ssh import logins, remote_env
from tests.helpers.tmux import echoing
from tests.helpers.tmux import tmux_clients as clients
from tests.helpers.waiting import eventually, showing, waiting_on
from tests.helpers.wire import INITIALIZE, INITIALIZED

pytestmark = pytest.mark.anyio

WAIT = 60  # a wait's own timeout: the dropped connection must end it long before
DROP_NOTICED = 5.0  # seconds within which a wait hears its connection went (it takes ~0.02)
DEADLINE = 30.0


def drop_connections(sshd: SshServer) -> list[int]:
    """Kill the sshd processes serving connections (not the listener): what a network
    drop or a reboot of the host does to the ssh client's side."""
    killed = sshd.session_pids()
    assert killed, "no ssh connection to drop"
    for pid in killed:
        os.kill(pid, signal.SIGKILL)
    return killed


def stop_pid(pid: int) -> None:
    with suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def kill_if_running(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.kill()
        process.wait()


def wait_for_processes(shared: TmuxServer) -> set[int]:
    """The ``tmux wait-for`` processes on ``shared`` (on the "remote": this machine).

    Through ssh a command arrives on stdin, so their argv ends ``source-file -``; only a
    wait-for lasts."""
    return {
        pid
        for pid in processes.pids()
        if processes.alive(pid)
        and (argv := processes.cmdline(pid))
        and os.path.basename(argv[0]) == "tmux"
        and shared.socket_path in argv
        and argv[-2:] == ["source-file", "-"]
    }


WAITS = {
    "python wait_for_text": ("python", "wait_for_text", "pane_id", "timeout"),
    "rust wait_for_text": ("rust", "wait_for_text", "pane", "seconds"),
    "rust wait_for_channel": ("rust", "wait_for_channel", None, "seconds"),
    "python run_command": ("python", "run_command", "pane_id", "timeout"),
}


@pytest.mark.parametrize("which", list(WAITS))
async def test_a_dropped_connection_ends_the_wait_with_an_error_and_the_next_call_reconnects(
    shared: TmuxServer, sshd: SshServer, which: str
) -> None:
    profile, tool, pane_field, seconds_field = WAITS[which]
    if tool == "run_command":  # a shell to run it
        made = shared.new_session()
        session, pane = made.name, made.pane
        shared.wait_for_prompt(pane)
    else:
        made = shared.new_session(None, *echoing("before-the-drop"))
        session, pane = made.name, made.pane
        await showing(shared, pane, "before-the-drop")
    channel = f"never-signalled-{session}"
    arguments: dict[str, Any] = {seconds_field: WAIT}
    if pane_field is None:
        arguments["channel"] = channel
    elif tool == "run_command":
        arguments |= {pane_field: pane, "command": "sleep 300"}
    else:
        arguments |= {pane_field: pane, "patterns": ["NEVER-PRINTED"]}
    async with open_client(remote_env(shared, sshd), profile) as opened:
        await opened.ok("list_sessions")
        before = logins(sshd)
        message = ""
        took = 0.0

        earlier = wait_for_processes(shared)

        async def wait() -> None:
            nonlocal message, took
            message = await opened.error(tool, arguments)
            took = time.monotonic() - dropped

        with anyio.fail_after(DEADLINE):
            async with anyio.create_task_group() as group:
                group.start_soon(wait)
                if pane_field is None or tool == "run_command":
                    await eventually(
                        lambda: bool(wait_for_processes(shared) - earlier), "the call's wait-for"
                    )
                else:
                    await waiting_on(shared, session)
                dropped = time.monotonic()
                drop_connections(sshd)
        assert took < DROP_NOTICED, f"the wait heard of the drop after {took:.1f}s"
        assert f"the ssh connection to 127.0.0.1 port {sshd.port} was lost" in message
        assert "retry" in message
        assert "Traceback" not in message
        # The next call connects again (a new login) and works.
        listed = await opened.ok("list_sessions")
        assert logins(sshd) > before
        if profile == "python":
            names = [row["session_name"] for row in listed["result"]]
        else:
            names = [row["name"] for row in listed["sessions"]]
        assert session in names
    shared.tmux("kill-session", "-t", session)


# --- a host that cannot be reached, a key that is refused ----------------------------------


def startup_lines(env: dict[str, str]) -> tuple[list[str], float]:
    """What the server says on stderr when it starts and its input ends at once."""
    started = time.monotonic()
    done = subprocess.run(
        [COMMAND, "--profile", "python"],
        env={**os.environ, **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )
    assert done.returncode == 0, done.stderr
    return done.stderr.splitlines(), time.monotonic() - started


def refused_key_config(sshd: SshServer) -> Path:
    """The lab's client config, offering a key the lab sshd does not authorize."""
    stranger = sshd.tmpdir / "stranger_key"
    if not stranger.exists():
        keygen(stranger)
    config = sshd.tmpdir / "ssh_config_stranger"
    config.write_text(
        sshd.client_config.read_text().replace(str(sshd.tmpdir / "client_key"), str(stranger))
    )
    return config


def unreachable(sshd: SshServer, how: str) -> tuple[dict[str, str], str, str]:
    """(the environment, how the host is named, ssh's words) for one way to fail."""
    if how == "closed port":
        port = free_port()
        return {}, f"127.0.0.1 port {port}", "Connection refused"
    if how == "unknown name":
        return {}, "no-such-host.invalid", "Could not resolve hostname"
    config = refused_key_config(sshd)
    env = {"TMUX_CONTRACT_MCP_SSH_CONFIG": str(config)}
    return env, f"127.0.0.1 port {sshd.port}", "Permission denied (publickey)"


FAILURES = ["closed port", "unknown name", "refused key"]


def target_for(sshd: SshServer, how: str, named: str) -> str:
    if how == "closed port":
        return "127.0.0.1:" + named.rsplit(" ", 1)[1]
    if how == "unknown name":
        return named
    return sshd.target


@pytest.mark.parametrize("how", FAILURES)
async def test_an_unreachable_host_or_refused_key_is_one_line_at_startup_and_at_each_call(
    shared: TmuxServer, sshd: SshServer, how: str
) -> None:
    extra, named, said = unreachable(sshd, how)
    env = {**remote_env(shared, sshd, target_for(sshd, how, named)), **extra}
    lines, took = startup_lines(env)
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"tmux-contract-mcp: ssh to {named} failed: ")
    assert said in lines[0]
    assert took < DEADLINE
    async with open_client(env, "python") as opened:
        for _ in range(2):  # each call tries again, and says the same
            message = await opened.error("list_sessions")
            assert message.strip().splitlines() == [message.strip()]
            assert f"ssh to {named} failed: " in message
            assert said in message


# --- stopping: nothing is left behind -----------------------------------------------------


def ssh_of(sshd: SshServer, tmp: Path) -> dict[int, str]:
    """What runs for the server whose TMPDIR is ``tmp``: its ssh processes here, and the
    sessions of its own lab sshd."""
    return ssh_under(tmp) | {pid: "sshd session" for pid in sshd.session_pids()}


def start_waiting(server: subprocess.Popen[bytes], pane: str) -> None:
    """Initialize by hand and start a wait that nothing will end."""
    assert server.stdin is not None
    for message in (
        INITIALIZE,
        INITIALIZED,
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "wait_for_text",
                "arguments": {"pane_id": pane, "patterns": ["NEVER-PRINTED"], "timeout": WAIT},
            },
        },
    ):
        server.stdin.write(json.dumps(message).encode() + b"\n")
    server.stdin.flush()


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGHUP", "SIGINT"])
async def test_a_signal_mid_wait_stops_the_server_leaving_no_ssh_or_tmux_process_behind(
    shared: TmuxServer, stop: str
) -> None:
    signum = getattr(signal, stop)
    with ExitStack() as stack:
        sshd = SshServer.start()  # its own: only this server's connections are on it
        stack.callback(sshd.kill)
        made = shared.new_session(None, *echoing("before-the-signal"))
        session, pane = made.name, made.pane
        await showing(shared, pane, "before-the-signal")
        others = set(clients(shared))
        tmp = stack.enter_context(private_tmpdir())
        env = {**os.environ, **remote_env(shared, sshd), "TMPDIR": str(tmp)}
        env.pop("TMUX", None)
        server = subprocess.Popen(
            [COMMAND, "--profile", "python"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,  # pipes, as an MCP client gives them
            stderr=subprocess.PIPE,
        )
        try:
            start_waiting(server, pane)
            # The wait's output client runs on the remote side, and this server's master and
            # control directory here: the check below can see each of them.
            await waiting_on(shared, session)
            running = ssh_of(sshd, tmp).values()
            assert any("[mux]" in what for what in running), running  # the master
            assert "sshd session" in running
            assert any(tmp.iterdir())  # the control directory
            server.send_signal(signum)
            with anyio.fail_after(DEADLINE):
                status = await anyio.to_thread.run_sync(server.wait)
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
        assert server.stderr is not None
        said = server.stderr.read().decode()
        assert status == 128 + signum, said
        assert "Traceback" not in said
        await eventually(lambda: not ssh_of(sshd, tmp), "ssh and sshd sessions to go")
        assert not any(tmp.iterdir())
        await eventually(lambda: set(clients(shared)) <= others, "the remote tmux clients to go")


async def test_a_signal_during_the_startup_check_still_stops_the_master(
    shared: TmuxServer,
) -> None:
    with ExitStack() as stack:
        sshd = SshServer.start()
        stack.callback(sshd.kill)
        tmp = stack.enter_context(private_tmpdir())
        started = sshd.tmpdir / "slow-tmux-started"
        slow = sshd.tmpdir / "slow-tmux"  # the remote is this machine: a tmux that hangs on -V
        slow.write_text(f"#!/bin/sh\necho $$ > {started}\nexec sleep {WAIT}\n")
        slow.chmod(0o755)
        env = {**os.environ, **remote_env(shared, sshd), "TMPDIR": str(tmp)}
        env |= {"LIBTMUX_TMUX_BIN": str(slow)}
        env.pop("TMUX", None)
        server = subprocess.Popen(
            [COMMAND, "--profile", "python"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        stack.callback(kill_if_running, server)
        await eventually(lambda: started.exists() and bool(started.read_text()), "the check")
        stack.callback(stop_pid, int(started.read_text()))  # the remote sleep
        assert any("[mux]" in argv for argv in ssh_under(tmp).values())  # the master runs
        server.send_signal(signal.SIGTERM)
        with anyio.fail_after(DEADLINE):
            status = await anyio.to_thread.run_sync(server.wait)
        assert status == 128 + signal.SIGTERM
        await eventually(lambda: not ssh_under(tmp), "ssh processes to go")
        assert not any(tmp.iterdir())
