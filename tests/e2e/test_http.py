"""Everything the stdio server does works the same over Streamable HTTP, on every profile, in
both protocol eras: the SDK's own HTTP client (``mode="auto"`` speaks 2026-07-28 to this
server, ``mode="legacy"`` the initialize handshake) against the installed command started
with ``--http 127.0.0.1:0``, beside the same command over stdio on the same tmux server.

Tools, resources, prompts and completion answer as over stdio; logging/setLevel sends the
server's log lines to the client (the handshake era: 2026-07-28 has no setLevel); a wait
reports progress and is cancelled by its client, in both eras over both wires (the era
matrix: ``tests/helpers/eras.py``); ``--ssh`` combines with ``--http``.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from scripts.lab.client import Client
from scripts.lab.httpserver import HttpServer, open_http_client, open_stdio_client
from scripts.lab.overssh import remote_env
from scripts.lab.sshd import SshServer
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.eras import WIRES
from tests.helpers.tmux import tmux_clients
from tests.helpers.waiting import eventually
from tests.plugin import ALL_TOOLSETS
from tmux_contract_mcp.profiles import PROFILES

pytestmark = pytest.mark.anyio

MODES = ("auto", "legacy")  # 2026-07-28 (the SDK client's default here), the handshake
DEADLINE = 30.0  # only there to turn a hang into a failure


def profile_env(tmux: TmuxServer, profile: str) -> dict[str, str]:
    """Every toolset; swift's waits may last as long as the tests ask."""
    extra = {"LIBTMUX_TOOLSETS": ALL_TOOLSETS}
    if profile == "swift":
        extra["LIBTMUX_MCP_WAIT_MAX_SECONDS"] = "30"
    return tmux.server_env(**extra)


