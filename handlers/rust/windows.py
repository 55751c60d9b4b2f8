"""Windows in the rust family's shapes (one row per session link): listing and
describing them, creating one, and renaming, moving, resizing, arranging,
selecting and killing one.

A window is named by its raw ``@`` id, checked for shape before tmux runs; a
well-formed id naming nothing is ``object_gone``. Everything that can be judged
before tmux runs is judged first, so a refused call changes nothing.
"""

from __future__ import annotations

from ...errors import InvalidArgument, ToolError
from ...generated.rust.models.create_window import CreateWindowInput, CreateWindowOutput
from ...generated.rust.models.get_window_info import GetWindowInfoInput, GetWindowInfoOutput
from ...generated.rust.models.kill_window import KillWindowInput, KillWindowOutput
from ...generated.rust.models.list_windows import ListWindowsInput, ListWindowsOutput
from ...generated.rust.models.move_window import MoveWindowInput, MoveWindowOutput
from ...generated.rust.models.rename_window import RenameWindowInput, RenameWindowOutput
from ...generated.rust.models.resize_window import ResizeWindowInput, ResizeWindowOutput
from ...generated.rust.models.select_layout import SelectLayoutInput, SelectLayoutOutput
from ...generated.rust.models.select_window import (
    SelectWindowDirection,
    SelectWindowInput,
    SelectWindowOutput,
)
from ...seam import Call
from ..tmux.errors import GONE_DURING_CALL, CommandFailed, NotFound
from ..tmux.objects import Tmux, layouts, spawn
from ..tmux.objects.rows import LinkRow
from ..tmux.objects.server import Server
from ..tmux.objects.targets import check_window_id, session_row
from ..tmux.transport.formats import literal_format
from .arguments import check_cells, given
from .rows import WINDOW_EXTRA, window_view
from .targets import guard, session_of

SAVED_LAYOUT = layouts.SAVED_BY_VARIABLE

STEPS = {"next": 1, "previous": -1}


class WindowTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def list_windows(self, call: Call, params: ListWindowsInput) -> ListWindowsOutput:
        links = await self.tmux.server().list_windows("-a", extra=WINDOW_EXTRA)
        return ListWindowsOutput.model_validate({"windows": [window_view(row) for row in links]})

    async def get_window_info(self, call: Call, params: GetWindowInfoInput) -> GetWindowInfoOutput:
        server = self.tmux.server()
        window = server.window(check_window_id(params.window, field="window"), "window")
        (found, *_) = await window.links(WINDOW_EXTRA)
        return GetWindowInfoOutput.model_validate(window_view(found))

    async def create_window(self, call: Call, params: CreateWindowInput) -> CreateWindowOutput:
        if not params.session:
            raise InvalidArgument(
                "session", params.session, "is empty", "Pass a session id such as $1 or a name."
            )
        options = spawn.literal_name("name", given(params.name))
        options += await spawn.directory_args(
            given(params.start_directory), "start_directory", self.tmux.environ
        )
        server = self.tmux.server()
        sessions = await server.list_sessions()
        session = session_row(sessions, params.session, socket=server.socket, field="session")
        row = await server.session(session.session_id).new_window(
            options=options, extra=WINDOW_EXTRA
        )
        return CreateWindowOutput.model_validate(window_view(row))

    async def rename_window(self, call: Call, params: RenameWindowInput) -> RenameWindowOutput:
        window_id = check_window_id(params.window, "window")
        server = self.tmux.server()
        await server.window(window_id, "window").links(WINDOW_EXTRA)
        window = server.window(window_id, "window")
        await window.run("rename-window", "--", literal_format(params.name), note=GONE_DURING_CALL)
        return RenameWindowOutput.model_validate(
            window_view((await server.window(window_id, "window").links(WINDOW_EXTRA))[0])
        )

    async def move_window(self, call: Call, params: MoveWindowInput) -> MoveWindowOutput:
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

    async def resize_window(self, call: Call, params: ResizeWindowInput) -> ResizeWindowOutput:
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

    async def select_layout(self, call: Call, params: SelectLayoutInput) -> SelectLayoutOutput:
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

    async def select_window(self, call: Call, params: SelectWindowInput) -> SelectWindowOutput:
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

    async def kill_window(self, call: Call, params: KillWindowInput) -> KillWindowOutput:
        window_id = check_window_id(params.window, field="window")
        server = self.tmux.server()
        await guard(server, self.tmux.environ).kill_window(window_id)
        await server.window(window_id, "window").kill_window()
        return KillWindowOutput(id=window_id)


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
