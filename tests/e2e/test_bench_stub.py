"""The benchmark's "no tmux, no transport" server: every answer replayed, nothing sent to tmux.

``scripts.bench.stubbed --record`` runs the installed server over the real
control transport and writes down every tmux command and answer, writes
included; ``--replay`` answers from that alone. The replaying server here talks
to a tmux server that has been killed, so any command that reached tmux, by a
process or by a control client, would fail the call.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from scripts.lab.client import ROOT, Client
from scripts.lab.tmuxserver import TmuxServer

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def stubbed(mode: str, answers: Path, env: dict[str, str]) -> AsyncIterator[Client]:
    args = ["-m", "scripts.bench.stubbed", f"--{mode}", str(answers)]
    args += ["--profile", "python", "--transport", "control"]
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=ROOT)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield Client(session, "python")


def recorded_commands(answers: Path) -> list[list[str]]:
    records = [json.loads(line) for f in answers.glob("*.jsonl") for line in f.open()]
    return [record["args"] for record in records if "args" in record]


async def test_replay_answers_reads_and_writes_alike_with_tmux_gone(tmp_path: Path) -> None:
    tmux = TmuxServer.start()
    try:
        pane = tmux.grid()["top-right"]
        window = tmux.tmux("display-message", "-p", "-t", pane, "#{window_id}").strip()
        env = tmux.server_env()
        calls: list[tuple[str, dict[str, Any]]] = [
            ("list_sessions", {}),
            ("list_panes", {"window_id": window}),
            ("select_pane", {"pane_id": pane}),
            ("get_pane_info", {"pane_id": pane}),
            ("capture_pane", {"pane_id": pane, "max_lines": 20}),
        ]
        async with stubbed("record", tmp_path, env) as client:
            live = [await client.ok(tool, arguments) for tool, arguments in calls]
    finally:
        tmux.kill()

    assert ["select-pane", "-t", pane] in recorded_commands(tmp_path)
    assert tmux.tmux("list-sessions", check=False) == ""  # nothing answers on the socket now
    async with stubbed("replay", tmp_path, env) as client:
        replayed = [await client.ok(tool, arguments) for tool, arguments in calls]
        missing = await client.error("get_pane_info", {"pane_id": "%99"})
    assert replayed == live
    assert "not recorded, so not replayed: tmux display-message" in missing