@pytest.fixture(scope="module", params=PROFILES)
def profile(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def server(shared: TmuxServer, profile: str) -> Iterator[HttpServer]:
    with HttpServer.running(profile_env(shared, profile), profile) as running:
        yield running


@pytest.fixture(scope="module")
async def over_stdio(shared: TmuxServer, profile: str) -> AsyncIterator[dict[str, Client]]:
    """The same profile over stdio in each era, for answers to compare with."""
    env = profile_env(shared, profile)
    async with (
        open_stdio_client(env, profile, "auto") as modern,
        open_stdio_client(env, profile, "legacy") as handshake,
    ):
        yield {"auto": modern, "legacy": handshake}


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def stdio(over_stdio: dict[str, Client], mode: str) -> Client:
    return over_stdio[mode]


@pytest.fixture
async def http(server: HttpServer, profile: str, mode: str) -> AsyncIterator[Client]:
    async with open_http_client(server, profile, mode) as opened:
        yield opened


@pytest.fixture(params=WIRES)
async def matrix_client(
    request: pytest.FixtureRequest, server: HttpServer, profile: str, mode: str, stdio: Client
) -> AsyncIterator[Client]:
    """The era matrix's client (tests/helpers/eras.py): over stdio, or over HTTP."""
    if request.param == "stdio":
        yield stdio
        return
    async with open_http_client(server, profile, mode) as opened:
        yield opened


def dumped(value: Any) -> Any:
    return value.model_dump(mode="json", by_alias=True, exclude_none=True)


async def outcome(call: Any) -> Any:
    """A listing's result, or the protocol error it got: compared across the wires."""
    try:
        return dumped(await call())
    except MCPError as exc:
        return {"error": exc.error.code}


def wait_arguments(profile: str, pane: str, pattern: str, seconds: int) -> dict[str, Any]:
    """wait_for_text's arguments in each profile's words."""
    if profile == "python":
        return {"pane_id": pane, "patterns": [pattern], "timeout": seconds}
    if profile == "rust":
        return {"pane": pane, "patterns": [pattern], "seconds": seconds}
    return {"paneId": pane, "patterns": [pattern], "timeoutMs": seconds * 1000}


def session_of_cat(tmux: TmuxServer) -> tuple[str, str]:
    """A 100x20 session whose pane runs cat: (its name, its pane)."""
    made = tmux.new_session(None, "cat", width=100, height=20)
    return made.name, made.pane


# --- the same answers -----------------------------------------------------------------------


async def test_every_listing_answers_as_over_stdio(http: Client, stdio: Client) -> None:
    for method in ("list_tools", "list_resources", "list_resource_templates", "list_prompts"):
        over_http = await outcome(getattr(http.session, method))
        over_stdio = await outcome(getattr(stdio.session, method))
        assert over_http == over_stdio, method
    tools = await http.session.list_tools()
    assert tools.tools, "every profile serves tools"


async def test_a_read_answers_as_over_stdio(http: Client, stdio: Client, profile: str) -> None:
    # Each process sees the other's control client attached (and hides its own): both
    # must have attached before their counts agree.
    await http.ok("list_sessions")
    await stdio.ok("list_sessions")
    over_http = await http.ok("list_sessions")
    over_stdio = await stdio.ok("list_sessions")
    assert without_refs(over_http) == without_refs(over_stdio)
    assert "main" in json.dumps(over_http)


def without_refs(value: Any) -> Any:
    """A result without its ``ref`` values: refs are sealed with a secret of each process."""
    if isinstance(value, dict):
        return {k: without_refs(v) for k, v in value.items() if k != "ref"}
    if isinstance(value, list):
        return [without_refs(item) for item in value]
    return value


async def test_a_resource_reads_as_over_stdio(http: Client, stdio: Client, profile: str) -> None:
    uri = "tmux://sessions" if profile == "python" else "tmux://capabilities"
    over_http = dumped(await http.session.read_resource(uri))
    assert over_http == dumped(await stdio.session.read_resource(uri))
    assert over_http["contents"][0]["text"]


async def test_prompts_and_completion_answer_as_over_stdio(
    http: Client, stdio: Client, profile: str, shared: TmuxServer
) -> None:
    listed = await outcome(http.session.list_prompts)
    if "error" in listed:  # rust and swift serve no prompts: both wires refuse alike
        assert profile != "python"
        assert listed == await outcome(stdio.session.list_prompts)
        return
    pane = shared.active_pane()
    for prompt in listed["prompts"]:
        arguments = {
            a["name"]: pane if "pane" in a["name"] else "echo hi"
            for a in prompt.get("arguments", [])
            if a.get("required")
        }
        got = dumped(await http.session.get_prompt(prompt["name"], arguments))
        assert got == dumped(await stdio.session.get_prompt(prompt["name"], arguments))
    templates = await http.session.list_resource_templates()
    template = next(t for t in templates.resource_templates if "{pane_id}" in t.uri_template)
    ref = types.ResourceTemplateReference(type="ref/resource", uri=template.uri_template)
    completed = await http.session.complete(ref, {"name": "pane_id", "value": "%"})
    assert pane in completed.completion.values
    again = await stdio.session.complete(ref, {"name": "pane_id", "value": "%"})
    assert dumped(completed) == dumped(again)


async def test_bad_arguments_are_refused_as_over_stdio(http: Client, stdio: Client) -> None:
    arguments = {"no_such_argument": 1}
    over_http = await http.session.call_tool("list_sessions", arguments)
    over_stdio = await stdio.session.call_tool("list_sessions", arguments)
    assert over_http.is_error and dumped(over_http) == dumped(over_stdio)


# --- notifications and cancellation ------------------------------------------------------


async def test_a_wait_reports_progress_to_its_client(
    matrix_client: Client, profile: str, shared: TmuxServer
) -> None:
    _, pane = session_of_cat(shared)
    notes: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        notes.append((progress, total, message))

    with anyio.fail_after(DEADLINE):
        result = await matrix_client.session.call_tool(
            "wait_for_text",
            wait_arguments(profile, pane, "never-printed", 3),
            progress_callback=on_progress,
        )
    assert not result.is_error, result.content
    assert notes, "no progress notification during a 3 s wait"
    assert all(message and pane in message for _, _, message in notes)
    assert [p for p, _, _ in notes] == sorted(p for p, _, _ in notes)


async def test_a_cancelled_wait_ends_and_the_next_call_is_answered(
    matrix_client: Client, profile: str, shared: TmuxServer
) -> None:
    session, pane = session_of_cat(shared)
    answered: list[types.CallToolResult] = []
    scope = anyio.CancelScope()

    async def wait() -> None:
        with scope:
            arguments = wait_arguments(profile, pane, "never-printed", 25)
            answered.append(await matrix_client.session.call_tool("wait_for_text", arguments))

    with anyio.fail_after(DEADLINE):
        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await eventually(lambda: session in {n for _, n in tmux_clients(shared)}, "the wait")
            scope.cancel()  # legacy: notifications/cancelled; 2026-07-28: the POST is closed
    assert answered == []
    # Well inside the 25 s the wait would have lasted: its output client leaves.
    await eventually(
        lambda: session not in {n for _, n in tmux_clients(shared)}, "the wait to end", deadline=8
    )
    assert "main" in json.dumps(await matrix_client.ok("list_sessions"))


async def test_log_lines_reach_the_client_that_asked(server: HttpServer, profile: str) -> None:
    """logging/setLevel belongs to the handshake era; its lines travel on the session's
    GET stream, which the SDK client opens once initialized."""
    lines: list[types.LoggingMessageNotificationParams] = []
    arrived = anyio.Event()

    async def received(params: types.LoggingMessageNotificationParams) -> None:
        lines.append(params)
        arrived.set()

    async with open_http_client(server, profile, "legacy", logging_callback=received) as client:
        with warnings.catch_warnings():  # deprecated from 2026-07-28 on; this is 2025-11-25
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await client.session.set_logging_level("info")
        with anyio.fail_after(DEADLINE):
            while not arrived.is_set():  # the GET stream may open a moment after initialize
                await client.call("list_sessions", {"no_such_argument": 1})  # logged at info
                with anyio.move_on_after(0.5):
                    await arrived.wait()
    assert any(
        line.level == "info" and "list_sessions answered with an error" in str(line.data)
        for line in lines
    )


# --- --ssh underneath ---------------------------------------------------------------------


async def test_http_combines_with_ssh(shared: TmuxServer, sshd: SshServer, mode: str) -> None:
    with HttpServer.running(remote_env(shared, sshd), "python") as over_ssh:
        async with open_http_client(over_ssh, "python", mode) as client:
            listed = await client.ok("list_sessions")
    assert "main" in {row["session_name"] for row in listed["result"]}
    assert (sshd.tmpdir / "sshd.log").read_text().count("Accepted publickey") >= 1
