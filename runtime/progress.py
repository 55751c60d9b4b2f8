"""Progress notifications for the call being answered, for handlers that wait.

The server records how to report progress for each tools/call it dispatches;
a handler calls ``report`` without knowing about the MCP session. When the
client asked for no progress (no progress token) a report goes nowhere.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable

Reporter = Callable[[float, float | None, str | None], Awaitable[None]]

reporter: contextvars.ContextVar[Reporter | None] = contextvars.ContextVar("reporter", default=None)


async def report(progress: float, total: float | None = None, message: str | None = None) -> None:
    send = reporter.get()
    if send is not None:
        await send(progress, total, message)
