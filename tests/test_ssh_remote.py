"""Where things are, with tmux on another host: sockets, directories, the dedicated
server, and the self-protection guard, all resolved on the host ssh reaches.

The other host is this machine through the lab's sshd, set up like a remote user whose
tmux servers run with the lab's ``TMUX_TMPDIR`` (sshd ``SetEnv``), and whose tmux is
``tmux-logged`` writing to the lab's log, so a test sees every tmux command that ran
there. The MCP servers under test are given another, empty ``TMUX_TMPDIR`` of their
own: a socket looked up from the local environment would be found nowhere, and a
relative directory is taken from the remote user's home, not from the local working
directory.
"""

from __future__ import annotations

import json
import os
import pwd
import secrets
import shlex
import shutil
import socket
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from scripts.lab.client import COMMAND, Client, open_client
from scripts.lab.sentlog import LOGGED_TMUX
from scripts.lab.sshd import SshServer
from scripts.lab.tmuxserver import TmuxServer
from tests.test_caller_identity import server_in_pane
from tests.test_transports import eventually
from tmux_contract_mcp.handlers.tmux.errors import Refused
from tmux_contract_mcp.handlers.tmux.objects.server import Tmux
from tmux_contract_mcp.handlers.tmux.policy.guard import Guard
from tmux_contract_mcp.handlers.tmux.transport.identity import Host
from tmux_contract_mcp.handlers.tmux.transport.sockets import default_socket
from tmux_contract_mcp.handlers.tmux.transport.ssh import remote_for

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

TMUX = shutil.which("tmux") or "tmux"
DEDICATED = "libtmux-mcp"
ALL_TOOLSETS = "inspect,manage,execute,teardown"


@pytest.fixture(scope="module")
def sshd(shared: TmuxServer) -> Iterator[SshServer]:
    """The remote user's sessions see the lab's tmux directory and log their tmux."""
    server = SshServer.start(
        {
            "TMUX_TMPDIR": str(shared.tmpdir),
            "TCM_REAL_TMUX": TMUX,
            "TCM_TMUX_LOG": str(shared.sent_log),
        }
    )
    try:
        yield server
    finally:
        server.kill()


def over_ssh(shared: TmuxServer, sshd: SshServer, **extra: str) -> dict[str, str]:
    """An MCP server's environment: the lab's tmux through ssh, and a local TMUX_TMPDIR
    where no socket is."""
    elsewhere = sshd.tmpdir / "local-tmux-tmpdir"
    elsewhere.mkdir(exist_ok=True)
    env = {
        **shared.server_env(),
        "TMUX_TMPDIR": str(elsewhere),
        "TMUX_CONTRACT_MCP_SSH": sshd.target,
        "TMUX_CONTRACT_MCP_SSH_CONFIG": str(sshd.client_config),
        **extra,
    }
    return {name: value for name, value in env.items() if value}


def host_of(sshd: SshServer) -> str:
    return f"on host 127.0.0.1 port {sshd.port}"


@pytest.fixture(scope="module")
async def python(shared: TmuxServer, sshd: SshServer) -> AsyncIterator[Client]:
    """The python profile, its socket named by LIBTMUX_SOCKET."""
    async with open_client(over_ssh(shared, sshd), "python") as opened:
        yield opened


@pytest.fixture(scope="module")
async def rust(shared: TmuxServer, sshd: SshServer) -> AsyncIterator[Client]:
    """The rust profile, its socket named by LIBTMUX_SOCKET."""
    async with open_client(over_ssh(shared, sshd, LIBTMUX_TOOLSETS=ALL_TOOLSETS), "rust") as c:
        yield c


@pytest.fixture(scope="module")
def beside(shared: TmuxServer) -> Iterator[TmuxServer]:
    """A second server in the lab's tmux directory, for ``socket_name``."""
    server = TmuxServer.start(beside=shared)
    try:
        yield server
    finally:
        server.kill()


HOME = pwd.getpwuid(os.getuid()).pw_dir  # the remote user's home: sshd starts there


def home_relative(path: Path) -> str:
    """``path`` relative to the remote user's home."""
    return os.path.relpath(path, HOME)


def sessions(server: TmuxServer) -> set[str]:
    return set(server.lines("list-sessions", "-F", "#{session_name}"))


def nothing_ran(shared: TmuxServer, mark: Any) -> None:
    reached = [str(item) for item in shared.sent_since(mark) if item.reaches_a_server]
    assert reached == []


