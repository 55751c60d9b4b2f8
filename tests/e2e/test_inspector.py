"""The MCP Inspector's CLI (``--transport http``, the token as ``--header``) against the
installed command on every profile: a client no one here wrote lists and calls the tools,
reads a resource, gets a prompt and sets the log level; without the token it gets nothing.
The Inspector speaks the handshake era (initialize, 2025-11-25).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scripts.lab.client import contracts
from scripts.lab.httpserver import HttpServer
from scripts.lab.inspector import inspect
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.contracts import every_toolset
from tmux_contract_mcp.profiles import PROFILES

pytestmark = pytest.mark.timeout(600)  # the first run installs it


@pytest.fixture(scope="module", params=PROFILES)
def server(request: pytest.FixtureRequest, shared: TmuxServer) -> Iterator[HttpServer]:
    env = shared.server_env(LIBTMUX_TOOLSETS=every_toolset(str(request.param)))
    with HttpServer.running(env, str(request.param)) as running:
        yield running


def run(server: HttpServer, tmp_path: Path, *args: str) -> Any:
    done = inspect(
        server.url,
        *args,
        headers=[f"Authorization: Bearer {server.token}"],
        catalog=tmp_path / "catalog.json",
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_inspector_lists_and_calls_the_tools(server: HttpServer, tmp_path: Path) -> None:
    profile = server.profile
    listed = run(server, tmp_path, "--method", "tools/list")
    assert sorted(tool["name"] for tool in listed["tools"]) == sorted(contracts(profile))
    called = run(server, tmp_path, "--method", "tools/call", "--tool-name", "list_sessions")
    assert called["isError"] is False
    assert "main" in json.dumps(called["structuredContent"])


def test_the_inspector_reads_a_resource(server: HttpServer, tmp_path: Path) -> None:
    uri = "tmux://sessions" if server.profile == "python" else "tmux://capabilities"
    read = run(server, tmp_path, "--method", "resources/read", "--uri", uri)
    (content,) = read["contents"]
    assert content["uri"] == uri and json.loads(content["text"])


def test_the_inspector_gets_a_prompt_where_one_is_served_and_sets_the_log_level(
    server: HttpServer, tmp_path: Path, shared: TmuxServer
) -> None:
    if server.profile == "python":  # the only profile that serves prompts
        pane = shared.active_pane()
        got = run(
            server, tmp_path, "--method", "prompts/get", "--prompt-name", "run_and_wait",
            "--prompt-args", "command=make test", f"pane_id={pane}",
        )  # fmt: skip
        text = got["messages"][0]["content"]["text"]
        assert "make test" in text and pane in text
    assert run(server, tmp_path, "--method", "logging/setLevel", "--log-level", "debug") == {}


def test_the_inspector_without_the_token_gets_nothing(
    server: HttpServer, tmp_path: Path, shared: TmuxServer
) -> None:
    mark = shared.mark()
    done = inspect(server.url, "--method", "tools/list", catalog=tmp_path / "catalog.json")
    assert '"tools"' not in done.stdout
    assert "auth" in (done.stdout + done.stderr).lower()
    shared.assert_nothing_sent_since(mark, "the Inspector without the token")
