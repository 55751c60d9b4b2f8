"""What a wait says when its pane is gone or dead.

A wait whose pane went (killed, its window, session or server gone) or died under
``remain-on-exit`` ends at once with an error naming what happened (the events
that wake it: ``transport.events``; how long any wait may last: ``policy.limits``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import NoServer, NotFound, TmuxError
from ..transport.sockets import Socket
from .rows import PaneRow

if TYPE_CHECKING:
    from .server import Server


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
    went = f"it went away after {waited:.1f}s of waiting"
    closed = "was closed (killed, or its last pane exited)"
    if pane.session_id not in sessions:
        why, lister = f"{went}: its session {pane.session_id} {closed}", "list_sessions"
    elif pane.window_id not in windows:
        why, lister = f"{went}: its window {pane.window_id} {closed}", "list_windows"
    else:
        why, lister = f"{went}: it was killed, or its program exited", "list_panes"
    return NotFound("pane", pane.pane_id, socket=server.socket, lister=lister, note=why)


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


async def gone_while_waiting(server: Server, pane: PaneRow, waited: float) -> TmuxError:
    """The error for a pane that went (or died) while a call waited on it: ``went_away``,
    or ``server_went`` when the whole server is gone."""
    try:
        return await went_away(server, pane, waited)
    except NoServer:
        return server_went(server.socket, pane.pane_id, waited)
