"""The rust profile's manage tools that arrange sessions, windows and panes.

Targets are raw ids (``%N`` panes, ``@N`` windows; a session by ``$N`` or exact name),
checked for shape before tmux runs and looked up in this process, never handed to
tmux's own target matching. Names and titles are made literal (``literal_format``)
because tmux expands them as formats. Everything that can be judged before tmux runs
is judged first, so a refused call changes nothing. Rows come from ``rows``.
"""

from __future__ import annotations

from ...errors import InvalidArgument, ToolError
from ...generated.rust.models.move_window import MoveWindowInput, MoveWindowOutput
from ...generated.rust.models.rename_session import RenameSessionInput, RenameSessionOutput
from ...generated.rust.models.rename_window import RenameWindowInput, RenameWindowOutput
from ...generated.rust.models.resize_pane import ResizePaneInput, ResizePaneOutput
from ...generated.rust.models.resize_window import ResizeWindowInput, ResizeWindowOutput
from ...generated.rust.models.select_layout import SelectLayoutInput, SelectLayoutOutput
from ...generated.rust.models.select_window import (
    SelectWindowDirection,
    SelectWindowInput,
    SelectWindowOutput,
)
from ...generated.rust.models.set_mouse_enabled import (
    SetMouseEnabledInput,
    SetMouseEnabledOutput,
)
from ...generated.rust.models.set_pane_title import SetPaneTitleInput, SetPaneTitleOutput
from ...generated.rust.models.swap_pane import SwapPaneInput, SwapPaneOutput
from ..tmux.errors import GONE_DURING_CALL, CommandFailed, NotFound
from ..tmux.objects import layouts
from ..tmux.objects.rows import LinkRow, SessionRow
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.targets import check_pane_id, check_window_id, session_row
from ..tmux.objects.titles import check_title
from ..tmux.transport.formats import literal_format
from .rows import WINDOW_EXTRA, pane_view, session_view, window_view

WINDOW_MAXIMUM = layouts.WINDOW_MAXIMUM
RESIZE_FLAGS = layouts.RESIZE_FLAGS
SAVED_LAYOUT = layouts.SAVED_BY_VARIABLE
STEPS = {"next": 1, "previous": -1}
UNCHANGED = "nothing was changed"


