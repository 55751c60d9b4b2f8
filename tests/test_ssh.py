"""tmux on another host: every tmux command of the server through one ssh connection.

The "other host" is this machine reached through a real OpenSSH server on 127.0.0.1
(scripts/lab/sshd.py), with keys made for the run and its host key the only one trusted.
The tmux server under test has its own TMUX_TMPDIR; the MCP server names its socket
by path, and the path is used on the remote side.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import AsyncIterator

import pytest

from scripts.lab import processes
from scripts.lab.client import COMMAND, Client, open_client
from scripts.lab.sshd import SshServer, free_port, private_tmpdir, ssh_under
from scripts.lab.tmuxserver import TmuxServer
from tests.test_python_waiting import echoing, new_session, showing, wait_while
from tests.test_transports import clients, eventually
from tmux_contract_mcp.handlers.tmux.transport.ssh import BadSshTarget, SshTarget, parse_target

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

TMUX = shutil.which("tmux") or "tmux"


def remote_env(tmux: TmuxServer, sshd: SshServer, target: str | None = None) -> dict[str, str]:
    """What a server under test needs to reach ``tmux`` through ``sshd``."""
    return {
        **tmux.env,
        "LIBTMUX_SOCKET_PATH": tmux.socket_path,
        "LIBTMUX_TMUX_BIN": TMUX,
        "TMUX_CONTRACT_MCP_SSH": target or sshd.target,
        "TMUX_CONTRACT_MCP_SSH_CONFIG": str(sshd.client_config),
    }


@pytest.fixture(scope="module")
async def remote(shared: TmuxServer, sshd: SshServer) -> AsyncIterator[Client]:
    """The server as if started in the shared server's main pane: a local server would
    take that pane for the caller's."""
    server_pid = shared.tmux("display-message", "-p", "#{pid}").strip()
    caller = {
        "TMUX": f"{shared.socket_path},{server_pid},0",
        "TMUX_PANE": shared.active_pane(),
    }
    async with open_client({**remote_env(shared, sshd), **caller}, "python") as opened:
        yield opened


def logins(sshd: SshServer) -> int:
    return (sshd.tmpdir / "sshd.log").read_text().count("Accepted publickey")


async def test_the_python_profile_lists_sessions_and_reads_a_pane_through_ssh(
    shared: TmuxServer, sshd: SshServer, remote: Client
) -> None:
    before = logins(sshd)
    session, pane = new_session(shared, *echoing("seen-over-ssh"))
    await showing(shared, pane, "seen-over-ssh")
    listed = await remote.ok("list_sessions")
    assert {"main", session} <= {row["session_name"] for row in listed["result"]}
    read = await remote.ok("capture_pane", {"pane_id": pane})
    assert "seen-over-ssh" in read["result"]
    # The calls went through sshd, over one multiplexed connection (at most the one
    # login of the module's first call: later calls reuse its master).
    assert logins(sshd) - before <= 1
    assert logins(sshd) >= 1
    # A remote pane is never the caller's, even the one TMUX and TMUX_PANE name (a local
    # server would answer true): caller identity is unknown (null) over ssh.
    panes = await remote.ok("list_panes", {"session_name": "main"})
    assert [row["is_caller"] for row in panes["result"]] == [None]


async def test_shell_syntax_in_a_value_reaches_the_remote_tmux_as_text(
    shared: TmuxServer, sshd: SshServer, remote: Client
) -> None:
    mark = sshd.tmpdir / "ran"
    name = f"a'; touch {mark}; 'b $(touch {mark}) `touch {mark}` \"c\" && d"
    await remote.ok("create_session", {"session_name": name})
    try:
        assert name in shared.lines("list-sessions", "-F", "#{session_name}")
        assert not mark.exists()
    finally:
        shared.tmux("kill-session", "-t", "=" + name)


async def test_a_wait_ends_on_output_that_arrives_through_ssh(
    shared: TmuxServer, remote: Client
) -> None:
    session, pane = new_session(shared, *echoing("before"))
    await showing(shared, pane, "before")
    arguments = {"pane_id": pane, "patterns": ["SSH-MARK"], "timeout": 15}
    found = await wait_while(remote, shared, session, arguments, "the SSH-MARK line")
    assert found["outcome"] == "matched"
    assert found["matched_lines"] == ["the SSH-MARK line"]
    assert found["saw_new_output"] is True
    # The output client that served the wait was a remote one: its parent is no process
    # of ours but the remote shell sshd started.
    assert all(processes.parent_of(pid) not in (None, 1) for pid, _ in clients(shared))


