"""How the rust family's arguments name tmux objects: raw ids (``%N`` panes, ``@N``
windows; a session by ``$N`` or exact name), checked for shape before tmux runs
and looked up in this process, never handed to tmux's own target matching.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..tmux.objects import Pane, Server
from ..tmux.objects.rows import SessionRow
from ..tmux.objects.targets import check_pane_id, session_row
from ..tmux.policy import Guard

CALLER_SHOWN = 'list_panes shows it with caller "self"'


async def session_id_of(server: Server, value: str, field: str) -> str:
    """A session id (``$N``) or exact name, resolved to the session's id."""
    sessions = await server.list_sessions()
    return session_row(sessions, value, socket=server.socket, field=field).session_id


async def session_of(server: Server, value: str, field: str) -> tuple[SessionRow, dict[str, int]]:
    """The session ``value`` names (``$N``, else an exact name), and the attached counts."""
    sessions, attached = await server.sessions_and_clients()
    return session_row(sessions, value, socket=server.socket, field=field), attached


def pane_of(server: Server, value: str) -> Pane:
    """The pane argument ``pane`` names, its shape checked."""
    return server.pane(check_pane_id(value, field="pane"), "pane")


def guard(server: Server, environ: Mapping[str, str]) -> Guard:
    """The self-protection guard, pointing a refused caller at the family's listing."""
    return Guard(server, environ, caller_shown=CALLER_SHOWN)
