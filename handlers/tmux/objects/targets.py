"""Turning the ids and names an agent gives into the panes, windows and sessions of one server.

Shapes are checked before any tmux command runs. Names are matched exactly
in Python, never handed to tmux's target parser, which would match prefixes
and patterns and read ``:`` and ``.`` as separators.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from ....errors import InvalidArgument, ToolError
from ..errors import NotFound, no_sessions
from .pane import ACTIVE_ONLY
from .rows import PANE_FIELDS, LinkRow, PaneRow, SessionRow
from .window import WindowPanes

if TYPE_CHECKING:
    from .server import Server

PANE_ID = re.compile(r"^%[0-9]+\Z")
WINDOW_ID = re.compile(r"^@[0-9]+\Z")
SESSION_ID = re.compile(r"^\$[0-9]+\Z")
WINDOW_INDEX = re.compile(r"^[0-9]+\Z")

SessionRowT = TypeVar("SessionRowT", SessionRow, LinkRow)


def check_pane_id(value: str, field: str = "pane_id") -> str:
    if not PANE_ID.fullmatch(value):
        raise InvalidArgument(
            field,
            value,
            "is not a pane id (expected '%' and digits, e.g. '%1')",
            "Call list_panes to see the pane ids.",
        )
    return value


def check_window_id(value: str, field: str = "window_id") -> str:
    if not WINDOW_ID.fullmatch(value):
        raise InvalidArgument(
            field,
            value,
            "is not a window id (expected '@' and digits, e.g. '@1')",
            "Call list_windows to see the window ids.",
        )
    return value


def check_session_id(value: str, field: str = "session_id") -> str:
    if not is_session_id(value):
        raise InvalidArgument(
            field,
            value,
            "is not a session id (expected '$' and digits, e.g. '$0')",
            "Call list_sessions to see the session ids, or pass session_name.",
        )
    return value


def check_window_index(value: str, field: str = "window_index") -> str:
    if not WINDOW_INDEX.fullmatch(value):
        raise InvalidArgument(
            field,
            value,
            "is not a window index (expected digits, e.g. '0')",
            "Call list_windows to see the window indexes.",
        )
    return value


def is_session_id(value: str) -> bool:
    """A ``$``-prefixed value with digits is a session id; anything else is a name."""
    return SESSION_ID.fullmatch(value) is not None


def session_named(rows: Sequence[SessionRowT], value: str) -> SessionRowT | None:
    """The row of the session ``value`` names: by id when it has an id's shape and one
    matches, else by exact name (a session may be named like an id). The one rule for
    every argument that takes a session id or name."""
    if is_session_id(value):
        row = next((r for r in rows if r.session_id == value), None)
        if row is not None:
            return row
    return next((r for r in rows if r["session_name"] == value), None)


def session_row(
    rows: Sequence[SessionRowT], value: str, *, socket: object, field: str
) -> SessionRowT:
    """The row of the session ``value`` names (``session_named``), or ``NotFound``."""
    row = session_named(rows, value)
    if row is None:
        raise NotFound("session", value, socket=socket, field=field, by="id or name")
    return row


async def check_session_pair(
    server: Server, session_id: str | None, session_name: str | None, prefix: str = ""
) -> None:
    """When a call gives both ``session_id`` and ``session_name``, they must name one session.

    The one rule for every tool that takes both: one ``list-sessions`` tells, and a
    pair naming two sessions, or a field naming none, is refused before the call does
    anything else. ``prefix`` places the fields in the call (``operations[2].``).
    """
    if session_id is None or session_name is None:
        return
    check_session_id(session_id, f"{prefix}session_id")
    sessions = await server.list_sessions()
    by_id = next((row for row in sessions if row.session_id == session_id), None)
    by_name = next((row for row in sessions if row.name == session_name), None)
    if by_id is not None and by_name is not None and by_id.session_id == by_name.session_id:
        return
    named_by_id = f"session {by_id.name!r}" if by_id is not None else "no session"
    named_by_name = f"session {by_name.session_id}" if by_name is not None else "no session"
    raise ToolError(
        f"`{prefix}session_id` and `{prefix}session_name` must name the same session, but "
        f"session_id {session_id!r} names {named_by_id} and session_name {session_name!r} "
        f"names {named_by_name} on tmux {server.socket}. Pass only one of them, or both for "
        "the same session (list_sessions shows each session's id and name). Nothing was changed."
    )


@dataclass(frozen=True)
class WindowSelector:
    """How a tool was told which window to work in; checked on construction."""

    window_id: str | None = None
    window_index: str | None = None
    session_name: str | None = None
    session_id: str | None = None

    def __post_init__(self) -> None:
        if self.window_id is not None:
            check_window_id(self.window_id)
        if self.window_index is not None:
            check_window_index(self.window_index)
            if self.session_name is None and self.session_id is None:
                raise InvalidArgument(
                    "window_index",
                    self.window_index,
                    "needs a session (an index is only unique within one session)",
                    "Pass session_name or session_id with it, or pass window_id instead.",
                )
        if self.session_id is not None:
            check_session_id(self.session_id)

    async def resolve_window(
        self, server: Server, only: str | None = None, fields: Sequence[str] = PANE_FIELDS
    ) -> WindowPanes:
        """The window this names on ``server``; with nothing named, the first session's
        active window.

        ``only`` is a fixed ``list-panes -f`` filter of ours (never a caller's value):
        for a window named by id, tmux then formats just the panes the caller will
        look at, which is most of what a listing costs it. Other selectors need
        every pane to find the window, so they get every pane. ``fields`` are the
        fields its panes hold (``TARGET_FIELDS`` and what the caller reads).
        """
        if self.window_id is not None:
            return await server.window(self.window_id).list_panes(only=only, fields=fields)
        rows = await server.list_panes("-a", fields=fields)
        if not rows:
            raise no_sessions(server.socket)
        session_id = self._session_id(rows, server.socket)
        in_session = [row for row in rows if row.session_id == session_id]
        if self.window_index is not None:
            in_window = [row for row in in_session if row.raw["window_index"] == self.window_index]
            if not in_window:
                name = in_session[0].raw["session_name"]
                raise NotFound(
                    "window",
                    self.window_index,
                    socket=server.socket,
                    field="window_index",
                    by="index",
                    within=f"session {name!r} ({session_id})",
                )
            return WindowPanes.of(in_window[0].window_id, in_window)
        active = [row for row in in_session if row.window_active]
        return WindowPanes.of((active or in_session)[0].window_id, active or in_session)

    def _session_id(self, rows: list[PaneRow], socket: object) -> str:
        if self.session_id is not None:
            if not any(row.session_id == self.session_id for row in rows):
                raise NotFound("session", self.session_id, socket=socket, field="session_id")
            return self.session_id  # a session_name beside it agrees (check_session_pair)
        if self.session_name is not None:
            match = [row for row in rows if row.raw["session_name"] == self.session_name]
            if not match:
                raise NotFound(
                    "session", self.session_name, socket=socket, field="session_name", by="name"
                )
            return match[0].session_id
        return rows[0].session_id

    async def resolve_pane(
        self, server: Server, pane_id: str | None = None, fields: Sequence[str] = PANE_FIELDS
    ) -> PaneRow:
        """The pane a call names: ``pane_id``, else the active pane of the window this
        names (with nothing named, the first session's active window), as tmux would
        pick. ``fields`` as for ``resolve_window``."""
        if pane_id is not None:
            return await server.pane(check_pane_id(pane_id)).row(fields)
        return (await self.resolve_window(server, ACTIVE_ONLY, fields)).active_pane


TARGET_FIELDS: tuple[str, ...] = (
    "pane_id",
    "pane_index",
    "pane_active",
    "window_id",
    "window_index",
    "window_active",
    "session_id",
    "session_name",
)
"""The pane fields resolving a target reads: a caller's ``fields`` must include them."""
