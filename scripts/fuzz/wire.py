"""A server under test over stdio, driven by the MCP SDK's ClientSession.

The SDK's own stdio transport writes each message with pydantic's JSON encoder, which
refuses a lone surrogate, so a call holding one could never be sent. This transport
writes the same messages with every non-ASCII character as a JSON escape (``\\ud800``
stays ``\\ud800``), reads the answers as the SDK's does, and keeps the process at hand
so that a crash (the process gone) is told apart from a hang (no answer in time).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from anyio.abc import Process
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage


@dataclass(frozen=True)
class Launch:
    """How to start one server under test."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    cwd: Path
    stderr: Path


@asynccontextmanager
async def connected(launch: Launch) -> AsyncIterator[tuple[ClientSession, Process]]:
    """An initialized ClientSession on a fresh process; the process is ended on the way out."""
    with launch.stderr.open("ab") as errors:
        process = await anyio.open_process(
            list(launch.argv), env=dict(launch.env), cwd=launch.cwd, stderr=errors
        )
    to_session, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_server, from_session = anyio.create_memory_object_stream[SessionMessage](0)

    async def read() -> None:
        assert process.stdout is not None
        buffer = b""
        async with to_session:
            try:
                async for chunk in process.stdout:
                    buffer += chunk
                    *lines, buffer = buffer.split(b"\n")
                    for line in lines:
                        text = line.decode("utf-8", "replace")
                        try:
                            message = types.jsonrpc_message_adapter.validate_json(
                                text, by_name=False
                            )
                        except ValueError as exc:
                            await to_session.send(exc)
                            continue
                        await to_session.send(SessionMessage(message))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                pass

    async def write() -> None:
        assert process.stdin is not None
        async with from_session:
            try:
                async for outgoing in from_session:
                    data = outgoing.message.model_dump(
                        by_alias=True, exclude_unset=True, mode="json"
                    )
                    await process.stdin.send((json.dumps(data) + "\n").encode("ascii"))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                pass

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read)
            tasks.start_soon(write)
            try:
                async with ClientSession(from_server, to_server) as session:
                    with anyio.fail_after(30):
                        await session.initialize()
                    yield session, process
            finally:
                tasks.cancel_scope.cancel()
    finally:
        await stop(process)


async def stop(process: Process, grace: float = 5.0) -> None:
    """Close stdin (a server's signal to leave) and wait; kill what stays."""
    with anyio.CancelScope(shield=True):
        if process.stdin is not None:
            with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await process.stdin.aclose()
        with anyio.move_on_after(grace):
            await process.wait()
        if process.returncode is None:
            process.kill()
            await process.wait()


@dataclass
class Answer:
    """What one call came back with."""

    result: types.CallToolResult | None = None
    error: str | None = None  # a JSON-RPC error's code and message
    hung: bool = False
    died: bool = False


async def call(
    session: ClientSession, process: Process, tool: str, arguments: dict[str, Any], wait: float
) -> Answer:
    """One tools/call; the SDK's own output-schema check is not needed (the engine checks)."""
    request = types.CallToolRequest(
        params=types.CallToolRequestParams(name=tool, arguments=arguments)
    )
    try:
        result = await session.send_request(request, types.CallToolResult, wait)
    except MCPError as exc:
        if exc.error.code == types.REQUEST_TIMEOUT:
            return Answer(hung=True, died=process.returncode is not None)
        if process.returncode is not None or exc.error.code == types.CONNECTION_CLOSED:
            return Answer(died=True, error=f"{exc.error.code}: {exc.error.message}")
        return Answer(error=f"{exc.error.code}: {exc.error.message}")
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
        return Answer(died=True)
    except ValueError as exc:  # an answer that is no CallToolResult (pydantic says why)
        return Answer(error=f"an answer the client cannot read: {exc}")
    return Answer(result=result)


async def alive(session: ClientSession, process: Process, wait: float = 5.0) -> bool:
    if process.returncode is not None:
        return False
    try:
        with anyio.fail_after(wait):
            await session.send_ping()
    except (TimeoutError, MCPError, anyio.ClosedResourceError, anyio.BrokenResourceError):
        return False
    return True
