"""The page docs/ssh.md, "Remote tmux over ssh": its client entries are ones the command
takes, and several of them (one per host) run side by side."""

from __future__ import annotations

import getpass
import json
import re
import shlex
from pathlib import Path

import anyio
import pytest

from scripts.lab.client import open_client
from scripts.lab.sshd import SshServer
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.readme import body, table_rows
from tests.helpers.ssh import remote_env
from tmux_contract_mcp.cli import parser
from tmux_contract_mcp.handlers.tmux.transport.ssh import parse_target
from tmux_contract_mcp.handlers.tmux.transport.version import MINIMUM_TEXT

SECTION = body("docs/ssh.md")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", SECTION, re.S)


def configured() -> set[str]:
    """The settings the Configuration table names (one cell may name two)."""
    cells = [row[0] for row in table_rows(body("docs/configuration.md"))]
    return {name for cell in cells for name in re.findall(r"`([^`]+)`", cell)}


def test_each_claude_code_entry_is_a_command_line_the_server_takes() -> None:
    lines = [line for block in blocks("sh") for line in block.splitlines() if "mcp add" in line]
    assert len(lines) >= 2  # several hosts: one entry each
    names = set()
    for line in lines:
        words = shlex.split(line)
        assert words[:3] == ["claude", "mcp", "add"]
        names.add(words[3])
        command = words[words.index("--") + 1 :]
        assert command[0] == "tmux-contract-mcp"
        given = parser().parse_args(command[1:])
        assert given.ssh is not None
        parse_target(given.ssh)  # raises on a target the server would refuse
    assert len(names) == len(lines)


def test_each_claude_desktop_entry_is_one_the_server_takes() -> None:
    (block,) = blocks("json")
    servers = json.loads(block)["mcpServers"]
    assert len(servers) >= 2
    hosts = set()
    for entry in servers.values():
        assert entry["command"] == "tmux-contract-mcp"
        given = parser().parse_args(entry["args"])
        hosts.add(parse_target(given.ssh).host)
        assert set(entry.get("env", {})) <= configured()
    assert len(hosts) == len(servers)


def test_the_section_names_the_minimum_tmux_the_server_checks_for() -> None:
    assert f"tmux {MINIMUM_TEXT} or newer" in SECTION
    assert "`--ssh`, `TMUX_CONTRACT_MCP_SSH`" in body("docs/configuration.md")


@pytest.mark.anyio
async def test_two_entries_for_two_destinations_serve_side_by_side(
    shared: TmuxServer, sshd: SshServer
) -> None:
    """One process per destination: each with its own connection, both at once."""
    as_user = f"{getpass.getuser()}@{sshd.target}"
    async with (
        open_client(remote_env(shared, sshd), "python") as first,
        open_client(remote_env(shared, sshd, as_user), "rust") as second,
    ):
        listed = await first.ok("list_sessions")
        assert "main" in {row["session_name"] for row in listed["result"]}
        also = await second.ok("list_sessions")
        assert "main" in json.dumps(also)


@pytest.mark.anyio
async def test_an_unknown_host_key_fails_in_one_line_instead_of_asking(
    shared: TmuxServer, sshd: SshServer, tmp_path: Path
) -> None:
    """ssh's default for an unknown host is to ask; BatchMode makes it fail instead."""
    config = tmp_path / "ssh_config"
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    config.write_text(
        sshd.client_config.read_text()
        .replace(str(sshd.tmpdir / "known_hosts"), str(empty))
        .replace("StrictHostKeyChecking yes", "StrictHostKeyChecking ask")
    )
    env = {**remote_env(shared, sshd), "TMUX_CONTRACT_MCP_SSH_CONFIG": str(config)}
    with anyio.fail_after(60):
        async with open_client(env, "python") as opened:
            message = await opened.error("list_sessions")
    assert f"127.0.0.1 port {sshd.port}" in message
    assert "Host key verification failed" in message
    assert len(message.strip().splitlines()) == 1
