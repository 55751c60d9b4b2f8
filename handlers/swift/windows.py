"""Windows in the swift family's shapes: listing and describing them, creating one,
and renaming, selecting, moving, resizing, arranging and killing one.

A window is named by its id (``@1``) or a ref (``targets``). A window linked at
several places is picked by ``sourceSession`` and ``sourceIndex`` (or by a
placement ref), and more than one fitting placement is refused with all of them
named. Everything that can be judged before tmux runs is judged first, so a
refused call changes nothing. kill_window is refused for every window while this
process runs inside the same tmux server; ``force`` lifts it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import InvalidArgument
from ...generated.swift.models.create_window import CreateWindowInput, CreateWindowOutput
from ...generated.swift.models.get_window_info import GetWindowInfoInput, GetWindowInfoOutput
from ...generated.swift.models.kill_window import KillWindowInput, KillWindowOutput
from ...generated.swift.models.list_windows import ListWindowsInput, ListWindowsOutput
from ...generated.swift.models.move_window import MoveWindowInput, MoveWindowOutput
from ...generated.swift.models.rename_window import RenameWindowInput, RenameWindowOutput
from ...generated.swift.models.resize_window import ResizeWindowInput, ResizeWindowOutput
from ...generated.swift.models.select_layout import SelectLayoutInput, SelectLayoutOutput
from ...generated.swift.models.select_window import SelectWindowInput, SelectWindowOutput
from ...seam import Call
from ..tmux.errors import CommandFailed
from ..tmux.objects import layouts, spawn
from ..tmux.objects.refs import Refs
from ..tmux.objects.rows import LinkRow
from ..tmux.objects.spawn import no_nul
from ..tmux.transport.formats import literal_format
from . import rows
from .arguments import given
from .targets import FORCE, Lookup, Lookups, guard_unless_forced

WINDOW_MAXIMUM = layouts.WINDOW_MAXIMUM

SAVED_LAYOUT = layouts.SAVED_BY_VARIABLE


class WindowTools:
    def __init__(self, lookups: Lookups, refs: Refs) -> None:
        self.lookups = lookups
        self.refs = refs

    async def list_windows(self, call: Call, params: ListWindowsInput) -> ListWindowsOutput:
        lookup = self.lookups.for_call()
        session = given(params.session)
        if session is not None:
            row = await lookup.session(session)
            links = await lookup.server.session(row.session_id).list_windows()
        else:
            links = await lookup.server.list_windows("-a")
        return ListWindowsOutput.model_validate(
            {"windows": [rows.occurrence(self.refs, link) for link in links]}
        )

    async def get_window_info(self, call: Call, params: GetWindowInfoInput) -> GetWindowInfoOutput:
        links = await self.lookups.for_call().window_links(params.windowId)
        return GetWindowInfoOutput.model_validate(
            {
                "window": rows.window(self.refs, links[0]),
                "placements": [rows.placement(self.refs, link) for link in links],
            }
        )

    async def create_window(self, call: Call, params: CreateWindowInput) -> CreateWindowOutput:
        options = spawn.literal_name("name", given(params.name))
        options += await spawn.directory_args(
            given(params.startDirectory), "startDirectory", self.lookups.tmux.environ
        )
        if self.refs.is_ref(params.session):  # a bad ref is judged before tmux runs
            self.refs.parse(params.session, "session", ("session",))
        lookup = self.lookups.for_call()
        session = await lookup.session(params.session)
        row = await lookup.server.session(session.session_id).new_window(options=options)
        return CreateWindowOutput.model_validate(rows.occurrence(self.refs, row))

    async def rename_window(self, call: Call, params: RenameWindowInput) -> RenameWindowOutput:
        name = no_nul("name", params.name)
        lookup = self.lookups.for_call()
        window_id = (await lookup.window_links(params.windowId))[0].window_id
        _, lines = await lookup.server.run_many(
            ("rename-window", "-t", window_id, "--", literal_format(name)),
            ("display-message", "-p", "-t", window_id, "#{window_name}"),
        )
        return RenameWindowOutput(windowId=window_id, name=lines[0] if lines else name)

    async def select_window(self, call: Call, params: SelectWindowInput) -> SelectWindowOutput:
        lookup = self.lookups.for_call()
        link = await self._placement(
            lookup, params.windowId, given(params.sourceSession), given(params.sourceIndex)
        )
        await lookup.server.run("select-window", "-t", link.target)
        return SelectWindowOutput(windowId=link.window_id, target=link.target)

    async def move_window(self, call: Call, params: MoveWindowInput) -> MoveWindowOutput:
        lookup = self.lookups.for_call()
        links = await lookup.window_links(params.windowId)
        link = await self._placement(
            lookup, params.windowId, given(params.sourceSession), given(params.sourceIndex), links
        )
        session = given(params.session)
        destination = (
            link.session_id if session is None else (await lookup.session(session)).session_id
        )
        index = given(params.index)
        if destination == link.session_id and index == link.index:
            return MoveWindowOutput(windowId=link.window_id, target=link.target)  # already there
        where = f"{destination}:{'' if index is None else index}"
        try:
            await lookup.server.run("move-window", "-s", link.target, "-t", where)
        except CommandFailed as exc:
            if "in use" in exc.stderr:  # tmux: "index 3 in use"
                raise InvalidArgument(
                    "index",
                    index,
                    f"is taken in session {destination} on tmux {lookup.server.socket}",
                    "Call list_windows to see the indexes in use, or leave index out for the "
                    "first free one.",
                ) from None
            raise
        others = {other.target for other in links} - {link.target}
        moved = [
            row
            for row in await lookup.server.session(destination).list_windows()
            if row.window_id == link.window_id
            and row.target not in others
            and (index is None or row.index == index)
        ]
        if not moved:
            raise lookup.server.window(link.window_id, "windowId").not_found(
                f"it was moved, but is no longer in session {destination}"
            )
        return MoveWindowOutput(windowId=link.window_id, target=moved[0].target)

    async def resize_window(self, call: Call, params: ResizeWindowInput) -> ResizeWindowOutput:
        size: list[str] = []
        for field, flag, value in (
            ("width", "-x", given(params.width)),
            ("height", "-y", given(params.height)),
        ):
            if value is None:
                continue
            if value > WINDOW_MAXIMUM:
                raise InvalidArgument(
                    field,
                    value,
                    f"is larger than tmux allows ({WINDOW_MAXIMUM})",
                    f"Pass a {field} from 1 to {WINDOW_MAXIMUM}.",
                )
            size += [flag, str(value)]
        if not size:
            raise InvalidArgument(
                "width",
                None,
                "is missing, and so is height: there is nothing to change",
                "Pass width (columns), height (rows), or both.",
            )
        lookup = self.lookups.for_call()
        window_id = (await lookup.window_links(params.windowId))[0].window_id
        await lookup.server.run("resize-window", "-t", window_id, *size)
        return ResizeWindowOutput(windowId=window_id)

    async def select_layout(self, call: Call, params: SelectLayoutInput) -> SelectLayoutOutput:
        layout = layouts.layout_shape(params.layout, SAVED_LAYOUT)  # before any lookup
        lookup = self.lookups.for_call()
        links = await lookup.window_links(params.windowId)
        window_id = links[0].window_id
        (version,) = await lookup.server.run("display-message", "-p", "#{version}")
        layout = layouts.known_layout(layout, version, SAVED_LAYOUT)
        try:
            await lookup.server.run("select-layout", "-t", window_id, "--", layout)
        except CommandFailed as exc:  # a layout string tmux cannot apply to this window
            raise InvalidArgument(
                "layout",
                params.layout,
                f"does not fit window {window_id} on tmux {lookup.server.socket} "
                f"({exc.stderr}): a layout string must come from a window with as many panes",
                f"Pass a preset, or {SAVED_LAYOUT} of a window like this one.",
            ) from None
        return SelectLayoutOutput(windowId=window_id, layout=layout)

    async def _placement(
        self,
        lookup: Lookup,
        window: str,
        session: str | None,
        index: int | None,
        links: Sequence[LinkRow] | None = None,
    ) -> LinkRow:
        """The one placement of ``window`` that the arguments (or a placement ref) pick."""
        found = list(links) if links is not None else await lookup.window_links(window)
        fitting = found
        if self.refs.kind_of(window) == "link":
            target = self.refs.parse(window, "windowId", ("link",)).object_id.partition("|")[0]
            fitting = [link for link in fitting if link.target == target]
        if session is not None:
            session_id = (await lookup.session(session, "sourceSession")).session_id
            fitting = [link for link in fitting if link.session_id == session_id]
        if index is not None:
            fitting = [link for link in fitting if link.index == index]
        if len(fitting) == 1:
            return fitting[0]
        places = ", ".join(link.target for link in found)
        if not fitting:
            field = "sourceIndex" if index is not None else "sourceSession"
            raise InvalidArgument(
                field,
                index if index is not None else session,
                f"matches no placement of window {found[0].window_id}, which is at {places}",
                "Pass a session and index it is at (list_windows shows them).",
            )
        raise InvalidArgument(
            "windowId",
            window,
            f"names a window linked at {places}, and more than one of them fits",
            "Pass sourceSession and/or sourceIndex (or a placement ref from list_windows) to "
            "pick one; nothing was changed.",
        )

    async def kill_window(self, call: Call, params: KillWindowInput) -> KillWindowOutput:
        lookup = self.lookups.for_call()
        window_id = (await lookup.window_links(params.windowId))[0].window_id
        guard = guard_unless_forced(lookup.server, self.lookups.tmux.environ, params.force)
        if guard is not None:
            await guard.whole_server("kill_window", f"window {window_id}", override=FORCE)
        await lookup.server.window(window_id, "windowId").kill_window()
        return KillWindowOutput(deleted=True, windowId=window_id)
