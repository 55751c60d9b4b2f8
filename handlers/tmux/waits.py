"""Waking on pane output instead of polling for it.

tmux sends ``%output`` only to control clients attached to the pane's session
and not started with ``no-output``, so waits get their own clients: one per
session, shared by every wait on that session's panes and closed when the
last wait ends. A wait wakes on an ``%output`` line for its pane, never on a
timer; what changed is then read the ordinary way.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass

import anyio

from ...errors import ToolError
from .control import ControlClient, output_event
from .sockets import Socket

WAIT_MAX_ENV = "LIBTMUX_MCP_WAIT_MAX_SECONDS"
DEFAULT_WAIT_MAX = 30.0


def wait_ceiling(environ: Mapping[str, str]) -> float:
    """The longest any wait may last: ``LIBTMUX_MCP_WAIT_MAX_SECONDS`` (default 30 s).

    Read from the environment the server was started with; a value that is not
    a positive number of seconds is an error on every wait, never a silent default.
    """
    raw = environ.get(WAIT_MAX_ENV, "").strip()
    if not raw:
        return DEFAULT_WAIT_MAX
    try:
        ceiling = float(raw)
    except ValueError:
        ceiling = math.nan
    if not (math.isfinite(ceiling) and ceiling > 0):
        raise ToolError(
            f"{WAIT_MAX_ENV}={raw!r} in this server's environment is not a positive number "
            f"of seconds. Set it to one (default {DEFAULT_WAIT_MAX:g}) and restart the server."
        )
    return ceiling


def effective_timeout(timeout: float, environ: Mapping[str, str]) -> float:
    """The timeout a wait uses: clamped to the ceiling (never refused), and 0 for 0 or less."""
    return min(max(timeout, 0.0), wait_ceiling(environ))


class WatchLost(Exception):
    """The client delivering output ended (its session or server went away)."""


class Watch:
    """Output events of one pane, remembered until ``changed`` consumes them."""

    def __init__(self, client: ControlClient, pane_id: str) -> None:
        self.client = client
        self.pane_id = pane_id
        self._event = anyio.Event()
        self._lost = False

    def on_line(self, line: str) -> None:
        event = output_event(line)
        if event is not None and event[0] == self.pane_id:
            self._event.set()

    def on_ended(self) -> None:
        self._lost = True
        self._event.set()

    async def changed(self) -> None:
        """Return once the pane has printed since the last call (or since the watch began)."""
        await self._event.wait()
        if self._lost:
            raise WatchLost(f"the tmux client watching {self.pane_id} ended")
        self._event = anyio.Event()


@dataclass
class _Shared:
    client: ControlClient
    users: int = 0


class OutputWatchers:
    """The output clients of one tmux server, one per session being waited on."""

    def __init__(self, socket: Socket, tmux_bin: str, environ: Mapping[str, str]) -> None:
        self.socket = socket
        self.tmux_bin = tmux_bin
        self.environ = dict(environ)
        self._shared: dict[str, _Shared] = {}
        self._closing: dict[ControlClient, asyncio.Task[None]] = {}
        self._lock = anyio.Lock()

    def client_pids(self) -> frozenset[int]:
        """Every output client still attached, those being closed included."""
        clients = [shared.client for shared in self._shared.values()]
        clients += [client for client in self._closing if client.running]
        return frozenset(client.pid for client in clients)

    @asynccontextmanager
    async def watch(self, session_id: str, pane_id: str) -> AsyncIterator[Watch]:
        """Output events for ``pane_id`` (of ``session_id``) while the block runs."""
        shared = await self._acquire(session_id)
        watch = Watch(shared.client, pane_id)
        remove = shared.client.add_listener(watch.on_line)
        forget = shared.client.on_ended(watch.on_ended)
        try:
            yield watch
        finally:
            remove()
            forget()
            with anyio.CancelScope(shield=True):
                await self._release(session_id, shared)

    async def _acquire(self, session_id: str) -> _Shared:
        async with self._lock:
            shared = self._shared.get(session_id)
            if shared is None or not shared.client.usable:
                client = await ControlClient.start(
                    self.socket, self.tmux_bin, session_id, environ=self.environ, output=True
                )
                shared = self._shared[session_id] = _Shared(client)
            shared.users += 1
            return shared

    async def _release(self, session_id: str, shared: _Shared) -> None:
        async with self._lock:
            shared.users -= 1
            if shared.users > 0:
                return
            if self._shared.get(session_id) is shared:
                del self._shared[session_id]
        self._close_soon(shared.client)

    def _close_soon(self, client: ControlClient) -> None:
        """Close a client no wait uses any more, without holding up the wait's answer.

        A tmux client takes a millisecond or two to leave; the answer need not wait
        for that. Until it has left it stays among ``client_pids`` (hidden from
        every attached count), and ``aclose`` waits for it.
        """
        task = asyncio.get_running_loop().create_task(client.aclose())
        self._closing[client] = task
        task.add_done_callback(lambda _: self._closing.pop(client, None))

    async def settle(self) -> None:
        """Return once the output clients of finished waits have left tmux."""
        with anyio.CancelScope(shield=True):
            for task in list(self._closing.values()):
                await task

    async def aclose(self) -> None:
        async with self._lock:
            clients = [shared.client for shared in self._shared.values()]
            self._shared.clear()
        for client in clients:
            await client.aclose()
        with anyio.CancelScope(shield=True):
            for task in list(self._closing.values()):
                await task