# --- sockets ----------------------------------------------------------------------------


async def test_a_socket_name_is_found_in_the_remote_users_tmux_directory(
    shared: TmuxServer, sshd: SshServer, python: Client, rust: Client
) -> None:
    assert not os.path.exists(sshd.tmpdir / "local-tmux-tmpdir" / f"tmux-{os.getuid()}")
    mark = shared.mark()
    listed = await python.ok("list_sessions")
    assert "main" in {row["session_name"] for row in listed["result"]}
    assert any(item.reaches_a_server for item in shared.sent_since(mark))  # the log sees ssh
    info = await python.ok("get_server_info")
    assert info["socket_path"] == shared.socket_path
    assert info["socket_name"] == shared.name
    assert "main" in {row["name"] for row in (await rust.ok("list_sessions"))["sessions"]}


async def test_an_unknown_target_names_the_socket_and_the_host(
    shared: TmuxServer, sshd: SshServer, python: Client, rust: Client
) -> None:
    for client, arguments in ((python, {"pane_id": "%9999"}), (rust, {"pane": "%9999"})):
        message = await client.error("get_pane_info", arguments)
        assert "%9999" in message
        assert f"'{shared.name}' ({shared.socket_path}) {host_of(sshd)}" in message, message


async def test_the_socket_name_argument_reaches_another_server_on_the_remote(
    beside: TmuxServer, python: Client
) -> None:
    listed = await python.ok("list_sessions", {"socket_name": beside.name})
    assert [row["session_name"] for row in listed["result"]] == ["main"]
    assert [row["session_id"] for row in listed["result"]] == beside.lines(
        "list-sessions", "-F", "#{session_id}"
    )
    info = await python.ok("get_server_info", {"socket_name": beside.name})
    assert info["socket_path"] == beside.socket_path


def test_a_socket_path_is_a_path_of_the_remote_and_the_local_tmux_is_not_the_default(
    shared: TmuxServer, sshd: SshServer
) -> None:
    env = over_ssh(shared, sshd, LIBTMUX_SOCKET="")
    by_path = default_socket({**env, "LIBTMUX_SOCKET_PATH": "/there/sock"})
    assert (by_path.path, str(by_path)) == ("/there/sock", f"socket /there/sock {host_of(sshd)}")
    # TMUX names a tmux of this machine: on the remote, 'default' is the default.
    inside = {**env, "TMUX": f"{shared.socket_path},1,0", "TMUX_PANE": "%0"}
    assert default_socket(inside).path == f"{shared.tmpdir}/tmux-{os.getuid()}/default"


def test_a_remote_temporary_file_is_private_and_removed_afterwards(
    shared: TmuxServer, sshd: SshServer
) -> None:
    remote = remote_for(over_ssh(shared, sshd))
    assert remote is not None
    with remote.temporary_file("set -g @x 1\n") as path:
        assert Path(path).read_text() == "set -g @x 1\n"
        assert Path(path).stat().st_mode & 0o777 == 0o600
    assert not os.path.exists(path)


# --- start directories ------------------------------------------------------------------


async def test_a_directory_missing_on_the_remote_is_refused_naming_the_host(
    shared: TmuxServer, sshd: SshServer, python: Client, rust: Client
) -> None:
    here = "tests"  # a directory of the local working directory, not of the remote home
    assert os.path.isdir(here)
    assert not os.path.exists(Path(HOME) / here)
    before = sessions(shared)
    for client, arguments in (
        (python, {"session_name": "nowhere-py", "start_directory": here}),
        (rust, {"name": "nowhere-rs", "start_directory": here}),
        (rust, {"name": "nowhere-rs", "start_directory": "/no/such/tcm-directory"}),
    ):
        mark = shared.mark()
        message = await client.error("create_session", arguments)
        assert "start_directory" in message
        assert f"is not an existing directory {host_of(sshd)}" in message, message
        nothing_ran(shared, mark)
        assert sessions(shared) == before


