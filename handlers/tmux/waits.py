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
then reads the pane again, and ``went_away`` / ``died`` word what happened.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio

from ...errors import ToolError
from .control import ControlClient, ControlClientGone, output_event
from .errors import NoServer, TmuxError, UnknownTarget, is_no_server
from .formats import PaneRow
from .sockets import Socket
from .transport import ConnectionLost

if TYPE_CHECKING:
    from .core import Server

WAIT_MAX_ENV = "LIBTMUX_MCP_WAIT_MAX_SECONDS"
DEFAULT_WAIT_MAX = 30.0

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


class WatchLost(TmuxError):
    """The client delivering output ended, or could not attach (its session or server
    went away): read the pane again to learn which, then watch again."""


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


# --- what a wait says when its pane is gone or dead ---------------------------------------


def unreachable(socket: Socket) -> NoServer:
    """The error for a wait that cannot attach its watching client: nothing listens."""
    return NoServer(
        f"No tmux server answers new clients on {socket}: the server exited, or its socket "
        "file was removed while it runs (sending it SIGUSR1, `kill -USR1 PID`, makes tmux "
        "create the file again). Start or restore a server there, then wait again."
    )


def server_went(socket: Socket, pane_id: str, waited: float) -> NoServer:
    """The error for a wait whose tmux server stopped answering while it waited."""
    return NoServer(
        f"The tmux server on {socket} exited (or its socket went) after {waited:.1f}s of "
        f"waiting on pane {pane_id}: no tmux server answers there now. Find out what stopped "
        "it; once a server runs there again, list its panes and start a new wait."
    )


async def went_away(server: Server, pane: PaneRow, waited: float) -> TmuxError:
    """The error for a wait whose pane is no longer there, saying what went with it:
    its window, its session, or the whole server."""
    try:
        rows = await server.run("list-windows", "-a", "-F", "#{session_id} #{window_id}")
    except NoServer:
        return server_went(server.socket, pane.pane_id, waited)
    pairs = [row.split(" ", 1) for row in rows]
    sessions = {pair[0] for pair in pairs}
    windows = {pair[-1] for pair in pairs}
    what = f"Pane {pane.pane_id} on tmux {server.socket} went away after {waited:.1f}s of waiting"
    if pane.session_id not in sessions:
        return UnknownTarget(
            f"{what}: its session {pane.session_id} was closed (killed, or its last pane "
            "exited). Call list_sessions to see the sessions that exist."
        )
    if pane.window_id not in windows:
        return UnknownTarget(
            f"{what}: its window {pane.window_id} was closed (killed, or its last pane "
            "exited). Call list_windows to see the windows that exist."
        )
    return UnknownTarget(
        f"{what}: it was killed, or its program exited. Call list_panes to see the panes "
        "that exist."
    )


def died(socket: Socket, pane: PaneRow, waited: float | None) -> TmuxError:
    """The error for a wait on a pane whose program has exited while ``remain-on-exit``
    keeps the pane: nothing more will print, so waiting on is pointless."""
    status = pane.raw.get("pane_dead_status", "")
    how = f" with status {status}" if status else ""
    when = "" if waited is None else f" after {waited:.1f}s of waiting"
    return TmuxError(
        f"Pane {pane.pane_id} on tmux {socket} is dead{when}: its program exited{how} and "
        "remain-on-exit keeps the pane, so nothing more will print there. Read what it left "
        "(capture_pane), respawn the pane to run a program in it again, or wait on another "
        "pane."
    )
