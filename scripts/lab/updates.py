"""A real MCP client (the SDK's ``ClientSession``) that keeps every
``notifications/resources/updated`` it is sent, with when it arrived: for the tests and
the bench of live resources (``resources/subscribe``).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import anyio
import mcp.types as types
from mcp.client.session import ClientSession, IncomingMessage
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPDeprecationWarning

from scripts.lab.client import COMMAND, Client


@dataclass(frozen=True)
class Update:
    uri: str
    at: float  # time.monotonic() when the client read it


@dataclass
class Updates:
    """Every update a client was sent, in order; ``wait_for`` sleeps until the next."""

    seen: list[Update] = field(default_factory=list)
    _arrived: anyio.Event = field(default_factory=anyio.Event)

    async def __call__(self, message: IncomingMessage) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            self.record(str(message.params.uri))

    def record(self, uri: str) -> None:
        """An update of ``uri`` arrived now (from a message, or a listen stream's event)."""
        self.seen.append(Update(uri, time.monotonic()))
        self._arrived.set()
        self._arrived = anyio.Event()

    def of(self, uri: str, since: int = 0) -> list[Update]:
        """The updates of ``uri`` among those after the first ``since``."""
        return [update for update in self.seen[since:] if update.uri == uri]

    async def wait_for(self, uri: str, since: int = 0, timeout: float = 10.0) -> Update:
        """The first update of ``uri`` after the first ``since`` updates, waited for."""
        with anyio.fail_after(timeout):
            while True:
                found = self.of(uri, since)
                if found:
                    return found[0]
                await self._arrived.wait()

    async def quiet(self, seconds: float) -> list[Update]:
        """Wait ``seconds``; the updates that came meanwhile."""
        before = len(self.seen)
        await anyio.sleep(seconds)
        return self.seen[before:]


class Watching(Client):
    """A client that also subscribes: the SDK marks resources/subscribe deprecated, as
    2026-07-28 drops it for subscriptions/listen; this server speaks the handshake era."""

    updates: Updates

    async def subscribe(self, uri: str) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await self.session.subscribe_resource(uri)

    async def unsubscribe(self, uri: str) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await self.session.unsubscribe_resource(uri)


@asynccontextmanager
async def open_watching_client(
    env: dict[str, str], profile: str = "python", *args: str
) -> AsyncIterator[Watching]:
    """``open_client`` (``scripts.lab.client``) with a message handler that keeps updates."""
    updates = Updates()
    params = StdioServerParameters(command=COMMAND, args=["--profile", profile, *args], env=env)
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, message_handler=updates) as session,
    ):
        client = Watching(session, profile)
        client.updates = updates
        client.initialized = await session.initialize()
        yield client
