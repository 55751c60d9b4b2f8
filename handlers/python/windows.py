"""Windows: listing and describing them, creating one, and renaming, selecting,
arranging, resizing, moving and killing one.

Names reach tmux through ``literal_format``: ``rename-window`` and ``new-window -n``
expand their argument as a format (3.3a), which would replace ``#{...}`` and run
``#(...)``. Positional user values follow ``--`` so a leading ``-`` is not a flag.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...errors import InvalidArgument, ToolError
from ...generated.python.models.create_window import CreateWindowInput, CreateWindowOutput
from ...generated.python.models.get_window_info import GetWindowInfoInput, GetWindowInfoOutput
from ...generated.python.models.kill_window import KillWindowInput, KillWindowOutput
from ...generated.python.models.list_windows import (
    ListWindowsInput,
    ListWindowsOutput,
    ListWindowsOutputResultItem,
)
from ...generated.python.models.move_window import MoveWindowInput, MoveWindowOutput
from ...generated.python.models.rename_window import RenameWindowInput, RenameWindowOutput
from ...generated.python.models.resize_window import ResizeWindowInput, ResizeWindowOutput
from ...generated.python.models.select_layout import SelectLayoutInput, SelectLayoutOutput
from ...generated.python.models.select_window import SelectWindowInput, SelectWindowOutput
from ...seam import Call
from ..tmux.errors import CommandFailed, NotFound
from ..tmux.objects import layouts
from ..tmux.objects.pane import ACTIVE_ONLY
from ..tmux.objects.rows import LINK_FIELDS, LinkRow
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.spawn import no_nul
from ..tmux.objects.targets import WINDOW_INDEX, WindowSelector, check_window_id, session_named
from ..tmux.policy import Guard
from ..tmux.transport.formats import format_of, literal_format, parse_rows
from .arguments import spawn_args
from .filters import Filters
from .rows import ACTIVE_PANE, WINDOW_REPLY, window_fields
from .targets import (
    if_gone,
    in_session,
    pick_link,
    pick_session,
    selector_of,
    session_target,
    vanished,
)

# A window row as the window tools return it: `pane_id` is the window's active pane.
WINDOW_ROW_FIELDS = (*LINK_FIELDS, *ACTIVE_PANE)

WINDOW_ROW_FORMAT = format_of(WINDOW_ROW_FIELDS)

WINDOW_MINIMUM = layouts.WINDOW_MINIMUM  # tmux's bounds for resize-window -x/-y

WINDOW_MAXIMUM = layouts.WINDOW_MAXIMUM


class WindowTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def list_windows(self, call: Call, params: ListWindowsInput) -> ListWindowsOutput:
        keep = Filters.parse(params.filters, ListWindowsOutputResultItem)
        session_id, session_name = session_target(params.session_id, params.session_name)
        server = self.tmux.server(params.socket_name)
        links = await server.list_windows("-a", extra=ACTIVE_PANE)
        if session_id is not None or session_name is not None:
            links = in_session(server, links, session_id, session_name)
        rows = keep([window_fields(link) for link in links])
        return ListWindowsOutput(result=[ListWindowsOutputResultItem(**row) for row in rows])

    async def get_window_info(self, call: Call, params: GetWindowInfoInput) -> GetWindowInfoOutput:
        selector = selector_of(
            params.window_id,
            params.session_name,
            params.session_id,
            window_index=params.window_index,
        )
        server = self.tmux.server(params.socket_name)
        links = await server.list_windows("-a", extra=ACTIVE_PANE)
        return GetWindowInfoOutput(**window_fields(pick_link(server, links, selector)))

    async def create_window(self, call: Call, params: CreateWindowInput) -> CreateWindowOutput:
        selector = selector_of(None, params.session_name, params.session_id)
        args = ["new-window", "-P", "-F", format_of(WINDOW_REPLY)]
        if not params.attach:
            args.append("-d")
        if params.window_name is not None:
            args += ["-n", literal_format(no_nul("window_name", params.window_name))]
        args += await spawn_args(
            self.tmux.environ,
            params.start_directory,
            params.environment,
            params.suppress_persistent_history,
        )
        server = self.tmux.server(params.socket_name)
        current = (await selector.resolve_window(server, ACTIVE_ONLY)).active_pane
        session_id = current.session_id
        if params.direction is None:
            args += ["-t", f"{session_id}:"]  # the first free index
        else:
            place = "-a" if params.direction == "after" else "-b"
            args += [place, "-t", f"{session_id}:{current['window_index']}"]
        lines = await server.run(*args)
        row = server.made_one("window", parse_rows(lines, WINDOW_REPLY), lines, "list_windows")
        return CreateWindowOutput(
            window_id=row["window_id"],
            window_name=row["window_name"],
            window_index=row["window_index"],
            session_id=row["session_id"],
            session_name=row["session_name"],
            pane_count=int(row["window_panes"] or 0),
            window_layout=row["window_layout"] or None,
            window_active=row["window_active"],
            window_width=row["window_width"],
            window_height=row["window_height"],
            active_pane_id=row["pane_id"] or None,
        )

    async def select_window(self, call: Call, params: SelectWindowInput) -> SelectWindowOutput:
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
        session_id, session_name = session_target(params.session_id, params.session_name)
        server = self.tmux.server(params.socket_name)
        if direction is None:
            selector = selector_of(
                params.window_id,
                params.session_name,
                params.session_id,
                window_index=params.window_index,
            )
            link = await _resolve_link(server, selector)
            row = await _window_command(server, link, ("select-window", "-t", link.target))
            return SelectWindowOutput(**window_fields(row))
        session = pick_session(server, await server.list_sessions(), session_id, session_name)
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
            if_gone(exc, server, "session", session.session_id)
            raise
        current = [row for row in rows if row["window_active"] == "1"]
        if not current:
            raise vanished(server, "session", session.session_id)
        return SelectWindowOutput(**window_fields(current[0]))

    async def rename_window(self, call: Call, params: RenameWindowInput) -> RenameWindowOutput:
        server, link = await self._window(params)
        row = await _window_command(
            server,
            link,
            ("rename-window", "-t", link.window_id, "--", literal_format(params.new_name)),
        )
        return RenameWindowOutput(**window_fields(row))

    async def select_layout(self, call: Call, params: SelectLayoutInput) -> SelectLayoutOutput:
        layout = _layout_shape(params.layout)
        selector = selector_of(
            params.window_id,
            params.session_name,
            params.session_id,
            window_index=params.window_index,
        )
        server = self.tmux.server(params.socket_name)
        links = await server.list_windows("-a", extra=(*ACTIVE_PANE, "version"))
        link = pick_link(server, links, selector)
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
        return SelectLayoutOutput(**window_fields(row))

    async def resize_window(self, call: Call, params: ResizeWindowInput) -> ResizeWindowOutput:
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
        return ResizeWindowOutput(**window_fields(row))

    async def move_window(self, call: Call, params: MoveWindowInput) -> MoveWindowOutput:
        index = params.destination_index or ""
        if index and not WINDOW_INDEX.fullmatch(index):
            raise InvalidArgument(
                "destination_index",
                index,
                "is not a window index (expected digits, e.g. '3', or '' for the first free one)",
                "Pass digits, or leave destination_index out.",
            )
        selector = selector_of(
            params.window_id,
            params.session_name,
            params.session_id,
            window_index=params.window_index,
        )
        server = self.tmux.server(params.socket_name)
        links = await server.list_windows("-a", extra=ACTIVE_PANE)
        link = pick_link(server, links, selector)
        destination = link.session_id
        if params.destination_session is not None:
            destination = _destination(server, links, params.destination_session)
        if destination == link.session_id and index == link["window_index"]:
            return MoveWindowOutput(**window_fields(link))  # already there: nothing to move
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
            if_gone(exc, server, "window", link.window_id)
            raise
        row = _row_of(server, rows, link.window_id, index or None)
        return MoveWindowOutput(**window_fields(row))

    async def _window(self, params: Any) -> tuple[Server, LinkRow]:
        """The server and the window (as linked at one place) a window tool's fields name."""
        selector = selector_of(
            params.window_id,
            params.session_name,
            params.session_id,
            window_index=params.window_index,
        )
        server = self.tmux.server(params.socket_name)
        return server, await _resolve_link(server, selector)

    async def kill_window(self, call: Call, params: KillWindowInput) -> KillWindowOutput:
        window_id = check_window_id(params.window_id)
        server = self.tmux.server(params.socket_name)
        await Guard(server, self.tmux.environ).kill_window(window_id)
        await server.window(window_id).kill_window()
        return KillWindowOutput(result=f"Window killed: {window_id}")


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
    return pick_link(server, await server.list_windows("-a", extra=ACTIVE_PANE), selector)


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
            raise vanished(server, "window", link.window_id) from None
        raise
    return _row_of(server, rows, link.window_id, link["window_index"])


def _row_of(server: Server, rows: Sequence[LinkRow], window_id: str, index: str | None) -> LinkRow:
    """The row of ``window_id`` (at ``index`` when given: a window may be linked twice)."""
    found = [row for row in rows if row.window_id == window_id]
    at = [row for row in found if index is None or row["window_index"] == index]
    if not (at or found):
        raise vanished(server, "window", window_id)
    return (at or found)[0]


# How a caller of this profile gets a layout string to pass back (see ``layouts``).
SAVED_LAYOUT = "a window_layout string exactly as list_windows or get_window_info returned it"


def _layout_shape(layout: str) -> str:
    return layouts.layout_shape(layout, SAVED_LAYOUT)


def _known_layout(layout: str, version: str) -> str:
    return layouts.known_layout(layout, version, SAVED_LAYOUT)
