"""Waking on pane output instead of polling for it.

tmux sends ``%output`` only to control clients attached to the pane's session
and not started with ``no-output``, so waits get their own clients: one per
session, shared by every wait on that session's panes and closed when the
last wait ends. A wait wakes on an ``%output`` line for its pane, never on a
timer; what changed is then read the ordinary way.

A wait also wakes when its pane may have gone or died, so that it ends at once
instead of at its timeout: on the notifications tmux sends when a pane leaves a
window (``%layout-change``), a window or session closes, or the client's session
changes; when the client ends (the session or the server went); and when tmux
reports the pane dead under ``remain-on-exit``, through a format subscription
(``refresh-client -B``) that tmux itself checks about once a second. The wait
then reads the pane again (``waits.went_away`` / ``waits.died`` word what happened).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass

import anyio

from ..errors import ConnectionLost, ControlClientGone, NoServer, WatchLost, is_no_server
from .control import ControlClient, output_event
from .sockets import Socket

# Notifications after which a watched pane may be gone: a pane left a window (its
# layout changed), a window or a session closed, the client's session changed.
MAY_HAVE_GONE = (
    "%layout-change ",
    "%window-close ",
    "%unlinked-window-close ",
    "%window-pane-changed ",
    "%session-window-changed ",
    "%session-changed ",
    "%sessions-changed",
    "%exit",
)
# A subscription to every pane's ``pane_dead`` in the client's session: tmux sends
# ``%subscription-changed`` when a value changes (it checks about once a second).
DEAD_SUBSCRIPTION = "tcm-pane-dead"
SUBSCRIBE_DEAD = ("refresh-client", "-B", f"{DEAD_SUBSCRIPTION}:%*:#{{pane_dead}}")


def dead_pane(line: str) -> str | None:
    """The pane a ``%subscription-changed`` line of ours reports dead, else None.

    The line reads ``%subscription-changed NAME $S @W INDEX %P … : VALUE``.
    """
    if not line.startswith("%subscription-changed "):
        return None
    head, separator, value = line.partition(" : ")
    words = head.split(" ")
    if not separator or value != "1" or len(words) < 6 or words[1] != DEAD_SUBSCRIPTION:
        return None
    return words[5]


class Watch:
    """Events of one pane (it printed, it may have gone, it died), remembered until
    ``changed`` consumes them."""

    def __init__(self, client: ControlClient, pane_id: str) -> None:
        self.client = client
        self.pane_id = pane_id
        self._event = anyio.Event()
        self._lost = False

    def on_line(self, line: str) -> None:
        event = output_event(line)
        if event is not None:
            if event[0] == self.pane_id:
                self._event.set()
        elif line.startswith(MAY_HAVE_GONE) or dead_pane(line) == self.pane_id:
            self._event.set()

    def on_ended(self) -> None:
        self._lost = True
        self._event.set()

    async def changed(self) -> None:
        """Return once the pane has printed, or may have gone or died, since the last call
        (or since the watch began): the caller reads the pane again to know which."""
        await self._event.wait()
        if self._lost and self.client.lost is not None:
            raise ConnectionLost(f"Waiting on pane {self.pane_id}: {self.client.lost}")
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

    def sessions_watched(self) -> list[str]:
        """The sessions an output client is attached to now (usable ones only)."""
        return [sid for sid, shared in self._shared.items() if shared.client.usable]

    async def lease(self, session_id: str) -> Lease:
        """The output client of ``session_id`` (shared with waits), held until released:
        for watches that outlive any one block, such as a resource's subscribers'."""
        return Lease(self, session_id, await self._acquire(session_id))

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
                try:
                    # The subscription travels with the attach: without it a pane that
                    # dies under remain-on-exit sends nothing at all.
                    client = await ControlClient.start(
                        self.socket,
                        self.tmux_bin,
                        session_id,
                        environ=self.environ,
                        output=True,
                        then=(SUBSCRIBE_DEAD,),
                    )
                except ControlClientGone as exc:
                    if is_no_server(str(exc)):
                        raise unreachable(self.socket) from None
                    raise WatchLost(str(exc)) from None
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


class Lease:
    """One hold on a session's output client (``OutputWatchers.lease``); ``release`` once."""

    def __init__(self, watchers: OutputWatchers, session_id: str, shared: _Shared) -> None:
        self.session_id = session_id
        self.client = shared.client
        self._watchers = watchers
        self._shared: _Shared | None = shared

    async def release(self) -> None:
        shared, self._shared = self._shared, None
        if shared is not None:
            with anyio.CancelScope(shield=True):
                await self._watchers._release(self.session_id, shared)


def unreachable(socket: Socket) -> NoServer:
    """The error for a wait that cannot attach its watching client: nothing listens."""
    return NoServer(
        f"No tmux server answers new clients on {socket}: the server exited, or its socket "
        "file was removed while it runs (sending it SIGUSR1, `kill -USR1 PID`, makes tmux "
        "create the file again). Start or restore a server there, then wait again."
    )
