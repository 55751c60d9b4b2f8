"""The real MCP client (the SDK's ClientSession) against the server, checking every result
against its contract: over stdio against the installed command (``open_client``), or in
memory against the same server built in this process (``open_in_process``)."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import cache
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from jsonschema import Draft202012Validator
from mcp.client.client import Client as SdkClient
from mcp.client.session import ClientSession, LoggingFnT
from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client

from codegen.model import tool_contract_paths
from codegen.surfaces import Prompt, Resource, load_prompts, load_resources

ROOT = Path(__file__).resolve().parents[2]
COMMAND = str(Path(sys.executable).parent / "tmux-contract-mcp")


@cache
def contracts(profile: str) -> dict[str, dict[str, Any]]:
    found = {}
    for path in tool_contract_paths(ROOT / "contracts", profile):
        contract = json.loads(path.read_text())
        found[contract["name"]] = contract
    return found


@cache
def text_unwraps(profile: str) -> str | None:
    """The property a wrapped result's text is the value of, as the profile declares it."""
    path = ROOT / "contracts" / f"{profile}-profile.json"
    declared = json.loads(path.read_text()) if path.exists() else {}
    return declared.get("text_unwraps")


def expected_text_value(profile: str, tool: str, structured: dict[str, Any]) -> Any:
    """What a result's text must hold: the wrapped value when the profile unwraps this
    tool's result (its output schema is that one required property), else the whole result."""
    schema = contracts(profile)[tool]["outputSchema"]
    key = text_unwraps(profile)
    wrapper = list(schema.get("properties", {})) == [key] and key in schema.get("required", [])
    return structured[key] if key is not None and wrapper else structured


def text_holds(text: str, value: Any) -> bool:
    """A string is sent as it is; anything else as JSON, which may add keys beside the
    result's own (a note the result's shape has no field for) but never change one."""
    if isinstance(value, str):
        return text == value
    parsed = json.loads(text)
    if isinstance(value, dict) and isinstance(parsed, dict):
        return all(key in parsed and parsed[key] == item for key, item in value.items())
    return bool(parsed == value)


@cache
def resource_contracts(profile: str) -> dict[str, Resource]:
    """The profile's resource contracts, loaded (result schemas inlined) by the generator's
    own loader, straight from contracts/."""
    return {r.name: r for r in load_resources(ROOT / "contracts", profile, ROOT)}


@cache
def prompt_contracts(profile: str) -> dict[str, Prompt]:
    return {p.name: p for p in load_prompts(ROOT / "contracts", profile, ROOT)}


@asynccontextmanager
async def open_client(
    env: dict[str, str],
    profile: str = "python",
    *args: str,
    logging_callback: LoggingFnT | None = None,
) -> AsyncIterator[Client]:
    params = StdioServerParameters(command=COMMAND, args=["--profile", profile, *args], env=env)
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, logging_callback=logging_callback) as session,
    ):
        client = Client(session, profile)
        client.initialized = await session.initialize()
        yield client


# What Python itself may change in its environment as it starts (PEP 538: with no UTF-8
# LC_CTYPE it sets LC_CTYPE=C.UTF-8), and what that depends on.
LOCALE_VARIABLES = ("LC_ALL", "LC_CTYPE", "LANG", "PYTHONCOERCECLOCALE", "PYTHONUTF8")


def command_environment(env: dict[str, str]) -> dict[str, str]:
    """The environment the command started by ``open_client(env)`` finds in ``os.environ``:
    the SDK's stdio client passes ``env`` over its default variables (``HOME``, ``PATH``,
    ``TERM``...), and Python adds what its locale coercion sets. The command hands that
    environment to every tmux it runs: without a UTF-8 ``LC_CTYPE`` tmux writes control
    characters (the separator of a listing's fields) as ``_``."""
    environ = {**get_default_environment(), **env}
    return {**environ, **_set_at_start(tuple(environ.get(name) for name in LOCALE_VARIABLES))}


