"""The server reads ``tmux -V`` when it starts and names a tmux too old to serve, in one line.

An old tmux cannot be installed next to the real one, so the old ones here are
tiny scripts set as ``LIBTMUX_TMUX_BIN``: they answer ``-V`` with an old
version, log every invocation, and hand anything else to the real tmux, so a
test that says only ``-V`` ran would see any other command.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.lab.client import open_in_process
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.tmux import tmux_answering_version as fake_tmux
from tmux_contract_mcp.handlers.tmux.transport.version import MINIMUM, check_tmux, parse_version


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


@pytest.mark.anyio
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
    async with open_in_process(env, "python") as client:
        messages = [await client.error(tool, arguments) for tool, arguments in calls]
    assert log.read_text().splitlines() == [f"-S {tmux.socket_path} -V"]  # nothing but -V ran
    assert tmux.state() == before
    for message in messages:
        assert message.startswith("tmux 2.9 "), message
        assert "older than 3.2, the oldest tmux this server supports" in message
    assert set(messages) == {check_tmux(env).refusal}  # the line said at startup


@pytest.mark.anyio
async def test_the_other_profiles_refuse_an_old_tmux_the_same_way(tmux: TmuxServer) -> None:
    binary, log = fake_tmux(tmux.tmpdir, "tmux 3.1c")
    env = tmux.server_env(LIBTMUX_TMUX_BIN=str(binary))
    async with open_in_process(env, "swift") as client:
        message = await client.error("list_sessions", {})
        assert message.startswith("tmux 3.1c "), message
    async with open_in_process(env, "rust") as client:
        sent = json.loads(await client.error("select_pane", {"pane": tmux.active_pane()}))
        assert sent["message"].startswith("tmux 3.1c "), sent
        assert sent["data"]["kind"] == "unsupported_version", sent
    assert log.read_text().splitlines() == [f"-S {tmux.socket_path} -V"] * 2


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
