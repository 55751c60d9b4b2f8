"""A configuration file's scope and audit log over ``--http`` (docs/remote.md): the same
refusal as over stdio, and the audit line names the HTTP client's address."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scripts.lab.httpserver import HttpServer, open_http_client
from scripts.lab.tmuxserver import TmuxServer

pytestmark = pytest.mark.anyio


async def test_over_http_the_scope_refuses_and_the_audit_line_names_the_client(
    shared: TmuxServer, tmp_path: Path
) -> None:
    inside = shared.new_session("agent-http").pane
    outside = shared.new_session().pane
    log = tmp_path / "audit.jsonl"
    config = tmp_path / "scope.toml"
    config.write_text(f'[scope]\nallow = ["agent-*"]\n[audit]\npath = "{log}"\n')
    with HttpServer.running(shared.server_env(), "python", "--config", str(config)) as server:
        async with open_http_client(server, "python", "legacy") as client:
            refusal = await client.error("send_keys", {"pane_id": outside, "keys": "x"})
            await client.ok("set_pane_title", {"pane_id": inside, "title": "over-http"})
    assert "outside this server's scope (allow: agent-*)" in refusal
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(line["tool"], line["outcome"]) for line in lines] == [
        ("send_keys", "refused"),
        ("set_pane_title", "ok"),
    ]
    assert all(line["client"].startswith("127.0.0.1:") for line in lines)