@cache
def _set_at_start(locale: tuple[str | None, ...]) -> dict[str, str]:
    """The variables a Python started with these locale variables sets in its own
    environment as it starts, read from one started so."""
    given = {name: value for name, value in zip(LOCALE_VARIABLES, locale, strict=True) if value}
    shown = subprocess.run(
        [sys.executable, "-c", "import json, os; print(json.dumps(dict(os.environ)))"],
        env=given,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found: dict[str, str] = json.loads(shown)
    return {name: value for name, value in found.items() if given.get(name) != value}


@asynccontextmanager
async def open_in_process(
    env: dict[str, str],
    profile: str = "python",
    *args: str,
    logging_callback: LoggingFnT | None = None,
) -> AsyncIterator[Client]:
    """``open_client``'s server, built in this process and reached by the SDK's in-memory
    client: no process starts, no line is written, every message is the same.

    The server is made as the command makes it (``tmux_contract_mcp.cli.run``): the options
    (``--transport``, ``--ssh``) parsed by the command's own parser and added to ``env``,
    the profile's handlers built from the environment the command would have
    (``command_environment``; never this process's own), the toolsets its startup turns on,
    and the instructions read from that environment as the command reads them from its own. Handshake-era (``legacy``)
    mode: an initialize handshake over memory streams of JSON-RPC messages, as over stdio.
    What the command does as a process is left out: its stderr log, its signal handling,
    its exit status; a test of those uses ``open_client``. The handlers are closed as the
    command closes them when its input ends.
    """
    from tmux_contract_mcp.cli import parser
    from tmux_contract_mcp.config import config_path, load_config
    from tmux_contract_mcp.dispatch import ServedRuntime
    from tmux_contract_mcp.guard import LOCAL, Guard
    from tmux_contract_mcp.handlers.tmux.transport.kinds import TRANSPORT_ENV
    from tmux_contract_mcp.handlers.tmux.transport.ssh import SSH_ENV
    from tmux_contract_mcp.logs import ClientLog
    from tmux_contract_mcp.profiles import (
        create_handlers,
        load_profile,
        served_after_startup,
    )
    from tmux_contract_mcp.server import build_server

    options = parser().parse_args(["--profile", profile, *args])
    process_environ = command_environment(env)
    environ = dict(process_environ)
    if options.transport:
        environ[TRANSPORT_ENV] = options.transport
    if options.ssh is not None:
        environ[SSH_ENV] = options.ssh
    loaded = load_profile(profile)
    config = load_config(config_path(options.config, process_environ))
    guard = Guard.of(config, loaded, environ.get(SSH_ENV) or LOCAL)
    runtime = ServedRuntime(loaded.shown(environ), config.hosts_for_handlers())
    handlers = create_handlers(loaded, environ, runtime)
    client_log = ClientLog(logging.getLogger("tmux_contract_mcp"))
    try:
        served = served_after_startup(loaded, environ, handlers, runtime)
        if guard is not None:  # the configuration file's scope and audit log, as the command
            served = guard.serve(served)
            runtime.show(served)
        server = build_server(served, handlers, process_environ, client_log)
        async with SdkClient(
            server, mode="legacy", logging_callback=logging_callback, cache=None
        ) as connected:
            client = Client(connected.session, profile)
            client.initialized = connected.session.initialize_result
            yield client
    finally:
        with anyio.CancelScope(shield=True):
            await client_log.aclose()
        with anyio.CancelScope(shield=True):  # as serve_stdio: handlers may hold connections
            await handlers.aclose()
        if guard is not None:
            guard.close()


class Client:
    """A session plus the checks every test wants on every call."""

    initialized: types.InitializeResult | None = None  # the server's answer to initialize

    def __init__(self, session: ClientSession, profile: str) -> None:
        self.session = session
        self.profile = profile

    async def call(
        self, tool: str, arguments: dict[str, Any] | None = None
    ) -> types.CallToolResult:
        result = await self.session.call_tool(tool, arguments or {})
        if not result.is_error:
            schema = contracts(self.profile)[tool]["outputSchema"]
            Draft202012Validator(schema).validate(result.structured_content)
            # The result's text, then any notes (a dead pane's, say) as further text blocks.
            assert result.content and all(
                isinstance(block, types.TextContent) for block in result.content
            )
            text = result.content[0]
            assert isinstance(text, types.TextContent)
            expected = expected_text_value(self.profile, tool, result.structured_content)
            assert text_holds(text.text, expected), (text.text[:200], expected)
        return result

    async def ok(self, tool: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        result = await self.call(tool, arguments)
        assert not result.is_error, error_text(result)
        assert result.structured_content is not None
        return dict(result.structured_content)

    async def error(self, tool: str, arguments: dict[str, Any] | None = None) -> str:
        result = await self.call(tool, arguments)
        assert result.is_error, f"expected an error, got {result.structured_content}"
        return error_text(result)

    async def read(self, uri: str, resource: str) -> Any:
        """Read ``uri``, which ``resource`` serves: its JSON checked against the resource's
        result schema, or its text."""
        result = await self.session.read_resource(uri)
        assert len(result.contents) == 1
        content = result.contents[0]
        assert isinstance(content, types.TextResourceContents)
        contract = resource_contracts(self.profile)[resource]
        assert content.uri == uri
        assert content.mime_type == contract.mime_type
        if not contract.is_json:
            return content.text
        value = json.loads(content.text)
        Draft202012Validator(contract.result_schema).validate(value)
        return value


def notes(result: types.CallToolResult) -> list[str]:
    """The text blocks after a result's own text: notes for what its fields cannot say."""
    return [block.text for block in result.content[1:] if isinstance(block, types.TextContent)]


def error_text(result: types.CallToolResult) -> str:
    return " ".join(c.text for c in result.content if isinstance(c, types.TextContent))
