"""Panes in the swift family's shapes: listing and describing them, finding one by
position, and selecting, splitting, swapping, resizing, titling, restarting,
clearing and killing one.

A pane is named by its id (``%1``) or a ref (``targets``). kill_pane refuses the
pane this process runs in, and respawn_pane's ``killFirst`` ends a live process
except the caller's own; ``force`` lifts both. Clearing history ends no process
and consults no guard.
"""

from __future__ import annotations

from ...errors import InvalidArgument, ToolError
from ...generated.swift.models.clear_pane_scrollback import (
    ClearPaneScrollbackInput,
    ClearPaneScrollbackOutput,
)
from ...generated.swift.models.find_pane_by_position import (
    FindPaneByPositionInput,
    FindPaneByPositionOutput,
)
from ...generated.swift.models.get_pane_info import GetPaneInfoInput, GetPaneInfoOutput
from ...generated.swift.models.kill_pane import KillPaneInput, KillPaneOutput
from ...generated.swift.models.list_panes import ListPanesInput, ListPanesOutput
from ...generated.swift.models.resize_pane import ResizePaneInput, ResizePaneOutput
from ...generated.swift.models.respawn_pane import RespawnPaneInput, RespawnPaneOutput
from ...generated.swift.models.select_pane import SelectPaneInput, SelectPaneOutput
from ...generated.swift.models.set_pane_title import SetPaneTitleInput, SetPaneTitleOutput
from ...generated.swift.models.split_window import SplitWindowInput, SplitWindowOutput
from ...generated.swift.models.swap_pane import SwapPaneInput, SwapPaneOutput
from ...reply import Reply
from ...seam import Call
from ..tmux.objects import layouts, spawn
from ..tmux.objects.deadpanes import dead_notes
from ..tmux.objects.refs import Refs
from ..tmux.objects.rows import each_pane_once
from ..tmux.objects.titles import check_title
from ..tmux.objects.window import WindowPanes
from ..tmux.policy import Guard
from ..tmux.transport.formats import literal_format
from . import rows
from .arguments import given
from .targets import FORCE, Lookups, guard_unless_forced

RESIZE_FLAGS = layouts.RESIZE_FLAGS

RESPAWN_ANYWAY = "Pass force: true to restart it anyway, which ends this MCP server."


