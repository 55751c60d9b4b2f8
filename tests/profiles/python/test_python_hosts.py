"""Several hosts from one python-profile server (handlers/tmux/transport/hosts.py,
``Tmux.host``, ``ServerTools.list_servers``): ``socket_name`` ``host/socket`` reaches a
socket on a host the configuration file names, through the lab sshd's host aliases, each
with tmux servers of its own (its own ``TMUX_TMPDIR``)."""

from __future__ import annotations

import json
import os
import signal
import warnings
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPDeprecationWarning

from scripts.lab import processes
from scripts.lab.client import Client, open_in_process
from scripts.lab.sshd import SshServer, free_port
from scripts.lab.tmuxserver import TMUX, TmuxServer
from tests.helpers.waiting import eventually
from tests.plugin import ALL_TOOLSETS

pytestmark = pytest.mark.anyio


@dataclass
class Lab:
    """The local server, two hosts' servers (alpha, beta) and the configuration file."""

    local: TmuxServer
    alpha: TmuxServer
    beta: TmuxServer
    sshd: SshServer
    config: Path

    def env(self) -> dict[str, str]:
        return self.local.server_env(
            LIBTMUX_TMUX_BIN=TMUX,
            LIBTMUX_TOOLSETS=ALL_TOOLSETS,
            TMUX_CONTRACT_MCP_SSH_CONFIG=str(self.sshd.client_config),
        )


