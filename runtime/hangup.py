"""A call whose HTTP client hangs up is cancelled, as a cancelled request is.

On stdio a client that goes away closes the server's input, and the server ends. Over
HTTP one client going away is one connection closing: the SDK's 2026-07-28 path then
cancels the request it carried, but a handshake-era request runs in its session's
task, apart from the connection that carried it, and would go on (a wait to its full
timeout, a tmux client held) for an answer no one will read. So the listener marks
each request it passes on with a ``Hangup`` in its ASGI scope, its HTTP protocol fires
it when the connection closes before the answer was sent (``runtime/http_protocol.py``),
and the server runs a call inside the ``Hangup`` of the request that carried it
(``runtime/server.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio
from mcp.server.streamable_http import REQUEST_CANCELLED
from mcp.shared.exceptions import MCPError

SCOPE_KEY = "tmux_contract_mcp.hangup"
"""Where the listener puts a request's ``Hangup`` in its ASGI scope."""

T = TypeVar("T")


class Hangup:
    """One HTTP request: whether its client hung up, and the calls to cancel when it does."""

    def __init__(self) -> None:
        self.gone = False
        self._calls: set[anyio.CancelScope] = set()

    def hang_up(self) -> None:
        """The client closed the connection before its answer: cancel what it asked for."""
        self.gone = True
        for scope in self._calls:
            scope.cancel()

    async def unless_gone(self, call: Callable[[], Awaitable[T]]) -> T:
        """``call()``, cancelled when the client hangs up; then a protocol error no one reads."""
        if not self.gone:
            with anyio.CancelScope() as scope:
                self._calls.add(scope)
                try:
                    return await call()
                finally:
                    self._calls.discard(scope)
        raise MCPError(code=REQUEST_CANCELLED, message="the client hung up before the answer")


def hangup_in(scope: object) -> Hangup | None:
    """The ``Hangup`` the listener put in an ASGI scope (None: none there)."""
    found = scope.get(SCOPE_KEY) if isinstance(scope, dict) else None
    return found if isinstance(found, Hangup) else None


def hangup_of(request: object) -> Hangup | None:
    """The ``Hangup`` of an HTTP request the listener passed on (None: not one of its)."""
    return hangup_in(getattr(request, "scope", None))