class PaneTools:
    def __init__(self, lookups: Lookups, refs: Refs) -> None:
        self.lookups = lookups
        self.refs = refs

    async def list_panes(self, call: Call, params: ListPanesInput) -> Reply[ListPanesOutput]:
        lookup = self.lookups.for_call()
        session = given(params.session)
        window = given(params.window)
        session_row = await lookup.session(session) if session is not None else None
        if window is not None:
            found = await lookup.window_panes(window, "window")
            if session_row is not None:
                links = await lookup.window_links(window, "window")
                if session_row.session_id not in {link.session_id for link in links}:
                    raise InvalidArgument(
                        "window",
                        window,
                        f"is not a window of session {session_row.name!r} ({session_row.session_id})",
                        "Pass only one of session and window, or a window of that session.",
                    )
        elif session_row is not None:
            found = await lookup.server.list_panes(
                "-s", "-t", session_row.session_id, fields=rows.PANE_ROW_FIELDS
            )
        else:
            found = each_pane_once(
                await lookup.server.list_panes("-a", fields=rows.PANE_ROW_FIELDS)
            )
        listed = ListPanesOutput.model_validate({"panes": [rows.pane(self.refs, r) for r in found]})
        return Reply(listed, notes=dead_notes(found))

    async def get_pane_info(self, call: Call, params: GetPaneInfoInput) -> Reply[GetPaneInfoOutput]:
        row = await self.lookups.for_call().pane(params.paneId)
        info = GetPaneInfoOutput.model_validate({"pane": rows.pane(self.refs, row)})
        return Reply(info, notes=dead_notes([row]))

    async def find_pane_by_position(
        self, call: Call, params: FindPaneByPositionInput
    ) -> Reply[FindPaneByPositionOutput]:
        lookup = self.lookups.for_call()
        listed = await lookup.window_panes(params.windowId)
        panes = WindowPanes(listed[0].window_id, tuple(listed))
        row = panes.corner(params.corner, lookup.server.socket)
        found = FindPaneByPositionOutput.model_validate({"pane": rows.pane(self.refs, row)})
        return Reply(found, notes=dead_notes([row]))

    async def select_pane(self, call: Call, params: SelectPaneInput) -> SelectPaneOutput:
        lookup = self.lookups.for_call()
        pane = await lookup.pane(params.paneId)
        await lookup.server.pane(pane.pane_id, "paneId").run(("select-pane", "-t", pane.pane_id))
        return SelectPaneOutput(paneId=pane.pane_id)

    async def split_window(self, call: Call, params: SplitWindowInput) -> SplitWindowOutput:
        lookup = self.lookups.for_call()
        wanted = lookup.pane_id(params.paneId)  # its shape judged before tmux runs
        options = [*spawn.split_flags(given(params.direction))]
        options += await spawn.directory_args(
            given(params.startDirectory), "startDirectory", self.lookups.tmux.environ
        )
        pane_id = await lookup.pane_target(params.paneId)
        row = await lookup.server.pane(pane_id, wanted.field).split_window(options)
        return SplitWindowOutput.model_validate(rows.pane(self.refs, row))

    async def swap_pane(self, call: Call, params: SwapPaneInput) -> SwapPaneOutput:
        lookup = self.lookups.for_call()
        lookup.pane_id(params.otherPaneId, "otherPaneId")  # both shapes judged before tmux runs
        pane = await lookup.pane(params.paneId)
        other = await lookup.pane(params.otherPaneId, "otherPaneId")
        # -d: which pane is active in each window stays as it was.
        swap = ("swap-pane", "-d", "-s", pane.pane_id, "-t", other.pane_id)
        await lookup.server.pane(pane.pane_id, "paneId").run(swap)
        return SwapPaneOutput(paneId=pane.pane_id, otherPaneId=other.pane_id)

    async def resize_pane(self, call: Call, params: ResizePaneInput) -> ResizePaneOutput:
        args = resize_arguments(params)  # refused before the pane is looked up
        lookup = self.lookups.for_call()
        pane = await lookup.pane(params.paneId)
        command = ("resize-pane", "-t", pane.pane_id, *args)
        await lookup.server.pane(pane.pane_id, "paneId").run(command)
        return ResizePaneOutput(paneId=pane.pane_id)

    async def set_pane_title(self, call: Call, params: SetPaneTitleInput) -> SetPaneTitleOutput:
        title = check_title(params.title)
        lookup = self.lookups.for_call()
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

    async def respawn_pane(self, call: Call, params: RespawnPaneInput) -> RespawnPaneOutput:
        lookup = self.lookups.for_call()
        lookup.pane_id(params.paneId)  # its shape judged before tmux runs
        where = given(params.startDirectory)
        options = (
            []
            if where is None
            else await spawn.directory_args(where, "startDirectory", self.lookups.tmux.environ)
        )
        pane_id = await lookup.pane_target(params.paneId)
        force = given(params.force) is True
        kill = force or given(params.killFirst) is True
        if kill and not force:  # never the pane this process runs in, unless forced
            await Guard(lookup.server, self.lookups.tmux.environ).pane(
                "respawn_pane", pane_id, override=RESPAWN_ANYWAY
            )
        pane = lookup.server.pane(pane_id, "paneId")
        row = await pane.respawn_pane(kill=kill, kill_field="killFirst", options=options)
        pane_ref = self.refs.make("pane", row.pane_id, row.server_tag)
        return RespawnPaneOutput(pane=row.pane_id, paneRef=pane_ref)

    async def clear_pane_scrollback(
        self, call: Call, params: ClearPaneScrollbackInput
    ) -> ClearPaneScrollbackOutput:
        lookup = self.lookups.for_call()
        pane_id = await lookup.pane_target(params.paneId)
        await lookup.server.pane(pane_id, "paneId").clear_history()
        return ClearPaneScrollbackOutput(deleted=True, paneId=pane_id)

    async def kill_pane(self, call: Call, params: KillPaneInput) -> KillPaneOutput:
        lookup = self.lookups.for_call()
        pane = await lookup.pane(params.paneId)
        guard = guard_unless_forced(lookup.server, self.lookups.tmux.environ, params.force)
        if guard is not None:
            await guard.pane("kill_pane", pane.pane_id, override=FORCE)
        await lookup.server.pane(pane.pane_id, "paneId").kill_pane()
        return KillPaneOutput(deleted=True, paneId=pane.pane_id)


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
