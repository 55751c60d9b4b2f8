"""Through ssh, no value of a tool call meets a shell on either host.

The remote command line (which the remote user's login shell parses, whatever shell
that is) holds only words this process chose; the tmux command travels on ssh's
standard input as a control-mode-quoted line that ``source-file -`` reads back
literally. The e2e tests use the subprocess transport, so every command of the call
takes that path (the control client already reads its commands from standard input).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import pytest

from scripts.lab.client import Client, open_in_process
from scripts.lab.sshd import SshServer
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.ssh import remote_env
from tmux_contract_mcp.handlers.tmux.transport.process import run_fed
from tmux_contract_mcp.handlers.tmux.transport.quoting import command_line
from tmux_contract_mcp.handlers.tmux.transport.ssh import Remote, SshTarget, tmux_invocation

pytestmark = [pytest.mark.anyio]


VALUE = "v'a\"l\\u$(touch x)`e`;! ~ %"


def remote() -> Remote:
    """A Remote to build command lines with; ``close`` removes its control directory."""
    return Remote(SshTarget("build-1.example.com", "deploy", 2222), None)


@pytest.fixture
def made() -> Iterator[Remote]:
    one = remote()
    try:
        yield one
    finally:
        one.close()


def test_the_remote_command_line_holds_no_value_of_a_call(made: Remote) -> None:
    command = ["rename-session", "-t", "$1", "--", VALUE]
    argv, data = made.invocation(["tmux", "-S", "/run/tmux/sock"], command)
    assert argv[-2:] == ["--", "tmux -u -S /run/tmux/sock source-file -"]
    assert not any("touch" in word or "rename" in word for word in argv)
    assert data == command_line(command)  # the control client's quoting, one line


def test_a_command_that_starts_a_server_starts_it_before_reading_its_line(made: Remote) -> None:
    argv, data = made.invocation(["tmux", "-S", "/s"], ["new-session", "-d", "-s", VALUE])
    started = ["tmux", "-u", "-S", "/s", "start-server", ";", "source-file", "-"]
    assert shlex.split(argv[-1]) == started
    assert data is not None and data.startswith(b'"new-session" "-d" "-s" ')
    # -N forbids starting a server, and then none is started.
    argv, _ = made.invocation(["tmux", "-N", "-S", "/s"], ["new-session", "-d"])
    assert "start-server" not in argv[-1]


def test_here_the_command_is_argv_with_a_trailing_semicolon_escaped() -> None:
    argv, data = tmux_invocation(["tmux", "-S", "/s"], ["send-keys", "-l", "--", "ls;"], {})
    assert argv == ["tmux", "-S", "/s", "send-keys", "-l", "--", "ls\\;"]
    assert data is None


@pytest.fixture(scope="module")
async def one_shot(shared: TmuxServer, sshd: SshServer) -> AsyncIterator[Client]:
    """A server whose every command is a tmux process of its own, run through ssh."""
    env = {**remote_env(shared, sshd), "TMUX_CONTRACT_MCP_TRANSPORT": "subprocess"}
    async with open_in_process(env, "python") as opened:
        yield opened


async def test_a_value_full_of_shell_syntax_reaches_the_remote_tmux_exactly(
    shared: TmuxServer, sshd: SshServer, one_shot: Client
) -> None:
    mark = sshd.tmpdir / "ran-by-a-shell"
    name = f'a!b\'; touch {mark}; !x $(touch {mark}) `touch {mark}` "c" ~ end;'
    await one_shot.ok("create_session", {"session_name": name})
    rows = dict(
        line.split(" ", 1)
        for line in shared.lines("list-sessions", "-F", "#{session_id} #{session_name}")
    )
    made = [sid for sid, named in rows.items() if named == name]
    try:
        assert len(made) == 1, rows
        assert not mark.exists()
    finally:
        for sid in made:
            shared.tmux("kill-session", "-t", sid)


async def test_a_long_buffer_reaches_the_remote_tmux_byte_for_byte(
    shared: TmuxServer, one_shot: Client
) -> None:
    content = "".join(f"line {n}\t\\ ! ; #{{x}} $(y) é €\n" for n in range(800))  # ~26 KB
    loaded = await one_shot.ok("load_buffer", {"content": content})
    name = loaded["buffer_name"]
    try:
        assert shared.tmux("show-buffer", "-b", name) == content
    finally:
        shared.tmux("delete-buffer", "-b", name)


async def test_a_channel_wait_through_ssh_ends_when_its_channel_is_signalled(
    shared: TmuxServer, one_shot: Client
) -> None:
    channel = "done; $(touch x) 'q'"
    waited: dict[str, object] = {}

    async def wait() -> None:
        waited.update(await one_shot.ok("wait_for_channel", {"channel": channel, "timeout": 20}))

    with anyio.fail_after(25):
        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            # A signal with nobody waiting yet is kept for the next waiter: no race.
            shared.tmux("wait-for", "-S", channel)
    assert channel in str(waited["result"])


def test_no_agent_port_or_display_is_forwarded_whatever_the_ssh_configuration_says(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config"
    config.write_text(
        "Host *\n  ForwardAgent yes\n  ForwardX11 yes\n  LocalForward 8080 localhost:80\n"
    )
    forwarding = remote()
    forwarding.config = str(config)
    try:
        options = forwarding.options()
        # ssh itself says what it would do with these options and that file.
        done = subprocess.run(
            ["ssh", "-G", *options, "build-1.example.com"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
    finally:
        forwarding.close()
    said = dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
    assert said["forwardagent"] == "no"
    assert said["forwardx11"] == "no"
    assert said["clearallforwardings"] == "yes"
    # The bounds docs/ssh.md gives: 8 s to connect, a silent peer given up within 15 s.
    assert said["connecttimeout"] == "8"
    assert (said["serveraliveinterval"], said["serveralivecountmax"]) == ("5", "2")
    assert said["batchmode"] == "yes"


async def test_a_remote_tmux_that_finds_no_server_says_so_though_it_never_read_its_command(
    shared: TmuxServer, one_shot: Client
) -> None:
    """tmux exits at once when nothing listens, before it reads the command on stdin."""
    for _ in range(3):  # the race (exit before the write) is lost often, not always
        message = await one_shot.error("list_sessions", {"socket_name": "nothing-listens-here"})
        assert "no tmux server is running on" in message
        assert "nothing-listens-here" in message


async def test_a_process_that_exits_without_reading_its_stdin_is_answered_not_an_error() -> None:
    """More than a pipe holds, so the write always meets a closed pipe."""
    done = await run_fed(["sh", "-c", "echo gone >&2; exit 3"], b"x" * 1_000_000, dict(os.environ))
    assert (done.returncode, done.stdout, done.stderr) == (3, b"", b"gone\n")
    fed = await run_fed(["wc", "-c"], b"y" * 1_000_000, dict(os.environ))
    assert (fed.returncode, fed.stdout.strip()) == (0, b"1000000")


def test_the_control_socket_fits_in_a_socket_path_even_under_a_long_tmpdir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ssh refuses a ControlPath longer than a unix socket path can be."""
    deep = tmp_path / ("d" * 70)
    deep.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    made = remote()
    try:
        assert os.path.dirname(made.control_dir) == "/tmp"
        assert len(os.path.join(made.control_dir, "c" * 40)) + 18 < 104
    finally:
        made.close()
    short = Path(tempfile.mkdtemp(prefix="s", dir="/tmp"))  # a short TMPDIR is kept
    try:
        monkeypatch.setattr(tempfile, "tempdir", str(short))
        made = remote()
        assert made.control_dir.startswith(f"{short}/tcm-mux-")
        made.close()
    finally:
        shutil.rmtree(short, ignore_errors=True)
