"""Arranging sessions and windows: names, selection, layouts, sizes, order, buffers in.

Names reach tmux through ``literal_format``: ``rename-session`` and ``rename-window``
expand their argument as a format (3.3a), which would replace ``#{...}`` and run
``#(...)``. Positional user values follow ``--`` so a leading ``-`` is not a flag.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from typing import Any

from ...errors import InvalidArgument, ToolError
from ...generated.python.models.load_buffer import LoadBufferInput, LoadBufferOutput
from ...generated.python.models.move_window import MoveWindowInput, MoveWindowOutput
from ...generated.python.models.rename_session import RenameSessionInput, RenameSessionOutput
from ...generated.python.models.rename_window import RenameWindowInput, RenameWindowOutput
from ...generated.python.models.resize_window import ResizeWindowInput, ResizeWindowOutput
from ...generated.python.models.select_layout import SelectLayoutInput, SelectLayoutOutput
from ...generated.python.models.select_window import SelectWindowInput, SelectWindowOutput
from ..tmux.errors import GONE_DURING_CALL, CommandFailed, NotFound, no_sessions
from ..tmux.objects import layouts
from ..tmux.objects.rows import LINK_FIELDS, LinkRow, SessionRow
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.targets import WINDOW_INDEX, WindowSelector, session_named
from ..tmux.transport.formats import format_of, literal_format, parse_rows
from .listing import (
    ACTIVE_PANE,
    _no_session,
    _pick_link,
    _session_fields,
    _session_target,
    _window_fields,
)

# A window row as the window tools return it: `pane_id` is the window's active pane.
WINDOW_ROW_FIELDS = (*LINK_FIELDS, *ACTIVE_PANE)
WINDOW_ROW_FORMAT = format_of(WINDOW_ROW_FIELDS)

WINDOW_MINIMUM = layouts.WINDOW_MINIMUM  # tmux's bounds for resize-window -x/-y
WINDOW_MAXIMUM = layouts.WINDOW_MAXIMUM

# load_buffer's names (as libtmux-mcp allocates them): own prefix, a nonce, a label.
BUFFER_PREFIX = "libtmux_mcp_"
LOGICAL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}\Z")
DEFAULT_LOGICAL_NAME = "buf"


class WindowTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    # --- sessions -----------------------------------------------------------------------

    async def rename_session(self, params: RenameSessionInput) -> RenameSessionOutput:
        if params.new_name == "":
            raise InvalidArgument(
                "new_name", "", "is empty; tmux has no nameless sessions", "Pass a name."
            )
        session_id, session_name = _session_target(params.session_id, params.session_name)
        server = self.tmux.server(params.socket_name)
        session = _pick_session(server, await server.list_sessions(), session_id, session_name)
        try:
            await server.run(
                "rename-session", "-t", session.session_id, "--", literal_format(params.new_name)
            )
        except CommandFailed as exc:
            if "duplicate session" in exc.stderr:
                raise InvalidArgument(
                    "new_name",
                    params.new_name,
                    f"is taken: tmux {server.socket} already has a session named "
                    f"{exc.stderr.partition(': ')[2]!r} (tmux turns ':' and '.' into '_')",
                    "Pick another name; call list_sessions to see the names in use.",
                ) from None
            _if_gone(exc, server, "session", session.session_id)
            raise
        sessions, attached = await server.sessions_and_clients(extra=ACTIVE_PANE)
        row = next((s for s in sessions if s.session_id == session.session_id), None)
        if row is None:
            raise _vanished(server, "session", session.session_id)
        return RenameSessionOutput(**_session_fields(row, attached))

    # --- windows ------------------------------------------------------------------------

    async def select_window(self, params: SelectWindowInput) -> SelectWindowOutput:
        direction = params.direction
        if direction is None and params.window_id is None and params.window_index is None:
            raise InvalidArgument(
                "window_id",
                None,
                "is missing, and so are window_index and direction",
                "Pass window_id, window_index (with session_name or session_id), or a "
                "direction: next, previous or last.",
            )
        if direction is not None and (
            params.window_id is not None or params.window_index is not None
        ):
            raise InvalidArgument(
                "direction",
                direction,
                "cannot be combined with window_id or window_index",
                "Pass either direction (with session_name or session_id) to step from the "
                "session's current window, or the window to select.",
            )
        session_id, session_name = _session_target(params.session_id, params.session_name)
        server = self.tmux.server(params.socket_name)
        if direction is None:
            selector = WindowSelector(
                params.window_id, params.window_index, session_name, session_id
            )
            link = await _resolve_link(server, selector)
            row = await _window_command(server, link, ("select-window", "-t", link.target))
            return SelectWindowOutput(**_window_fields(row))
        session = _pick_session(server, await server.list_sessions(), session_id, session_name)
        try:
            rows = await _act_then_list(
                server, (f"{direction}-window", "-t", session.session_id), session.session_id
            )
        except CommandFailed as exc:
            if f"no {direction} window" in exc.stderr:
                why = (
                    "no window was current before this one"
                    if direction == "last"
                    else "it has a single window"
                )
                raise ToolError(
                    f"Session {session.name!r} ({session.session_id}) on tmux {server.socket} "
                    f"has no {direction} window: {why}. Call list_windows to see its windows, "
                    "and select one by window_id."
                ) from None
            _if_gone(exc, server, "session", session.session_id)
            raise
        current = [row for row in rows if row["window_active"] == "1"]
        if not current:
            raise _vanished(server, "session", session.session_id)
        return SelectWindowOutput(**_window_fields(current[0]))

    async def rename_window(self, params: RenameWindowInput) -> RenameWindowOutput:
        server, link = await self._window(params)
        row = await _window_command(
            server,
            link,
            ("rename-window", "-t", link.window_id, "--", literal_format(params.new_name)),
        )
        return RenameWindowOutput(**_window_fields(row))

    async def select_layout(self, params: SelectLayoutInput) -> SelectLayoutOutput:
        layout = _layout_shape(params.layout)
        session_id, session_name = _session_target(params.session_id, params.session_name)
        selector = WindowSelector(params.window_id, params.window_index, session_name, session_id)
        server = self.tmux.server(params.socket_name)
        links = await server.list_windows("-a", extra=(*ACTIVE_PANE, "version"))
        link = _pick_link(server, links, selector)
        layout = _known_layout(layout, link["version"])
        try:
            row = await _window_command(
                server, link, ("select-layout", "-t", link.window_id, "--", layout)
            )
        except CommandFailed as exc:  # a layout string tmux cannot apply to this window
            raise InvalidArgument(
                "layout",
                params.layout,
                f"does not fit window {link.window_id} on tmux {server.socket} "
                f"({exc.stderr}): a layout string must come from a window with the same "
                "number of panes",
                "Use a preset (even-horizontal, even-vertical, main-horizontal, "
                "main-vertical, tiled), or a window_layout saved from this window.",
            ) from None
        return SelectLayoutOutput(**_window_fields(row))

    async def resize_window(self, params: ResizeWindowInput) -> ResizeWindowOutput:
        if params.width is None and params.height is None:
            raise InvalidArgument(
                "width",
                None,
                "is missing, and so is height",
                "Pass width (columns), height (rows), or both.",
            )
        size: list[str] = []
        for field, flag, value in (("width", "-x", params.width), ("height", "-y", params.height)):
            if value is None:
                continue
            if not WINDOW_MINIMUM <= value <= WINDOW_MAXIMUM:
                raise InvalidArgument(
                    field,
                    value,
                    f"is out of range (tmux allows {WINDOW_MINIMUM} to {WINDOW_MAXIMUM})",
                    f"Pass a {field} between {WINDOW_MINIMUM} and {WINDOW_MAXIMUM}.",
                )
            size += [flag, str(value)]
        server, link = await self._window(params)
        row = await _window_command(server, link, ("resize-window", "-t", link.window_id, *size))
        return ResizeWindowOutput(**_window_fields(row))

    async def move_window(self, params: MoveWindowInput) -> MoveWindowOutput:
        index = params.destination_index or ""
        if index and not WINDOW_INDEX.fullmatch(index):
            raise InvalidArgument(
                "destination_index",
                index,
                "is not a window index (expected digits, e.g. '3', or '' for the first free one)",
                "Pass digits, or leave destination_index out.",
            )
        session_id, session_name = _session_target(params.session_id, params.session_name)
        selector = WindowSelector(params.window_id, params.window_index, session_name, session_id)
        server = self.tmux.server(params.socket_name)
        links = await server.list_windows("-a", extra=ACTIVE_PANE)
        link = _pick_link(server, links, selector)
        destination = link.session_id
        if params.destination_session is not None:
            destination = _destination(server, links, params.destination_session)
        if destination == link.session_id and index == link["window_index"]:
            return MoveWindowOutput(**_window_fields(link))  # already there: nothing to move
        try:
            rows = await _act_then_list(
                server,
                ("move-window", "-s", link.target, "-t", f"{destination}:{index}"),
                destination,
            )
        except CommandFailed as exc:
            if "index in use" in exc.stderr:
                raise InvalidArgument(
                    "destination_index",
                    index,
                    f"is taken in session {destination} on tmux {server.socket}",
                    "Call list_windows to see the indexes in use, or leave destination_index "
                    "out for the first free one.",
                ) from None
            _if_gone(exc, server, "window", link.window_id)
            raise
        row = _row_of(server, rows, link.window_id, index or None)
        return MoveWindowOutput(**_window_fields(row))

    async def _window(self, params: Any) -> tuple[Server, LinkRow]:
        """The server and the window (as linked at one place) a window tool's fields name."""
        session_id, session_name = _session_target(params.session_id, params.session_name)
        selector = WindowSelector(params.window_id, params.window_index, session_name, session_id)
        server = self.tmux.server(params.socket_name)
        return server, await _resolve_link(server, selector)

    # --- buffers ------------------------------------------------------------------------

    async def load_buffer(self, params: LoadBufferInput) -> LoadBufferOutput:
        """The content reaches tmux through ``set-buffer``, long content a piece at a time
        (a tmux client refuses one command line past about 16 KB): no file is involved,
        so it works as well on a server reached through ssh."""
        if params.content == "":
            raise InvalidArgument(
                "content",
                "",
                "is empty; tmux keeps no empty paste buffers (it would silently make none)",
                "Pass at least one character.",
            )
        label = params.logical_name or DEFAULT_LOGICAL_NAME
        if not LOGICAL_NAME.fullmatch(label):
            raise InvalidArgument(
                "logical_name",
                params.logical_name,
                "may only hold letters, digits, '_', '.' and '-' (1 to 64 of them)",
                "Pass a short label such as 'clip' or 'patch-1', or leave it out.",
            )
        server = self.tmux.server(params.socket_name)
        name = f"{BUFFER_PREFIX}{uuid.uuid4().hex}_{label}"
        content = params.content.encode("utf-8", "replace").decode()  # a lone surrogate: "?"
        await server.buffer(name).set_buffer(content)
        return LoadBufferOutput(buffer_name=name, logical_name=params.logical_name)