@pytest.fixture(scope="module")
def lab(sshd: SshServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    local, alpha, beta = TmuxServer.start(), TmuxServer.start(), TmuxServer.start()
    try:
        sshd.alias("alpha", {"TMUX_TMPDIR": str(alpha.tmpdir)})
        sshd.alias("beta", {"TMUX_TMPDIR": str(beta.tmpdir)})
        sshd.alias("down", {}, port=free_port())
        config = tmp_path_factory.mktemp("reach") / "reach.toml"
        config.write_text(
            "\n".join(f'[hosts.{name}]\nssh = "{name}"' for name in ("alpha", "beta", "down"))
            + "\n[connections]\nlist_seconds = 20\n"
        )
        yield Lab(local, alpha, beta, sshd, config)
    finally:
        for server in (local, alpha, beta):
            server.kill()


@pytest.fixture(scope="module")
async def across(lab: Lab) -> AsyncIterator[Client]:
    async with open_in_process(lab.env(), "python", "--config", str(lab.config)) as opened:
        yield opened


def ssh_to(alias: str) -> list[int]:
    """The ssh processes (clients and master) of this test run reaching ``alias``."""
    return [
        pid
        for pid in processes.pids()
        if (argv := processes.cmdline(pid))
        and argv[0].startswith("ssh")
        and alias in argv
        and processes.alive(pid)
    ]


async def test_calls_reach_each_host_by_socket_name_in_one_session(
    lab: Lab, across: Client
) -> None:
    alpha = lab.alpha.new_session("on-alpha")
    made = await across.ok(
        "create_session", {"session_name": "made-on-beta", "socket_name": f"beta/{lab.beta.name}"}
    )
    listed = await across.ok("list_sessions", {"socket_name": f"alpha/{lab.alpha.name}"})
    local = await across.ok("list_sessions")
    assert made["session_name"] == "made-on-beta"
    assert "made-on-beta" in lab.beta.lines("list-sessions", "-F", "#{session_name}")
    assert "on-alpha" in [row["session_name"] for row in listed["result"]]
    assert "made-on-beta" not in [row["session_name"] for row in listed["result"]]
    assert "on-alpha" not in [row["session_name"] for row in local["result"]]
    captured = await across.ok(
        "capture_pane", {"pane_id": alpha.pane, "socket_name": f"alpha/{lab.alpha.name}"}
    )
    assert isinstance(captured["result"], str)


async def test_a_host_the_file_does_not_name_is_refused(lab: Lab, across: Client) -> None:
    mark = lab.local.mark()
    refusal = await across.error("list_sessions", {"socket_name": "gamma/default"})
    lab.local.assert_nothing_sent_since(mark, "an unknown host")
    assert "names host 'gamma', which this server's configuration file does not name" in refusal
    assert "configured hosts: alpha, beta, down" in refusal


async def test_list_servers_lists_every_host_and_one_row_for_a_host_that_is_down(
    lab: Lab, across: Client
) -> None:
    result = await across.call("list_servers")
    assert not result.is_error
    assert result.structured_content is not None
    rows = {row["socket_name"]: row for row in result.structured_content["result"]}
    assert rows[f"alpha/{lab.alpha.name}"]["is_alive"] is True
    assert rows[f"beta/{lab.beta.name}"]["is_alive"] is True
    assert rows[lab.local.name]["is_alive"] is True
    assert rows["down/"] == {
        "is_alive": False,
        "socket_name": "down/",
        "socket_path": None,
        "session_count": 0,
        "version": None,
    }
    notes = [block.text for block in result.content[1:] if block.type == "text"]
    assert len(notes) == 1 and notes[0].startswith("host down is unreachable: ssh to down")


async def test_a_host_dropped_mid_wait_fails_that_call_naming_it_and_the_next_reconnects(
    lab: Lab, across: Client
) -> None:
    pane = lab.alpha.new_session().pane
    beta = lab.beta.new_session().pane
    socket = f"alpha/{lab.alpha.name}"
    await across.ok("list_panes", {"socket_name": socket})  # connected
    outcome: dict[str, str] = {}

    async def wait() -> None:
        outcome["text"] = await across.error(
            "wait_for_text",
            {"pane_id": pane, "patterns": ["never-printed"], "timeout": 20, "socket_name": socket},
        )

    async with anyio.create_task_group() as group:
        group.start_soon(wait)
        await anyio.sleep(1.0)  # the wait is under way
        lab.sshd.point("alpha", free_port())  # the host goes away: no reconnecting
        for pid in ssh_to("alpha"):
            os.kill(pid, signal.SIGKILL)
    lab.sshd.point("alpha", lab.sshd.port)  # back
    assert outcome["text"].startswith("ssh to alpha failed: ")
    read = await across.ok(
        "capture_pane", {"pane_id": beta, "socket_name": f"beta/{lab.beta.name}"}
    )
    assert isinstance(read["result"], str)
    again = await across.ok("list_panes", {"socket_name": socket})
    assert pane in [row["pane_id"] for row in again["result"]]


async def test_closing_the_server_leaves_no_ssh_process_of_its_hosts(
    lab: Lab, tmp_path: Path
) -> None:
    lab.sshd.alias("solo", {"TMUX_TMPDIR": str(lab.beta.tmpdir)})
    config = tmp_path / "solo.toml"
    config.write_text('[hosts.solo]\nssh = "solo"\n')
    async with open_in_process(lab.env(), "python", "--config", str(config)) as opened:
        await opened.ok("list_sessions", {"socket_name": f"solo/{lab.beta.name}"})
        assert ssh_to("solo")
    assert ssh_to("solo") == []


async def test_a_host_idle_past_idle_seconds_is_closed_and_its_next_call_connects_again(
    lab: Lab, tmp_path: Path
) -> None:
    lab.sshd.alias("lazy", {"TMUX_TMPDIR": str(lab.alpha.tmpdir)})
    lab.sshd.alias("busy", {"TMUX_TMPDIR": str(lab.beta.tmpdir)})
    config = tmp_path / "idle.toml"
    config.write_text(
        '[hosts.lazy]\nssh = "lazy"\n[hosts.busy]\nssh = "busy"\n'
        "[connections]\nidle_seconds = 0.5\n"
    )
    lazy, busy = f"lazy/{lab.alpha.name}", f"busy/{lab.beta.name}"
    async with open_in_process(lab.env(), "python", "--config", str(config)) as opened:
        assert ssh_to("lazy") == []  # nothing connects before its first use
        await opened.ok("list_sessions", {"socket_name": lazy})
        assert ssh_to("lazy")
        await anyio.sleep(1.0)  # past idle_seconds
        await opened.ok("list_sessions", {"socket_name": busy})  # lazy is closed meanwhile
        await eventually(lambda: ssh_to("lazy") == [], "the idle host's ssh to end")
        again = await opened.ok("list_sessions", {"socket_name": lazy})
        assert ssh_to("lazy")
    assert isinstance(again["result"], list)


async def test_the_scope_and_the_audit_log_name_the_host_of_a_call(
    lab: Lab, tmp_path: Path
) -> None:
    log = tmp_path / "audit.jsonl"
    config = tmp_path / "scoped.toml"
    config.write_text(
        '[hosts.alpha]\nssh = "alpha"\n[hosts.beta]\nssh = "beta"\n'
        f'[scope]\nsockets = ["alpha/*"]\nallow = ["agent-*"]\n[audit]\npath = "{log}"\n'
    )
    alpha, beta = f"alpha/{lab.alpha.name}", f"beta/{lab.beta.name}"
    async with open_in_process(lab.env(), "python", "--config", str(config)) as opened:
        made = await opened.ok("create_session", {"session_name": "agent-a", "socket_name": alpha})
        outside = await opened.error("list_sessions", {"socket_name": beta})
        listed = await opened.ok("list_sessions", {"socket_name": alpha})
    assert made["session_name"] == "agent-a"
    assert f"socket_name {beta!r} is outside this server's scope (sockets: alpha/*)" in outside
    assert {row["session_name"] for row in listed["result"]} == {"agent-a"}
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(line["tool"], line["host"], line["outcome"]) for line in lines] == [
        ("create_session", "alpha", "ok")
    ]


async def test_a_subscription_keeps_its_host_from_being_closed_as_idle(
    lab: Lab, tmp_path: Path
) -> None:
    lab.sshd.alias("kept", {"TMUX_TMPDIR": str(lab.alpha.tmpdir)})
    lab.sshd.alias("poked", {"TMUX_TMPDIR": str(lab.beta.tmpdir)})
    config = tmp_path / "kept.toml"
    config.write_text(
        '[hosts.kept]\nssh = "kept"\n[hosts.poked]\nssh = "poked"\n'
        "[connections]\nidle_seconds = 0.5\n"
    )
    pane = lab.alpha.new_session().pane
    uri = f"tmux://panes/{pane}/content?socket_name=kept%2F{lab.alpha.name}"
    async with open_in_process(lab.env(), "python", "--config", str(config)) as opened:
        with warnings.catch_warnings():  # the handshake era's subscribe, as this server speaks
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await opened.session.subscribe_resource(uri)
        await anyio.sleep(1.0)  # past idle_seconds, with no call to kept
        await opened.ok("list_sessions", {"socket_name": f"poked/{lab.beta.name}"})
        await anyio.sleep(0.5)
        assert ssh_to("kept")
        read = await opened.session.read_resource(uri)
    assert read.contents
