"""stdin and stdout for the SDK's stdio transport, read and written on the event loop.

The SDK's default wraps the standard streams in worker-thread file objects: a
thread hop for every line read, every write and every flush. Pipes (what an
MCP client gives its server) can be driven by the event loop directly. The
SDK's own transport still does the framing and the JSON; only the byte
plumbing changes. As with the SDK, file descriptors 0 and 1 are pointed at
/dev/null and stderr while serving, so nothing else can write onto the wire.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

LINE_LIMIT = 1 << 30  # a request line may be large (a long request id, a big batch)


def _is_pipe_like(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


class LineReader:
    """``async for line in reader``: text lines, as the SDK reads stdin."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> LineReader:
        return self

    async def __anext__(self) -> str:
        line = await self._reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", "replace")


class LineWriter:
    """``await write(text)`` then ``await flush()``, as the SDK writes stdout."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, text: str) -> int:
        data = text.encode("utf-8")
        self._writer.write(data)
        return len(data)

    async def flush(self) -> None:
        await self._writer.drain()


@asynccontextmanager
async def loop_stdio() -> AsyncIterator[tuple[Any, Any] | None]:
    """The wire as (reader, writer) on private descriptors; None when stdio is not a pipe."""
    if not (_is_pipe_like(0) and _is_pipe_like(1)):
        yield None
        return
    wire_in = os.dup(0)
    wire_out = os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    with open(os.devnull, "rb") as null:
        os.dup2(null.fileno(), 0)
    os.dup2(2, 1)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    in_file = os.fdopen(wire_in, "rb", buffering=0)
    out_file = os.fdopen(wire_out, "wb", buffering=0)
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), in_file
    )
    write_transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, out_file
    )
    writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
    try:
        yield LineReader(reader), LineWriter(writer)
    finally:
        read_transport.close()
        with suppress(Exception):
            await writer.drain()
        write_transport.close()
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)
        sys.stdout.flush()
