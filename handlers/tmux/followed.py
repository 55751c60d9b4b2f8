"""The pane row a run or a wait reads while it follows the pane's output stream.

One set of fields serves both: what the stream's watch needs (session and
window), whether the pane is dead and how it ended, which program is in front
(a shell at its prompt, or a full-screen one), and where the cursor is.
"""

from __future__ import annotations

from .core import Server
from .errors import NotFound
from .formats import SERVER_FIELDS, PaneRow

FIELDS = (
    "pane_id",
    "window_id",
    "session_id",
    "pane_pid",
    "pane_active",
    "pane_dead",
    "pane_dead_status",
    "pane_current_command",
    "alternate_on",
    "history_size",
    "cursor_y",
    *SERVER_FIELDS,
)


async def pane_now(server: Server, pane_id: str) -> PaneRow | None:
    """The pane's row as it is now, or None when it no longer exists."""
    return await server.pane(pane_id, FIELDS)


def missing(server: Server, pane_id: str, field: str) -> NotFound:
    return NotFound("pane", pane_id, socket=server.socket, field=field)