REFUSED = [
    ("-oProxyCommand=touch /tmp/x", "'-oProxyCommand=touch /tmp/x'"),
    ("-host", "'-host'"),
    ("-me@host", "'-me'"),
    ("host:0", "'0'"),
    ("host:65536", "'65536'"),
    ("host:+22", "'+22'"),
    ("ho st", "'ho st'"),
    ("host\nx", "'host\\nx'"),
    ("me;rm@host", "'me;rm'"),
    ("me@", "''"),
    ("[::1", "'[::1'"),
    ("::1", "'::1'"),
    ("[::1]x", "'x'"),
]


@pytest.mark.parametrize(("given", "named"), REFUSED)
def test_a_host_user_or_port_that_ssh_could_misread_is_refused(given: str, named: str) -> None:
    with pytest.raises(BadSshTarget) as refused:
        parse_target(given)
    assert named in str(refused.value)
    assert "[user@]host[:port]" in str(refused.value)


@pytest.mark.parametrize(
    ("given", "target"),
    [
        ("build-1.example.com", SshTarget("build-1.example.com")),
        ("deploy@10.0.0.7:2222", SshTarget("10.0.0.7", "deploy", 2222)),
        ("me.x_y@[2001:db8::1]:22", SshTarget("2001:db8::1", "me.x_y", 22)),
    ],
)
def test_a_plain_target_is_taken_apart(given: str, target: SshTarget) -> None:
    assert parse_target(given) == target


@pytest.mark.parametrize("how", ["option", "variable"])
def test_a_host_starting_with_a_dash_is_refused_at_startup_in_one_line(how: str) -> None:
    given = "-oProxyCommand=touch /tmp/x"
    done = subprocess.run(
        [COMMAND, "--profile", "python", *((f"--ssh={given}",) if how == "option" else ())],
        env={**os.environ, "TMUX_CONTRACT_MCP_SSH": given} if how == "variable" else None,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert f"names the host {given!r}" in lines[0]


async def test_an_unreachable_port_fails_with_one_line_naming_the_host(
    shared: TmuxServer, sshd: SshServer
) -> None:
    closed = free_port()
    env = remote_env(shared, sshd, f"127.0.0.1:{closed}")
    async with open_client(env, "python") as opened:
        message = await opened.error("list_sessions")
    assert f"ssh to 127.0.0.1 port {closed} failed" in message
    assert "Connection refused" in message
    assert len(message.strip().splitlines()) == 1


async def test_a_remote_tmux_too_old_is_named_with_its_host(
    shared: TmuxServer, sshd: SshServer
) -> None:
    old = sshd.tmpdir / "old-tmux"  # the remote is this machine: a tmux that says 3.1
    old.write_text("#!/bin/sh\necho 'tmux 3.1'\n")
    old.chmod(0o755)
    env = {**remote_env(shared, sshd), "LIBTMUX_TMUX_BIN": str(old)}
    async with open_client(env, "python") as opened:
        message = await opened.error("list_sessions")
    assert f"tmux 3.1 ('{old}' on 127.0.0.1 port {sshd.port}) is older than 3.2" in message


async def test_nothing_is_left_running_after_the_server_exits(shared: TmuxServer) -> None:
    sshd = SshServer.start()  # its own: the module's keeps the module client's connection
    try:
        await leaves_nothing_running(shared, sshd)
    finally:
        sshd.kill()


async def leaves_nothing_running(shared: TmuxServer, sshd: SshServer) -> None:
    session, pane = new_session(shared, *echoing("before"))
    await showing(shared, pane, "before")
    others = set(clients(shared))  # the module client's
    with private_tmpdir() as tmp:  # this server's control directory: no other's is there
        env = {**remote_env(shared, sshd), "TMPDIR": str(tmp)}
        async with open_client(env, "python") as opened:
            await opened.ok("list_sessions")
            arguments = {"pane_id": pane, "patterns": ["LEFT-MARK"], "timeout": 15}
            await wait_while(opened, shared, session, arguments, "LEFT-MARK")
            # The check sees what runs: the master, and the session it logged in.
            assert any("[mux]" in argv for argv in ssh_under(tmp).values())
            assert sshd.session_pids()
        await eventually(lambda: set(clients(shared)) <= others, "the remote tmux clients to go")
        await eventually(
            lambda: not ssh_under(tmp) and not sshd.session_pids(), "ssh and sshd sessions to go"
        )
        assert not any(tmp.iterdir())  # the control directory was removed
    server_pid = int(shared.tmux("display-message", "-p", "#{pid}").strip())
    expected = {server_pid, *(pid for pid, _ in others)}
    assert set(processes.tmux_processes(shared.name)) == expected
