"""The server's own log lines, sent to the client as ``notifications/message``.

Nothing is sent until a client asks with ``logging/setLevel``; from then on
every record of this package's loggers at or above that level goes out, in
order, on that client's connection. Records are queued by a logging handler
(which may run in any thread) and written by one task, so logging never waits
on a client and a slow client never reorders lines.

On 2026-07-28 there is no ``logging/setLevel``: a request asks for the lines made while it
is served by carrying a level in its ``_meta`` (``io.modelcontextprotocol/logLevel``), and
gets them on its own stream, before its answer (``RequestLines``); a request without one
gets none.

Over HTTP many clients share the process, each in a conversation of its own
(``conversation``: its session, or one request of the stateless era). A record
made while serving a conversation goes only to that conversation's client; a
record made outside any (the tmux connection's own news) goes to every client
that asked. A client whose connection has closed is dropped at its next line.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import anyio
import mcp.types as types
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import LOG_LEVEL_META_KEY
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

# MCP's levels (RFC 5424) and Python's. notice, alert and emergency have no Python
# records of their own: asking for notice sends warnings and up, for alert nothing.
THRESHOLDS: dict[str, int] = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO + 1,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL + 1,
    "emergency": logging.CRITICAL + 1,
}


def mcp_level(levelno: int) -> types.LoggingLevel:
    if levelno >= logging.CRITICAL:
        return "critical"
    if levelno >= logging.ERROR:
        return "error"
    if levelno >= logging.WARNING:
        return "warning"
    if levelno >= logging.INFO:
        return "info"
    return "debug"


Line = tuple[types.LoggingLevel, str, str, object]

conversation: contextvars.ContextVar[object] = contextvars.ContextVar("conversation", default=None)
"""Whose request is being served (None: no one's): set for each request the server serves."""


@dataclass
class RequestLines:
    """The lines one 2026-07-28 request asked for (its level), kept while it is served."""

    threshold: int
    lines: list[tuple[types.LoggingLevel, str, str]]


request_lines: contextvars.ContextVar[RequestLines | None] = contextvars.ContextVar(
    "request_lines", default=None
)
"""The request being served, when it carried a log level (2026-07-28)."""


def lines_asked(protocol_version: str, meta: Mapping[str, Any] | None) -> RequestLines | None:
    """What a request asked for: on 2026-07-28, the level its ``_meta`` carries (the package's
    loggers then make records down to it); on the handshake era, or without one, nothing."""
    if protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return None
    level = (meta or {}).get(LOG_LEVEL_META_KEY)
    if level not in THRESHOLDS:
        return None
    threshold = THRESHOLDS[level]
    package = logging.getLogger(__package__)
    if package.getEffectiveLevel() > threshold:
        package.setLevel(threshold)
    return RequestLines(threshold, [])


async def send_asked(session: Any, wanted: RequestLines) -> None:
    """The lines a request asked for, on its own stream (the SDK sends them there on
    2026-07-28), before its answer."""
    for level, logger, text in wanted.lines:
        with warnings.catch_warnings():  # the SDK marks logging deprecated from 2026-07-28 on
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await session.send_log_message(level, text, logger)


class RequestLog(logging.Handler):
    """Keeps each record at or above the level of the request it was made for."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter("%(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        wanted = request_lines.get()
        if wanted is None or record.levelno < wanted.threshold:
            return
        try:
            wanted.lines.append((mcp_level(record.levelno), record.name, self.format(record)))
        except Exception:
            self.handleError(record)


@dataclass
class Listener:
    """A client that asked for the log: where to send it, and from which level."""

    session: Any
    threshold: int


class ClientLog(logging.Handler):
    """Forwards one logger's records to each client that has set a level."""

    def __init__(self, logger: logging.Logger) -> None:
        super().__init__()
        self.logger = logger
        self.listeners: dict[object, Listener] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.queue: asyncio.Queue[Line] | None = None
        self.pump: asyncio.Task[None] | None = None
        self.setFormatter(logging.Formatter("%(message)s"))
        self.per_request = RequestLog()
        logger.addHandler(self.per_request)

    def set_level(self, session: Any, level: str, who: object = None) -> None:
        """A client's ``logging/setLevel``: start (or retune) forwarding to ``who``."""
        threshold = THRESHOLDS[level]
        self.listeners[who] = Listener(session, threshold)
        if self.queue is None:
            self.loop = asyncio.get_running_loop()
            self.queue = asyncio.Queue()
            self.pump = self.loop.create_task(self._pump())
            self.logger.addHandler(self)
        if self.logger.getEffectiveLevel() > threshold:
            self.logger.setLevel(threshold)

    def emit(self, record: logging.LogRecord) -> None:
        if not self.listeners or self.queue is None:
            return
        if record.levelno < min(listener.threshold for listener in self.listeners.values()):
            return
        try:
            line = (mcp_level(record.levelno), record.name, self.format(record), conversation.get())
        except Exception:
            self.handleError(record)
            return
        loop = self.loop
        assert loop is not None
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self.queue.put_nowait(line)
        else:
            loop.call_soon_threadsafe(self.queue.put_nowait, line)

    async def _pump(self) -> None:
        assert self.queue is not None
        while True:
            level, logger, text, owner = await self.queue.get()
            levelno = THRESHOLDS[level]
            notification = types.LoggingMessageNotification(
                params=types.LoggingMessageNotificationParams(level=level, logger=logger, data=text)
            )
            for who, listener in list(self.listeners.items()):
                if levelno < listener.threshold or owner not in (None, who):
                    continue
                try:
                    await listener.session.send_notification(notification)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    self.listeners.pop(who, None)  # that client's connection is gone
                except Exception:  # never log about logging here
                    continue

    async def aclose(self) -> None:
        self.logger.removeHandler(self)
        self.logger.removeHandler(self.per_request)
        if self.pump is not None:
            self.pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.pump