# --- helpers --------------------------------------------------------------------------------


def _pick_session(
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
    raise _no_session(server, session_id, name)


def _destination(server: Server, links: Sequence[LinkRow], wanted: str) -> str:
    """The id of the session move_window's destination_session names: an id, or an exact
    name (a session literally named like an id is found when no session has that id)."""
    link = session_named(links, wanted)
    if link is not None:
        return link.session_id
    raise NotFound(
        "session", wanted, socket=server.socket, field="destination_session", by="id or name"
    )


async def _resolve_link(server: Server, selector: WindowSelector) -> LinkRow:
    return _pick_link(server, await server.list_windows("-a", extra=ACTIVE_PANE), selector)


def _window_rows(lines: list[str]) -> list[LinkRow]:
    return [LinkRow(raw) for raw in parse_rows(lines, WINDOW_ROW_FIELDS)]


async def _act_then_list(server: Server, command: Sequence[str], session_id: str) -> list[LinkRow]:
    """Run ``command``, then list the windows of ``session_id`` (one round trip where the
    transport can pipeline); tmux's failure of either is raised as ``CommandFailed``."""
    _, lines = await server.run_many(
        command, ("list-windows", "-t", session_id, "-F", WINDOW_ROW_FORMAT)
    )
    return _window_rows(lines)


async def _window_command(server: Server, link: LinkRow, command: Sequence[str]) -> LinkRow:
    """Run a command on one window and return the window's row afterwards."""
    try:
        rows = await _act_then_list(server, command, link.session_id)
    except CommandFailed as exc:
        if "can't find" in exc.stderr:
            raise _vanished(server, "window", link.window_id) from None
        raise
    return _row_of(server, rows, link.window_id, link["window_index"])


def _row_of(server: Server, rows: Sequence[LinkRow], window_id: str, index: str | None) -> LinkRow:
    """The row of ``window_id`` (at ``index`` when given: a window may be linked twice)."""
    found = [row for row in rows if row.window_id == window_id]
    at = [row for row in found if index is None or row["window_index"] == index]
    if not (at or found):
        raise _vanished(server, "window", window_id)
    return (at or found)[0]


def _vanished(server: Server, what: str, object_id: str) -> NotFound:
    return NotFound(what, object_id, socket=server.socket, note=GONE_DURING_CALL)


def _if_gone(exc: CommandFailed, server: Server, what: str, object_id: str) -> None:
    """Raise ``NotFound`` when ``exc`` says the target disappeared between resolving
    it and acting on it; otherwise the caller re-raises tmux's own error."""
    if exc.not_found:
        raise _vanished(server, what, object_id) from None


# How a caller of this profile gets a layout string to pass back (see ``layouts``).
SAVED_LAYOUT = "a window_layout string exactly as list_windows or get_window_info returned it"


def _layout_shape(layout: str) -> str:
    return layouts.layout_shape(layout, SAVED_LAYOUT)


def _known_layout(layout: str, version: str) -> str:
    return layouts.known_layout(layout, version, SAVED_LAYOUT)
