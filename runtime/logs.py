"""The server's own log lines, sent to the client as ``notifications/message``.

Nothing is sent until the client asks with ``logging/setLevel``; from then on
every record of this package's loggers at or above that level goes out, in
order, on the connection. Records are queued by a logging handler (which may
run in any thread) and written by one task, so logging never waits on the
client and a slow client never reorders lines.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import mcp.types as types

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


Line = tuple[types.LoggingLevel, str, str]


class ClientLog(logging.Handler):
    """Forwards one logger's records to the client once it has set a level."""

    def __init__(self, logger: logging.Logger) -> None:
        super().__init__()
        self.logger = logger
        self.session: Any = None
        self.threshold: int | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.queue: asyncio.Queue[Line] | None = None
        self.pump: asyncio.Task[None] | None = None
        self.setFormatter(logging.Formatter("%(message)s"))

    def set_level(self, session: Any, level: str) -> None:
        """The client's ``logging/setLevel``: start (or retune) forwarding."""
        self.session = session
        self.threshold = THRESHOLDS[level]
        if self.queue is None:
            self.loop = asyncio.get_running_loop()
            self.queue = asyncio.Queue()
            self.pump = self.loop.create_task(self._pump())
            self.logger.addHandler(self)
        if self.logger.getEffectiveLevel() > self.threshold:
            self.logger.setLevel(self.threshold)

    def emit(self, record: logging.LogRecord) -> None:
        if self.threshold is None or record.levelno < self.threshold or self.queue is None:
            return
        try:
            line = (mcp_level(record.levelno), record.name, self.format(record))
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
            level, logger, text = await self.queue.get()
            notification = types.LoggingMessageNotification(
                params=types.LoggingMessageNotificationParams(level=level, logger=logger, data=text)
            )
            with contextlib.suppress(Exception):  # the client may be gone; never log about it here
                await self.session.send_notification(notification)

    async def aclose(self) -> None:
        self.logger.removeHandler(self)
        if self.pump is not None:
            self.pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.pump
