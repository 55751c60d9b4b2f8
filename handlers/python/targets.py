"""How the python profile's arguments name tmux objects: the window and pane fields
of a call, the session pair check every tool runs first, and the session, window
and pane a call's fields resolve to.

libtmux-mcp's target fields let a call name a session twice. Rather than let
one field silently win in some tools and be refused in others, every tool
method runs ``targets.check_session_pair`` before its own work
(``session_pair_check``): agreeing values pass, a pair naming two sessions (or a
field naming none) is refused with both named, after one read-only lookup.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from ...seam import Call
from ..compose import Method, Wrap
from ..tmux.errors import GONE_DURING_CALL, CommandFailed, NotFound, no_sessions
from ..tmux.objects.pane import ACTIVE_ONLY
from ..tmux.objects.rows import LinkRow, PaneRow, SessionRow
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.targets import (
    WindowSelector,
    check_pane_id,
    check_session_id,
    check_session_pair,
    check_window_id,
    check_window_index,
)

RowT = TypeVar("RowT", LinkRow, PaneRow)

ID_SHAPES: dict[str, Callable[[str], str]] = {
    "pane_id": check_pane_id,
    "window_id": check_window_id,
    "window_index": check_window_index,
}
"""Fields whose shape is checked before the lookup, so a malformed call runs nothing."""


def selector_of(
    window_id: str | None,
    session_name: str | None,
    session_id: str | None,
    prefix: str = "",
    *,
    window_index: str | None = None,
) -> WindowSelector:
    """The window selector of a call's target fields, shapes checked (a session_name beside
    a session_id agrees with it: see ``check_session_pair``)."""
    if window_id is not None:
        check_window_id(window_id, f"{prefix}window_id")
    if session_id is not None:
        check_session_id(session_id, f"{prefix}session_id")
        session_name = None
    return WindowSelector(window_id, window_index, session_name, session_id)


async def target_pane(server: Server, pane_id: str | None, selector: WindowSelector) -> str:
    """``pane_id`` as given, its shape checked (the command using it reports a missing
    pane), else the active pane of the selected window, else of the first session's
    active window."""
    if pane_id is not None:
        return check_pane_id(pane_id)
    return (await selector.resolve_window(server, ACTIVE_ONLY)).active_pane.pane_id


class Targeted(Protocol):
    """The target fields of send_keys, paste_text and run_command."""

    @property
    def pane_id(self) -> str | None: ...
    @property
    def window_id(self) -> str | None: ...
    @property
    def session_name(self) -> str | None: ...
    @property
    def session_id(self) -> str | None: ...
    @property
    def socket_name(self) -> str | None: ...


async def pane_to_type_into(tmux: Tmux, params: Targeted) -> tuple[Server, str]:
    """The server and pane a typing call names, every field's shape checked first."""
    if params.pane_id is not None:
        check_pane_id(params.pane_id)
    selector = selector_of(params.window_id, params.session_name, params.session_id)
    server = tmux.server(params.socket_name)
    return server, await target_pane(server, params.pane_id, selector)


def _given(params: Any, field: str) -> str | None:
    value = getattr(params, field, None)
    return value if isinstance(value, str) else None  # None, or a model's MISSING


def session_pair_check(tmux: Tmux) -> Wrap:
    """The ``wrap`` for ``compose``: a tool method that checks the pair before it runs.

    Only tool methods are wrapped (``compose``'s ``wrapped``): resource, prompt and
    completion methods take other parameters.
    """

    def wrap(name: str, method: Method) -> Method:
        @functools.wraps(method)
        async def checked(call: Call, params: Any) -> Any:
            session_id = _given(params, "session_id")
            session_name = _given(params, "session_name")
            if session_id is not None and session_name is not None:
                for field, check in ID_SHAPES.items():
                    value = _given(params, field)
                    if value is not None:
                        check(value)
                server = tmux.server(_given(params, "socket_name"))
                await check_session_pair(server, session_id, session_name)
            return await method(call, params)

        return checked

    return wrap


def session_target(
    session_id: str | None, session_name: str | None
) -> tuple[str | None, str | None]:
    """The session fields to go by: the id's shape checked, and the id winning over a name."""
    if session_id is not None:
        return check_session_id(session_id), None
    return None, session_name


def in_session(
    server: Server, rows: Sequence[RowT], session_id: str | None, session_name: str | None
) -> list[RowT]:
    """The rows of the session named by id (exactly) or else by exact name."""
    if session_id is not None:
        found = [row for row in rows if row.session_id == session_id]
    else:
        found = [row for row in rows if row["session_name"] == session_name]
    if not found:
        raise no_session(server, session_id, session_name)
    return found


def pick_link(server: Server, links: list[LinkRow], selector: WindowSelector) -> LinkRow:
    """The window a get_window_info call names, as linked at one place."""
    session_id, session_name = selector.session_id, selector.session_name
    named_session = session_id is not None or session_name is not None
    if selector.window_id is not None:
        found = [link for link in links if link.window_id == selector.window_id]
        if not found:
            raise NotFound("window", selector.window_id, socket=server.socket, field="window_id")
        # Linked in several sessions: the place in the named session, if it is linked there.
        there = [
            link
            for link in found
            if link.session_id == session_id or link["session_name"] == session_name
        ]
        return (there or found)[0]
    if not links:
        raise no_sessions(server.socket)
    if named_session:
        candidates = in_session(server, links, session_id, session_name)
    else:
        candidates = [link for link in links if link.session_id == links[0].session_id]
    if selector.window_index is not None:
        at = [link for link in candidates if link["window_index"] == selector.window_index]
        if not at:
            name = candidates[0]["session_name"]
            raise NotFound(
                "window",
                selector.window_index,
                socket=server.socket,
                field="window_index",
                by="index",
                within=f"session {name!r} ({candidates[0].session_id})",
            )
        return at[0]
    active = [link for link in candidates if link["window_active"] == "1"]
    return (active or candidates)[0]


def no_session(server: Server, session_id: str | None, session_name: str | None) -> NotFound:
    if session_id is not None:
        return NotFound("session", session_id, socket=server.socket, field="session_id")
    return NotFound("session", session_name, socket=server.socket, field="session_name", by="name")


def pick_session(
    server: Server, sessions: Sequence[SessionRow], session_id: str | None, name: str | None
) -> SessionRow:
    """The session named by id, else by exact name, else the first session."""
    if not sessions:
        raise no_sessions(server.socket)
    if session_id is None and name is None:
        return sessions[0]
    for row in sessions:
        if session_id is not None and row.session_id == session_id:
            return row
        if session_id is None and row.name == name:
            return row
    raise no_session(server, session_id, name)


def vanished(server: Server, what: str, object_id: str) -> NotFound:
    return NotFound(what, object_id, socket=server.socket, note=GONE_DURING_CALL)


def if_gone(exc: CommandFailed, server: Server, what: str, object_id: str) -> None:
    """Raise ``NotFound`` when ``exc`` says the target disappeared between resolving
    it and acting on it; otherwise the caller re-raises tmux's own error."""
    if exc.not_found:
        raise vanished(server, what, object_id) from None