async def test_a_directory_of_the_remote_is_where_the_new_shell_starts(
    shared: TmuxServer, sshd: SshServer, python: Client, rust: Client
) -> None:
    there = sshd.tmpdir / "work dir"
    there.mkdir()
    given = home_relative(there)
    assert not os.path.isdir(given)  # locally, from our working directory, it is nowhere
    await python.ok("create_session", {"session_name": "there-py", "start_directory": given})
    await rust.ok("create_session", {"name": "there-rs", "start_directory": given})
    await python.ok(
        "create_session", {"session_name": "there-home", "start_directory": f"~/{given}"}
    )
    # Without a directory the shell starts where tmux puts it there (the ssh login's
    # directory, the home), not in this process's working directory.
    await rust.ok("create_session", {"name": "home-rs"})
    assert shared.tmux("display-message", "-p", "-t", "=home-rs:", "#{session_path}") == (
        f"{HOME}\n"
    )
    shared.tmux("kill-session", "-t", "=home-rs")
    for name in ("there-py", "there-rs", "there-home"):
        assert shared.tmux("display-message", "-p", "-t", f"={name}:", "#{session_path}") == (
            f"{there}\n"
        )
        shared.tmux("kill-session", "-t", f"={name}")


async def test_a_pipe_file_is_a_file_of_the_remote(
    shared: TmuxServer, sshd: SshServer, python: Client
) -> None:
    pane = shared.active_pane()
    mark = shared.mark()
    message = await python.error("pipe_pane", {"pane_id": pane, "output_path": "tests/x.log"})
    assert "output_path" in message
    assert f"is in a directory that does not exist ({HOME}/tests) {host_of(sshd)}" in message
    nothing_ran(shared, mark)
    there = sshd.tmpdir / "piped.log"
    given = home_relative(there)
    assert not os.path.isdir(os.path.dirname(given))  # nowhere from our working directory
    await python.ok("pipe_pane", {"pane_id": pane, "output_path": given})
    try:
        await eventually(there.exists, "the pipe's file on the remote")
    finally:
        await python.ok("pipe_pane", {"pane_id": pane})


async def test_list_servers_lists_the_sockets_of_the_remote_tmux_directory(
    shared: TmuxServer, beside: TmuxServer, python: Client
) -> None:
    listed = await python.ok("list_servers")
    rows = {row["socket_path"]: row for row in listed["result"]}
    for server in (shared, beside):
        assert rows[server.socket_path]["socket_name"] == server.name
        assert rows[server.socket_path]["is_alive"] is True


# --- the dedicated server of the rust family --------------------------------------------


def dedicated(shared: TmuxServer, *args: str) -> str:
    """A tmux command on the lab's dedicated socket, by hand (not through the server)."""
    env = {**os.environ, "TMUX_TMPDIR": str(shared.tmpdir)}
    env.pop("TMUX", None)
    done = subprocess.run(
        [TMUX, "-L", DEDICATED, *args], capture_output=True, text=True, env=env, timeout=20
    )
    return done.stdout if done.returncode == 0 else f"failed: {done.stderr.strip()}"


async def test_the_dedicated_server_is_started_and_killed_on_the_remote(
    shared: TmuxServer, sshd: SshServer
) -> None:
    env = over_ssh(shared, sshd, LIBTMUX_SOCKET="")
    path = f"{shared.tmpdir}/tmux-{os.getuid()}/{DEDICATED}"
    assert dedicated(shared, "list-sessions").startswith("failed")
    try:
        async with open_client(env, "rust") as client:
            owner = dedicated(shared, "show-options", "-gqv", "@libtmux_mcp_owner").strip()
            assert len(owner) == 32  # the nonce reached the remote tmux, through env
            assert dedicated(shared, "show-options", "-gv", "exit-empty").strip() == "off"
            made = await client.ok("create_session", {"name": "on-dedicated"})
            assert made["name"] == "on-dedicated"
            assert dedicated(shared, "list-sessions", "-F", "#{session_name}") == "on-dedicated\n"
            connection = (await client.read("tmux://capabilities", "capabilities"))["connection"]
            assert (connection["resolvedSocketPath"], connection["serverState"]) == (
                path,
                "created",
            )
            # How a person looks at it: through ssh, the tmux command quoted for that host.
            *ssh, inner = shlex.split(connection["attachCommand"])
            assert ssh == ["ssh", "-t", "-p", str(sshd.port), "127.0.0.1", "--"]
            assert shlex.split(inner) == [str(LOGGED_TMUX), "-N", "-L", DEDICATED, "attach"]
        # Gone at the end: it was still this process's server.
        assert dedicated(shared, "list-sessions").startswith("failed")
    finally:
        dedicated(shared, "kill-server")


