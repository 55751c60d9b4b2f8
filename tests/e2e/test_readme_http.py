"""The page docs/http.md, "Serve over HTTP": its commands, configurations and numbers are the
ones the code has, and what it says the listener does has a test that keeps it.

Kept elsewhere, sentence by sentence:

- every tool, resource, prompt, completion, log line, progress report and cancellation in
  both eras, and ``--ssh`` with ``--http``: tests/e2e/test_http.py;
- the token's sources, its file and startup refusals; 401/400/421/403/413/408/400 and the
  connection limit; a non-loopback address, TLS and the proxy mode:
  tests/e2e/test_http_security.py;
- sessions kept apart, the session limit and idle expiry, a client that disconnects
  mid-call, the stop on a signal: tests/e2e/test_http_sessions.py;
- a client no one here wrote (the MCP Inspector): tests/e2e/test_inspector.py.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
from pathlib import Path
from typing import Any, cast

import httpx2

from scripts.lab.client import COMMAND
from scripts.lab.httpserver import HttpServer
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.http import INITIALIZE, JSON_HEADERS
from tests.helpers.readme import body
from tmux_contract_mcp.cli import parser
from tmux_contract_mcp.http import BODY_GAP_SECONDS, MAX_CONNECTIONS, REALM
from tmux_contract_mcp.http_protocol import HEADER_SECONDS
from tmux_contract_mcp.listener import (
    DEFAULT_IDLE_SECONDS,
    DEFAULT_MAX_SESSIONS,
    Bound,
    Listener,
    announcement,
)
from tmux_contract_mcp.stdio import LINE_LIMIT
from tmux_contract_mcp.tokens import MIN_LENGTH, Token

SECTION = body("docs/http.md")
URL = "http://127.0.0.1:8765/mcp"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", SECTION, re.S)


def claude_lines() -> list[list[str]]:
    return [
        shlex.split(line)
        for block in blocks("sh")
        for line in block.splitlines()
        if line.startswith("claude mcp add")
    ]


def test_the_claude_code_command_adds_an_http_server_with_the_header() -> None:
    (words,) = claude_lines()
    assert words[:5] == ["claude", "mcp", "add", "--transport", "http"]
    name, url, option, header = words[5:]
    assert name == "tmux" and url == URL and option == "--header"
    assert header.startswith("Authorization: Bearer $(cat ")


class Bound8765:
    """What ``announcement`` reads of a bound socket, for the README's example port."""

    def getsockname(self) -> tuple[str, int]:
        return ("127.0.0.1", 8765)


def test_the_example_stderr_is_what_the_server_says() -> None:
    (example,) = re.findall(r"```\n(tmux-contract-mcp: .*?)```", SECTION, re.S)
    path = re.search(r"the token is in (\S+)", example)
    assert path is not None
    token = Token(b"x" * 43, file=Path(path.group(1)), made=True)
    bound = Bound(Listener("127.0.0.1", 8765), cast(socket.socket, Bound8765()), token)
    said = [f"tmux-contract-mcp: {line}" for line in announcement(bound)]
    assert example.strip().splitlines() == said
    printed = claude_command(said[2])
    assert printed[:7] == ["claude", "mcp", "add", "--transport", "http", "tmux", URL]
    assert printed[7:] == ["--header", f"Authorization: Bearer $(cat {path.group(1)})"]


def claude_command(line: str) -> list[str]:
    return shlex.split(line.split("Claude Code: ", 1)[1])


def test_the_json_configurations_carry_the_url_and_the_header() -> None:
    vscode, generic = (json.loads(block) for block in blocks("json"))
    server = vscode["servers"]["tmux"]
    assert server["type"] == "http" and server["url"] == URL
    assert server["headers"] == {"Authorization": "Bearer ${input:tmux-token}"}
    (prompt,) = vscode["inputs"]
    assert prompt["id"] == "tmux-token" and prompt["password"] is True
    other = generic["mcpServers"]["tmux"]
    assert other["url"] == URL and other["headers"]["Authorization"].startswith("Bearer ")


def test_the_documented_headers_open_a_session_on_a_running_server(
    tmux: TmuxServer, tmp_path: Path
) -> None:
    """The token recipe, then each configuration's header with the token put in."""
    (recipe,) = (block for block in blocks("sh") if "openssl rand" in block)
    make, start = recipe.strip().splitlines()
    home = tmp_path / "home"
    home.mkdir()
    subprocess.run(["sh", "-c", make], check=True, env={**os.environ, "HOME": str(home)})
    token_file = home / ".tmux-mcp.token"
    assert token_file.stat().st_mode & 0o777 == 0o600
    args = shlex.split(start.replace("~", str(home)))
    assert args[:3] == ["tmux-contract-mcp", "--http", "8765"]
    server = HttpServer.start(tmux.server_env(), "python", *args[3:], token=None)
    try:
        token = server.token
        assert token == token_file.read_text().strip()
        (line,) = (
            line for block in blocks("sh") for line in block.splitlines() if "claude" in line
        )
        quoted = re.search(r'--header ("[^"]*")', line)
        assert quoted is not None
        header = subprocess.run(  # as the shell expands it when you paste the line
            ["sh", "-c", f"printf %s {quoted.group(1)}"],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "HOME": str(home)},
        ).stdout
        vscode, generic = (json.loads(block) for block in blocks("json"))
        headers: list[dict[str, Any]] = [
            dict([header.split(": ", 1)]),
            {
                k: v.replace("${input:tmux-token}", token)
                for k, v in vscode["servers"]["tmux"]["headers"].items()
            },
            {
                k: v.replace("<the token>", token)
                for k, v in generic["mcpServers"]["tmux"]["headers"].items()
            },
        ]
        for given in headers:
            response = httpx2.post(server.url, json=INITIALIZE, headers={**JSON_HEADERS, **given})
            assert response.status_code == 200, (given, response.text)
    finally:
        server.stop()


def test_the_numbers_are_the_codes() -> None:
    text = " ".join(SECTION.split())
    assert LINE_LIMIT == 16 * 2**20 and "over 16 MiB" in text
    assert f"more than {HEADER_SECONDS:g} s to arrive" in text
    assert f"pauses more than {BODY_GAP_SECONDS:g} s" in text
    assert f"With {MAX_CONNECTIONS} connections open" in text
    assert f"At most {DEFAULT_MAX_SESSIONS} handshake sessions" in text
    assert f"for {DEFAULT_IDLE_SECONDS / 60:g} minutes" in text
    assert f"shorter than {MIN_LENGTH} characters" in text
    assert f"`WWW-Authenticate: {REALM}`" in text


def test_every_option_the_section_names_is_one_the_command_takes_and_help_shows() -> None:
    named = set(re.findall(r"`(--[a-z-]+)", SECTION)) | {
        word for block in blocks("sh") for word in shlex.split(block) if word.startswith("--")
    }
    named -= {"--transport", "--header"}  # claude's own options
    help_text = parser().format_help()
    taken = {option for action in parser()._actions for option in action.option_strings}
    for option in sorted(named):
        assert option in taken and option in help_text, option
    for variable in re.findall(r"`(TMUX_CONTRACT_MCP_[A-Z_]+)`", SECTION):
        assert variable in help_text, variable


def test_help_names_the_http_options() -> None:
    done = subprocess.run([COMMAND, "--help-all"], capture_output=True, text=True, timeout=60)
    for option in ("--http", "--token-file", "--allow-remote", "--tls-cert", "--tls-key",
                   "--insecure-remote-behind-proxy", "--allow-host", "--allow-origin"):  # fmt: skip
        assert option in done.stdout, option
