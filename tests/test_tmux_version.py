"""The server reads ``tmux -V`` when it starts and names a tmux too old to serve, in one line.

An old tmux cannot be installed next to the real one, so the old ones here are
tiny scripts set as ``LIBTMUX_TMUX_BIN``: they answer ``-V`` with an old
version, log every invocation, and hand anything else to the real tmux, so a
test that says only ``-V`` ran would see any other command.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.lab.client import COMMAND, open_client
from scripts.lab.tmuxserver import TmuxServer
from tmux_contract_mcp.handlers.tmux.transport.version import MINIMUM, check_tmux, parse_version

REAL_TMUX = shutil.which("tmux")


@pytest.mark.parametrize(
    ("output", "text", "release"),
    [
        ("tmux 3.3a\n", "3.3a", (3, 3)),
        ("tmux 3.5", "3.5", (3, 5)),
        ("tmux 3.2", "3.2", (3, 2)),
        ("tmux next-3.4\n", "next-3.4", (3, 4)),
        ("tmux 3.4-rc", "3.4-rc", (3, 4)),
        ("tmux 10.0", "10.0", (10, 0)),
        ("tmux master\n", "master", None),
    ],
)
def test_supported_versions_are_read_as_their_release(
    output: str, text: str, release: tuple[int, int] | None
) -> None:
    version = parse_version(output)
    assert version is not None
    assert (version.text, version.release) == (text, release)
    assert version.supported


@pytest.mark.parametrize(
    ("output", "release"), [("tmux 2.9", (2, 9)), ("tmux 3.1c", (3, 1)), ("tmux 1.8\n", (1, 8))]
)
def test_releases_before_the_minimum_are_not_supported(
    output: str, release: tuple[int, int]
) -> None:
    version = parse_version(output)
    assert version is not None
    assert version.release == release < MINIMUM
    assert not version.supported


@pytest.mark.parametrize(
    "output", ["", "tmux", "tmux openbsd-7.4", "screen 4.09", "3.3a", "tmux 3", "tmux 3.3a extra"]
)
def test_output_that_is_not_a_tmux_version_is_not_read_as_one(output: str) -> None:
    assert parse_version(output) is None


def fake_tmux(directory: Path, version_answer: str) -> tuple[Path, Path]:
    """A tmux binary answering ``-V`` with ``version_answer``; anything else runs the real one."""
    assert REAL_TMUX is not None
    log = directory / "fake-tmux.log"
    script = directory / "fake-tmux"
    script.write_text(
        "#!/bin/sh\n"
        f"printf '%s\\n' \"$*\" >>'{log}'\n"
        'for arg in "$@"; do\n'
        f"  if [ \"$arg\" = -V ]; then printf '%s\\n' '{version_answer}'; exit 0; fi\n"
        "done\n"
        f"exec '{REAL_TMUX}' \"$@\"\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, log


def startup_stderr(env: dict[str, str]) -> list[str]:
    """The lines the server writes on stderr from start to a clean exit (stdin an empty pipe)."""
    done = subprocess.run([COMMAND], input="", capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stderr.splitlines()


@pytest.mark.e2e
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


@pytest.mark.anyio
@pytest.mark.e2e
async def test_every_call_to_an_old_tmux_answers_that_line_and_runs_nothing(
    tmux: TmuxServer,
) -> None:
    binary, log = fake_tmux(tmux.tmpdir, "tmux 2.9")
    env = tmux.server_env(LIBTMUX_TMUX_BIN=str(binary))
    before = tmux.state()
    calls = [
        ("list_sessions", {}),
        ("list_servers", {}),
        ("capture_pane", {}),
        ("send_keys", {"keys": "echo hi"}),
        ("run_command", {"command": "true"}),
    ]
    async with open_client(env, "python") as client:
        messages = [await client.error(tool, arguments) for tool, arguments in calls]
    assert log.read_text().splitlines() == [f"-S {tmux.socket_path} -V"]  # nothing but -V ran
    assert tmux.state() == before
    for message in messages:
        assert message.startswith("tmux 2.9 "), message
        assert "older than 3.2, the oldest tmux this server supports" in message
    assert set(messages) == {check_tmux(env).refusal}  # the line said at startup


@pytest.mark.anyio
@pytest.mark.e2e
async def test_the_other_profiles_refuse_an_old_tmux_the_same_way(tmux: TmuxServer) -> None:
    binary, log = fake_tmux(tmux.tmpdir, "tmux 3.1c")
    env = tmux.server_env(LIBTMUX_TMUX_BIN=str(binary))
    async with open_client(env, "swift") as client:
        message = await client.error("list_sessions", {})
        assert message.startswith("tmux 3.1c "), message
    async with open_client(env, "rust") as client:
        sent = json.loads(await client.error("select_pane", {"pane": tmux.active_pane()}))
        assert sent["message"].startswith("tmux 3.1c "), sent
        assert sent["data"]["kind"] == "unsupported_version", sent
    assert log.read_text().splitlines() == [f"-S {tmux.socket_path} -V"] * 2


@pytest.mark.e2e
def test_a_supported_tmux_starts_without_a_word(tmux: TmuxServer) -> None:
    binary, log = fake_tmux(tmux.tmpdir, "tmux 3.2")
    assert startup_stderr(tmux.server_env(LIBTMUX_TMUX_BIN=str(binary))) == []
    assert log.read_text().splitlines() == [f"-S {tmux.socket_path} -V"]
    assert startup_stderr(tmux.server_env()) == []  # the real tmux on PATH


@pytest.mark.anyio
@pytest.mark.e2e
async def test_an_unreadable_version_is_warned_about_once_and_calls_still_run(
    tmux: TmuxServer,
) -> None:
    binary, log = fake_tmux(tmux.tmpdir, "tmux openbsd-7.4")
    env = tmux.server_env(LIBTMUX_TMUX_BIN=str(binary))
    lines = startup_stderr(env)
    assert len(lines) == 1, lines
    assert "cannot tell which tmux" in lines[0] and "'tmux openbsd-7.4'" in lines[0]
    assert "needs tmux 3.2 or newer" in lines[0]
    async with open_client(env, "python") as client:
        sessions = await client.ok("list_sessions", {})
    assert [s["session_name"] for s in sessions["result"]] == ["main"]
    assert any(not line.endswith("-V") for line in log.read_text().splitlines())


@pytest.mark.e2e
def test_a_missing_tmux_is_named_in_one_line_at_startup(tmux: TmuxServer) -> None:
    missing = tmux.tmpdir / "no-such-tmux"
    lines = startup_stderr(tmux.server_env(LIBTMUX_TMUX_BIN=str(missing)))
    assert len(lines) == 1, lines
    assert str(missing) in lines[0] and "cannot be run" in lines[0]
    assert "install tmux 3.2 or newer" in lines[0] and "LIBTMUX_TMUX_BIN" in lines[0]


def test_the_setup_check_exits_non_zero_for_an_old_tmux(tmp_path: Path) -> None:
    binary, _ = fake_tmux(tmp_path, "tmux 2.9")
    check = [sys.executable, "-m", "tmux_contract_mcp.handlers.tmux.transport.version"]
    old = subprocess.run(
        check,
        capture_output=True,
        text=True,
        env={**os.environ, "LIBTMUX_TMUX_BIN": str(binary), "TMUX_TMPDIR": str(tmp_path)},
        timeout=60,
    )
    assert old.returncode == 1
    assert old.stdout == ""
    assert old.stderr.startswith("tmux 2.9 ") and "older than 3.2" in old.stderr
    current = subprocess.run(check, capture_output=True, text=True, env={**os.environ}, timeout=60)
    assert current.returncode == 0, current.stderr
    assert current.stdout.startswith("tmux ") and "supported" in current.stdout