async def test_a_config_file_is_a_file_of_the_remote(shared: TmuxServer, sshd: SshServer) -> None:
    config = sshd.tmpdir / "there.conf"
    env = over_ssh(shared, sshd, LIBTMUX_TMUX_CONFIG=str(config))
    done = subprocess.run(
        [COMMAND, "--profile", "rust"],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert f"LIBTMUX_TMUX_CONFIG names no file {host_of(sshd)}: {config}" in done.stderr


# --- the guard --------------------------------------------------------------------------


def test_a_server_elsewhere_with_the_same_path_and_pid_is_not_ours(
    shared: TmuxServer,
) -> None:
    pid = shared.tmux("display-message", "-p", "#{pid}").strip()
    host = Host.from_environ({"TMUX": f"{shared.socket_path},{pid},0", "TMUX_PANE": "%0"})
    assert host.same_server_here(socket.gethostname(), shared.socket_path, pid)
    assert not host.same_server_here(f"not-{socket.gethostname()}", shared.socket_path, pid)
    assert not host.same_server_here(socket.gethostname(), shared.socket_path + "x", pid)
    assert not host.same_server_here(socket.gethostname(), shared.socket_path, pid + "0")


# Per profile: the calls the guard must refuse, and a kill of the spare session.
GUARDED: dict[str, tuple[list[tuple[str, dict[str, Any]]], tuple[str, dict[str, Any]]]] = {
    "python": (
        [
            ("kill_server", {}),
            ("kill_session", {"session_name": "main"}),
            ("kill_pane", {"pane_id": "HOME"}),
        ],
        ("kill_session", {"session_name": "SPARE"}),
    ),
    "rust": (
        [("kill_session", {"session": "main"}), ("kill_pane", {"pane": "HOME"})],
        ("kill_session", {"session": "SPARE"}),
    ),
}


def message(result: dict[str, Any]) -> str:
    """An error's message: the text, or the rust family's JSON envelope's message."""
    text = " ".join(item["text"] for item in result["content"])
    return str(json.loads(text)["message"]) if text.startswith("{") else text


def filled(arguments: dict[str, Any], home: str, spare: str) -> dict[str, Any]:
    return {
        key: {"HOME": home, "SPARE": spare}.get(value, value) for key, value in arguments.items()
    }


@pytest.mark.parametrize("profile", sorted(GUARDED))
def test_inside_a_pane_of_the_remote_server_the_guard_refuses_it(
    shared: TmuxServer, sshd: SshServer, beside: TmuxServer, profile: str
) -> None:
    home = beside.active_pane()
    spare = f"spare-{secrets.token_hex(3)}"
    beside.tmux("new-session", "-d", "-s", spare)
    env = over_ssh(beside, sshd, LIBTMUX_TOOLSETS=ALL_TOOLSETS)
    refused, allowed = GUARDED[profile]
    with server_in_pane(beside, home, profile, **env) as peer:
        before = sessions(beside)
        for tool, arguments in refused:
            result = peer.call(tool, filled(arguments, home, spare))
            text = message(result)
            assert result.get("isError") and text.startswith("Refused"), (tool, text)
            assert host_of(sshd) in text
            assert sessions(beside) == before
        if profile == "python":  # a remote pane is never the caller's, even this one
            panes = peer.call("list_panes", {"session_name": "main"})["structuredContent"]
            assert [row["is_caller"] for row in panes["result"]] == [None]
        # The server is the caller's; a session it does not run in may go.
        tool, arguments = allowed
        killed = peer.call(tool, filled(arguments, home, spare))
        assert not killed.get("isError"), killed
        assert sessions(beside) == before - {spare}


async def test_the_guard_takes_a_remote_server_for_its_own_only_on_this_host(
    shared: TmuxServer, sshd: SshServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through loopback the socket file is the same file here and there, so only a host
    name that differs tells the rule apart from a local file comparison; a real second
    host is what the lab cannot give, so this machine's name is what changes."""
    pid = shared.tmux("display-message", "-p", "#{pid}").strip()
    environ = {
        **over_ssh(shared, sshd),
        "TMUX": f"{shared.socket_path},{pid},0",
        "TMUX_PANE": shared.active_pane(),
    }
    tmux = Tmux(environ)
    try:
        guard = Guard(tmux.server(), environ)
        with pytest.raises(Refused) as refused:
            await guard.kill_server()
        assert host_of(sshd) in refused.value.message
        monkeypatch.setattr(socket, "gethostname", lambda: "elsewhere.example")
        await guard.kill_server()  # another host's server: nothing of ours to protect
        await guard.kill_session("$0", "main")
    finally:
        await tmux.aclose()