class Arranging:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    # --- sessions and windows ---------------------------------------------------------

    async def rename_session(self, params: RenameSessionInput) -> RenameSessionOutput:
        name = params.name
        if not name:
            raise InvalidArgument("name", name, "is empty", "Pass the new name, e.g. 'build'.")
        server = self.tmux.server()
        session = (await session_of(server, params.session, "session"))[0]
        if name != session.name:  # the same name again is already done
            try:
                await server.run(
                    "rename-session", "-t", session.session_id, "--", literal_format(name)
                )
            except CommandFailed as exc:
                if "duplicate session" not in exc.stderr:
                    raise
                raise ToolError(
                    f"Invalid argument `name`: {name!r} is refused by tmux on {server.socket}: "
                    "another session already has that name. Pass a name no other session has "
                    "(list_sessions shows them); nothing was changed.",
                    kind="refused",
                ) from None
        row, attached = await session_of(server, session.session_id, "session")
        return RenameSessionOutput.model_validate(session_view(row, attached))

    async def rename_window(self, params: RenameWindowInput) -> RenameWindowOutput:
        window_id = check_window_id(params.window, "window")
        server = self.tmux.server()
        await server.window(window_id, "window").links(WINDOW_EXTRA)
        window = server.window(window_id, "window")
        await window.run("rename-window", "--", literal_format(params.name), note=GONE_DURING_CALL)
        return RenameWindowOutput.model_validate(
            window_view((await server.window(window_id, "window").links(WINDOW_EXTRA))[0])
        )

    async def move_window(self, params: MoveWindowInput) -> MoveWindowOutput:
        window_id = check_window_id(params.window, "window")
        index = params.destination_index
        if index < 0:
            raise InvalidArgument(
                "destination_index",
                index,
                "is negative",
                "Pass a free window index, 0 or more (list_windows shows those in use).",
            )
        server = self.tmux.server()
        links = await server.window(window_id, "window").links(WINDOW_EXTRA)
        session = (await session_of(server, params.destination_session, "destination_session"))[0]
        here = [row for row in links if row.session_id == session.session_id]
        if not any(row.index == index for row in here):  # else it is already there
            link = (here or links)[0]  # a link in that session moves within it
            destination = f"{session.session_id}:{index}"
            try:
                await server.run("move-window", "-s", link.target, "-t", destination)
            except CommandFailed as exc:
                if "index in use" not in exc.stderr:
                    raise
                raise ToolError(
                    f"Invalid argument `destination_index`: index {index} of session "
                    f"{session.session_id} on tmux {server.socket} holds another window, and "
                    "tmux refuses to move onto it; nothing was moved. Pick a free index "
                    "(list_windows shows those in use).",
                    kind="refused",
                ) from None
        return MoveWindowOutput.model_validate(
            window_view(await link_at(server, window_id, session.session_id, index))
        )

    async def resize_window(self, params: ResizeWindowInput) -> ResizeWindowOutput:
        for field, value in (("width", params.width), ("height", params.height)):
            check_cells(field, value, "columns" if field == "width" else "rows")
        window_id = check_window_id(params.window, "window")
        server = self.tmux.server()
        await server.window(window_id, "window").links(WINDOW_EXTRA)
        size = ("-x", str(params.width), "-y", str(params.height))
        await server.window(window_id, "window").run("resize-window", *size, note=GONE_DURING_CALL)
        return ResizeWindowOutput.model_validate(
            window_view((await server.window(window_id, "window").links(WINDOW_EXTRA))[0])
        )

    async def select_layout(self, params: SelectLayoutInput) -> SelectLayoutOutput:
        window_id = check_window_id(params.window, "window")
        layout = layouts.layout_shape(params.layout, SAVED_LAYOUT)
        server = self.tmux.server()
        (version,) = await server.run("display-message", "-p", "#{version}")
        layout = layouts.known_layout(layout, version, SAVED_LAYOUT)  # before any lookup
        await server.window(window_id, "window").links(WINDOW_EXTRA)
        apply = ("select-layout", "-t", window_id, "--", layout)
        try:
            _, applied = await server.run_many(
                apply, ("display-message", "-p", "-t", window_id, "#{window_layout}")
            )
        except CommandFailed as exc:  # a layout string with fewer cells than the window's panes
            raise ToolError(
                f"Invalid argument `layout`: tmux on {server.socket} refuses to apply it to "
                f"window {window_id} ({exc.stderr}): a layout string needs a cell for every "
                f"pane. Pass a preset, or {SAVED_LAYOUT} of a window with as many panes; "
                "nothing was changed.",
                kind="refused",
            ) from None
        if layouts.LAYOUT_STRING.fullmatch(layout) and applied:
            layout = applied[0]  # tmux drops the cells the window has no pane for
        return SelectLayoutOutput(window=window_id, layout=layout)

    async def select_window(self, params: SelectWindowInput) -> SelectWindowOutput:
        window_id = check_window_id(params.window, "window")
        chosen = params.direction
        direction = chosen.root if isinstance(chosen, SelectWindowDirection) else None
        server = self.tmux.server()
        link = (await server.window(window_id, "window").links(WINDOW_EXTRA))[0]
        if direction == "last":
            try:
                await server.run("last-window", "-t", link.session_id)
            except CommandFailed as exc:
                if "no last window" not in exc.stderr:
                    raise
                raise ToolError(
                    f"Session {link.session_id} of window {window_id} on tmux {server.socket} "
                    "has no previously selected window to return to; nothing was changed. "
                    "Select a window by its id instead.",
                    kind="refused",
                ) from None
        else:
            target = link
            if direction is not None:
                siblings = sorted(
                    await server.session(link.session_id).list_windows(), key=lambda row: row.index
                )
                at = next(i for i, row in enumerate(siblings) if row.index == link.index)
                target = siblings[(at + STEPS[direction]) % len(siblings)]
            await server.run("select-window", "-t", target.target)
        after = await server.session(link.session_id).list_windows(WINDOW_EXTRA)
        active = [window_view(row) for row in after if row.flag("window_active")]
        return SelectWindowOutput.model_validate({"windows": active})

    # --- panes ------------------------------------------------------------------------

    async def resize_pane(self, params: ResizePaneInput) -> ResizePaneOutput:
        check_cells("cells", params.cells, "cells")
        pane_id = check_pane_id(params.pane, "pane")
        server = self.tmux.server()
        flag = RESIZE_FLAGS[params.direction.root]
        resize = ("resize-pane", "-t", pane_id, flag, str(params.cells))
        row = await server.pane(pane_id, "pane").run_then_read(resize, note=UNCHANGED)
        return ResizePaneOutput(
            pane=pane_id, width=row.count("pane_width"), height=row.count("pane_height")
        )

    async def set_pane_title(self, params: SetPaneTitleInput) -> SetPaneTitleOutput:
        title = check_title(params.title)
        pane_id = check_pane_id(params.pane, "pane")
        server = self.tmux.server()
        # select-pane -T expands its title as a format: spelled so it expands to itself.
        change = ("select-pane", "-t", pane_id, "-T", literal_format(title))
        row = await server.pane(pane_id, "pane").run_then_read(change, note=UNCHANGED)
        if row["pane_title"] != title:
            raise ToolError(
                f"tmux on {server.socket} did not take the title {title!r} for pane {pane_id}: "
                f"its title is {row['pane_title']!r}. Pass a plain title."
            )
        return SetPaneTitleOutput.model_validate(pane_view(server, row))

    async def swap_pane(self, params: SwapPaneInput) -> SwapPaneOutput:
        source = check_pane_id(params.source_pane, "source_pane")
        target = check_pane_id(params.target_pane, "target_pane")
        if source == target:
            raise InvalidArgument(
                "target_pane",
                target,
                "is the same pane as source_pane: there is nothing to swap",
                "Pass two different panes (list_panes shows them).",
            )
        server = self.tmux.server()
        for field, pane_id in (("source_pane", source), ("target_pane", target)):
            await server.pane(pane_id, field).row(("pane_id",), note=UNCHANGED)
        # -d: which pane is active in each window stays as it was.
        swap = ("swap-pane", "-d", "-s", source, "-t", target)
        row = await server.pane(source, "source_pane").run_then_read(swap, note=UNCHANGED)
        return SwapPaneOutput.model_validate(pane_view(server, row))

    # --- settings ---------------------------------------------------------------------

    async def set_mouse_enabled(self, params: SetMouseEnabledInput) -> SetMouseEnabledOutput:
        value = "on" if params.enabled else "off"
        server = self.tmux.server()
        scope: tuple[str, ...] = ("-g",)
        target: str | None = None
        if isinstance(params.session, str):  # else null or not sent: the global value
            target = (await session_of(server, params.session, "session"))[0].session_id
            scope = ("-t", target)
        _, held = await server.run_many(
            ("set-option", *scope, "mouse", value), ("show-options", "-v", *scope, "mouse")
        )
        return SetMouseEnabledOutput(name="mouse", target=target, value=held[0] if held else "")


# --- lookups ----------------------------------------------------------------------------


def check_cells(field: str, value: int, unit: str) -> int:
    """A size or a step in cells: tmux takes 1 up to its largest window."""
    if not 1 <= value <= WINDOW_MAXIMUM:
        raise InvalidArgument(
            field,
            value,
            f"is outside 1..{WINDOW_MAXIMUM} {unit}",
            f"Pass a number of {unit} from 1 to {WINDOW_MAXIMUM}.",
        )
    return value


async def link_at(server: Server, window_id: str, session_id: str, index: int) -> LinkRow:
    """The row of ``window_id`` at ``session_id:index``, as tmux lists it now."""
    for row in await server.window(window_id, "window").links(WINDOW_EXTRA):
        if row.session_id == session_id and row.index == index:
            return row
    raise NotFound(
        "window",
        str(index),
        socket=server.socket,
        by="index",
        within=f"session {session_id}",
        note=f"window {window_id} is not there after the move",
    )


async def session_of(server: Server, value: str, field: str) -> tuple[SessionRow, dict[str, int]]:
    """The session ``value`` names (``$N``, else an exact name), and the attached counts."""
    sessions, attached = await server.sessions_and_clients()
    return session_row(sessions, value, socket=server.socket, field=field), attached
