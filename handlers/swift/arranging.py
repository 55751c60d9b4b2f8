"""The manage tools that arrange sessions, windows and panes: names, selection, order,
sizes, layouts, titles, and the two global settings.

Targets are found as everywhere in this profile (an id or a ref, see ``lookup``);
values that tmux would expand as a format (names, titles) are made literal first
(``literal_format``); everything that can be judged before tmux runs is judged
first, so a refused call changes nothing. A window linked at several places is
picked by ``sourceSession`` and ``sourceIndex`` (or by a placement ref), and more
than one fitting placement is refused with all of them named.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import InvalidArgument, ToolError
from ...generated.swift.models.move_window import MoveWindowInput, MoveWindowOutput
from ...generated.swift.models.rename_session import RenameSessionInput, RenameSessionOutput
from ...generated.swift.models.rename_window import RenameWindowInput, RenameWindowOutput
from ...generated.swift.models.resize_pane import ResizePaneInput, ResizePaneOutput
from ...generated.swift.models.resize_window import ResizeWindowInput, ResizeWindowOutput
from ...generated.swift.models.select_layout import SelectLayoutInput, SelectLayoutOutput
from ...generated.swift.models.select_pane import SelectPaneInput, SelectPaneOutput
from ...generated.swift.models.select_window import SelectWindowInput, SelectWindowOutput
from ...generated.swift.models.set_history_limit import (
    SetHistoryLimitInput,
    SetHistoryLimitOutput,
)
from ...generated.swift.models.set_mouse_enabled import (
    SetMouseEnabledInput,
    SetMouseEnabledOutput,
)
from ...generated.swift.models.set_pane_title import SetPaneTitleInput, SetPaneTitleOutput
from ...generated.swift.models.swap_pane import SwapPaneInput, SwapPaneOutput
from ..tmux.errors import CommandFailed
from ..tmux.objects import layouts
from ..tmux.objects.refs import Refs
from ..tmux.objects.rows import LinkRow
from ..tmux.objects.spawn import no_nul
from ..tmux.objects.titles import check_title
from ..tmux.transport.formats import literal_format
from .lookup import Lookup, Lookups, given

WINDOW_MAXIMUM = layouts.WINDOW_MAXIMUM
RESIZE_FLAGS = layouts.RESIZE_FLAGS
SAVED_LAYOUT = layouts.SAVED_BY_VARIABLE


class Arranging:
    def __init__(self, lookups: Lookups, refs: Refs) -> None:
        self.lookups = lookups
        self.refs = refs

    # --- sessions and windows ---------------------------------------------------------

    async def rename_session(self, params: RenameSessionInput) -> RenameSessionOutput:
        name = no_nul("name", params.name)
        lookup = self.lookups()
        session = await lookup.session(params.session)
        try:
            _, lines = await lookup.server.run_many(
                ("rename-session", "-t", session.session_id, "--", literal_format(name)),
                ("display-message", "-p", "-t", session.session_id, "#{session_name}"),
            )
        except CommandFailed as exc:
            if "duplicate session" in exc.stderr or "invalid session" in exc.stderr:
                raise InvalidArgument(
                    "name",
                    name,
                    f"is refused by tmux on {lookup.server.socket} ({exc.stderr})",
                    "Pass a name no other session has, and not empty.",
                ) from None
            raise
        return RenameSessionOutput(sessionId=session.session_id, name=lines[0] if lines else name)

    async def rename_window(self, params: RenameWindowInput) -> RenameWindowOutput:
        name = no_nul("name", params.name)
        lookup = self.lookups()
        window_id = (await lookup.window_links(params.windowId))[0].window_id
        _, lines = await lookup.server.run_many(
            ("rename-window", "-t", window_id, "--", literal_format(name)),
            ("display-message", "-p", "-t", window_id, "#{window_name}"),
        )
        return RenameWindowOutput(windowId=window_id, name=lines[0] if lines else name)

    async def select_window(self, params: SelectWindowInput) -> SelectWindowOutput:
        lookup = self.lookups()
        link = await self._placement(
            lookup, params.windowId, given(params.sourceSession), given(params.sourceIndex)
        )
        await lookup.server.run("select-window", "-t", link.target)
        return SelectWindowOutput(windowId=link.window_id, target=link.target)

    async def move_window(self, params: MoveWindowInput) -> MoveWindowOutput:
        lookup = self.lookups()
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
            raise ToolError(
                f"Window {link.window_id} was moved on tmux {lookup.server.socket}, but is no "
                f"longer in session {destination}. Call list_windows to see where it is."
            )
        return MoveWindowOutput(windowId=link.window_id, target=moved[0].target)

    async def resize_window(self, params: ResizeWindowInput) -> ResizeWindowOutput:
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
        lookup = self.lookups()
        window_id = (await lookup.window_links(params.windowId))[0].window_id
        await lookup.server.run("resize-window", "-t", window_id, *size)
        return ResizeWindowOutput(windowId=window_id)

    async def select_layout(self, params: SelectLayoutInput) -> SelectLayoutOutput:
        layout = layouts.layout_shape(params.layout, SAVED_LAYOUT)  # before any lookup
        lookup = self.lookups()
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

    # --- panes ------------------------------------------------------------------------

    async def select_pane(self, params: SelectPaneInput) -> SelectPaneOutput:
        lookup = self.lookups()
        pane = await lookup.pane(params.paneId)
        await lookup.server.pane(pane.pane_id, "paneId").run(("select-pane", "-t", pane.pane_id))
        return SelectPaneOutput(paneId=pane.pane_id)

    async def swap_pane(self, params: SwapPaneInput) -> SwapPaneOutput:
        lookup = self.lookups()
        lookup.pane_id(params.otherPaneId, "otherPaneId")  # both shapes judged before tmux runs
        pane = await lookup.pane(params.paneId)
        other = await lookup.pane(params.otherPaneId, "otherPaneId")
        # -d: which pane is active in each window stays as it was.
        swap = ("swap-pane", "-d", "-s", pane.pane_id, "-t", other.pane_id)
        await lookup.server.pane(pane.pane_id, "paneId").run(swap)
        return SwapPaneOutput(paneId=pane.pane_id, otherPaneId=other.pane_id)

    async def resize_pane(self, params: ResizePaneInput) -> ResizePaneOutput:
        args = resize_arguments(params)  # refused before the pane is looked up
        lookup = self.lookups()
        pane = await lookup.pane(params.paneId)
        command = ("resize-pane", "-t", pane.pane_id, *args)
        await lookup.server.pane(pane.pane_id, "paneId").run(command)
        return ResizePaneOutput(paneId=pane.pane_id)

    async def set_pane_title(self, params: SetPaneTitleInput) -> SetPaneTitleOutput:
        title = check_title(params.title)
        lookup = self.lookups()
        pane = await lookup.pane(params.paneId)
        # select-pane -T expands its title as a format: spelled so it expands to itself.
        _, lines = await lookup.server.pane(pane.pane_id, "paneId").run(
            ("select-pane", "-t", pane.pane_id, "-T", literal_format(title)),
            ("display-message", "-p", "-t", pane.pane_id, "#{pane_title}"),
        )
        held = lines[0] if lines else ""
        if held != title:
            raise ToolError(
                f"tmux did not take the title {title!r} for pane {pane.pane_id} on tmux "
                f"{lookup.server.socket}: its title is {held!r}. Pass a plain title."
            )
        return SetPaneTitleOutput(paneId=pane.pane_id, title=held)

    # --- global settings --------------------------------------------------------------

    async def set_history_limit(self, params: SetHistoryLimitInput) -> SetHistoryLimitOutput:
        value = await self.lookups().server.set_history_limit(params.lines)
        return SetHistoryLimitOutput(lines=int(value))

    async def set_mouse_enabled(self, params: SetMouseEnabledInput) -> SetMouseEnabledOutput:
        value = "on" if params.enabled else "off"
        await self.lookups().server.run("set-option", "-g", "mouse", value)
        return SetMouseEnabledOutput(enabled=params.enabled)

    # --- helpers ----------------------------------------------------------------------

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


def resize_arguments(params: ResizePaneInput) -> list[str]:
    """``resize-pane`` flags: zoom wins, then direction and amount, then width and height."""
    if given(params.zoom, False):
        return ["-Z"]
    direction = given(params.direction)
    if direction is not None:
        return [RESIZE_FLAGS[direction], str(given(params.amount, 1))]
    args: list[str] = []
    for flag, value in (("-x", given(params.width)), ("-y", given(params.height))):
        if value is not None:
            args += [flag, str(value)]
    if not args:
        raise InvalidArgument(
            "direction",
            None,
            "is missing, and so are zoom, width and height: there is nothing to change",
            "Pass zoom: true, a direction (with amount), or width and/or height.",
        )
    return args
