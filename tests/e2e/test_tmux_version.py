"""What the command says on stderr at startup about the tmux it finds (the version check and
the calls refused over an old tmux: tests/tmux/test_tmux_version.py)."""

from __future__ import annotations

import subprocess

import pytest

from scripts.lab.client import COMMAND, open_in_process
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.tmux import tmux_answering_version as fake_tmux
from tmux_contract_mcp.handlers.tmux.transport.version import check_tmux


def startup_stderr(env: dict[str, str]) -> list[str]:
    """The lines the server writes on stderr from start to a clean exit (stdin an empty pipe)."""
    done = subprocess.run([COMMAND], input="", capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stderr.splitlines()


def test_a_tmux_older_than_the_minimum_is_named_in_one_line_at_startup(
    tmux: TmuxServer,
) -> None:
    binary, log = fake_tmux(tmux.tmpdir, "tmux 2.9")
    env = tmux.server_env(LIBTMUX_TMUX_BIN=str(binary))
    lines = startup_stderr(env)
    assert len(lines) == 1, lines
    assert lines[0].startswith("tmux-contract-mcp: tmux 2.9 ")
    assert str(binary) in lines[0] and "older than 3.2" in lines[0]
    assert "LIBTMUX_TMUX_BIN" in lines[0]
    assert log.read_text().splitlines() == [f"-S {tmux.socket_path} -V"]  # the check's own
    assert lines[0] == f"tmux-contract-mcp: {check_tmux(env).refusal}"


def test_a_supported_tmux_starts_without_a_word(tmux: TmuxServer) -> None:
    binary, log = fake_tmux(tmux.tmpdir, "tmux 3.2")
    assert startup_stderr(tmux.server_env(LIBTMUX_TMUX_BIN=str(binary))) == []
    assert log.read_text().splitlines() == [f"-S {tmux.socket_path} -V"]
    assert startup_stderr(tmux.server_env()) == []  # the real tmux on PATH


@pytest.mark.anyio
async def test_an_unreadable_version_is_warned_about_once_and_calls_still_run(
    tmux: TmuxServer,
) -> None:
    binary, log = fake_tmux(tmux.tmpdir, "tmux openbsd-7.4")
    env = tmux.server_env(LIBTMUX_TMUX_BIN=str(binary))
    lines = startup_stderr(env)
    assert len(lines) == 1, lines
    assert "cannot tell which tmux" in lines[0] and "'tmux openbsd-7.4'" in lines[0]
    assert "needs tmux 3.2 or newer" in lines[0]
    async with open_in_process(env, "python") as client:
        sessions = await client.ok("list_sessions", {})
    assert [s["session_name"] for s in sessions["result"]] == ["main"]
    assert any(not line.endswith("-V") for line in log.read_text().splitlines())


def test_a_missing_tmux_is_named_in_one_line_at_startup(tmux: TmuxServer) -> None:
    missing = tmux.tmpdir / "no-such-tmux"
    lines = startup_stderr(tmux.server_env(LIBTMUX_TMUX_BIN=str(missing)))
    assert len(lines) == 1, lines
    assert str(missing) in lines[0] and "cannot be run" in lines[0]
    assert "install tmux 3.2 or newer" in lines[0] and "LIBTMUX_TMUX_BIN" in lines[0]
