"""Panes in the rust family's shapes: listing and describing them, finding one by
position, and selecting, splitting, resizing, titling, swapping, restarting,
clearing and killing one, each answered with the pane's three-way caller relation.

A pane is named by its raw ``%`` id, checked for shape before tmux runs; a
well-formed id naming nothing is ``object_gone``. Every tool that ends or wipes
what runs in a pane asks the guard first (the family leaves clearing unguarded;
here it is guarded like killing).
"""

from __future__ import annotations

from ...errors import InvalidArgument, ToolError
from ...generated.rust.models.clear_pane_scrollback import (
    ClearPaneScrollbackInput,
    ClearPaneScrollbackOutput,
)
from ...generated.rust.models.find_pane_by_position import (
    FindPaneByPositionInput,
    FindPaneByPositionOutput,
)
from ...generated.rust.models.get_pane_info import GetPaneInfoInput, GetPaneInfoOutput
from ...generated.rust.models.kill_pane import KillPaneInput, KillPaneOutput
from ...generated.rust.models.list_panes import ListPanesInput, ListPanesOutput
from ...generated.rust.models.resize_pane import ResizePaneInput, ResizePaneOutput
from ...generated.rust.models.respawn_pane import RespawnPaneInput, RespawnPaneOutput
from ...generated.rust.models.select_pane import (
    SelectPaneDirection,
    SelectPaneInput,
    SelectPaneOutput,
)
from ...generated.rust.models.set_pane_title import SetPaneTitleInput, SetPaneTitleOutput
from ...generated.rust.models.split_window import (
    SplitDirection,
    SplitWindowInput,
    SplitWindowOutput,
)
from ...generated.rust.models.swap_pane import SwapPaneInput, SwapPaneOutput
from ...reply import Reply
from ...seam import Call
from ..tmux.objects import CORNER_ONLY, Tmux, layouts, spawn
from ..tmux.objects.deadpanes import dead_notes
from ..tmux.objects.rows import each_pane_once
from ..tmux.objects.targets import check_pane_id, check_window_id
from ..tmux.objects.titles import check_title
from ..tmux.policy import Guard
from ..tmux.transport.formats import literal_format
from .arguments import check_cells, given
from .rows import PANE_FIELDS, pane_view
from .targets import guard

RESIZE_FLAGS = layouts.RESIZE_FLAGS

UNCHANGED = "nothing was changed"


class PaneTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def list_panes(self, call: Call, params: ListPanesInput) -> Reply[ListPanesOutput]:
        server = self.tmux.server()
        panes = each_pane_once(await server.list_panes("-a", fields=PANE_FIELDS))
        listed = ListPanesOutput.model_validate({"panes": [pane_view(server, p) for p in panes]})
        return Reply(listed, notes=dead_notes(panes))

    async def get_pane_info(self, call: Call, params: GetPaneInfoInput) -> Reply[GetPaneInfoOutput]:
        server = self.tmux.server()
        row = await server.pane(check_pane_id(params.pane, field="pane"), "pane").row(PANE_FIELDS)
        return Reply(
            GetPaneInfoOutput.model_validate(pane_view(server, row)), notes=dead_notes([row])
        )

    async def find_pane_by_position(
        self, call: Call, params: FindPaneByPositionInput
    ) -> Reply[FindPaneByPositionOutput]:
        corner = next((name for name in CORNER_ONLY if name == params.corner), None)
        if corner is None:
            raise InvalidArgument(
                "corner",
                params.corner,
                f"is not a corner (expected one of {', '.join(CORNER_ONLY)})",
                "Pass one of those four words.",
            )
        server = self.tmux.server()
        window = server.window(check_window_id(params.window, field="window"), "window")
        panes = await window.list_panes(only=CORNER_ONLY[corner], fields=PANE_FIELDS)
        row = panes.corner(corner, server.socket)
        found = FindPaneByPositionOutput.model_validate(pane_view(server, row))
        return Reply(found, notes=dead_notes([row]))

    async def select_pane(self, call: Call, params: SelectPaneInput) -> SelectPaneOutput:
        server = self.tmux.server()
        pane_id = check_pane_id(params.pane, field="pane")
        chosen = params.direction
        direction = chosen.root if isinstance(chosen, SelectPaneDirection) else None
        row = await server.pane(pane_id, "pane").select_pane(direction)
        return SelectPaneOutput.model_validate(pane_view(server, row))

    async def split_window(self, call: Call, params: SplitWindowInput) -> SplitWindowOutput:
        pane_id = check_pane_id(params.pane, field="pane")
        chosen = given(params.direction)
        direction = chosen.root if isinstance(chosen, SplitDirection) else None
        options = [*spawn.split_flags(direction)]
        options += spawn.check_percent(given(params.percent))
        options += await spawn.directory_args(
            given(params.start_directory), "start_directory", self.tmux.environ
        )
        server = self.tmux.server()
        row = await server.pane(pane_id, "pane").split_window(options)
        return SplitWindowOutput.model_validate(pane_view(server, row))

    async def resize_pane(self, call: Call, params: ResizePaneInput) -> ResizePaneOutput:
        check_cells("cells", params.cells, "cells")
        pane_id = check_pane_id(params.pane, "pane")
        server = self.tmux.server()
        flag = RESIZE_FLAGS[params.direction.root]
        resize = ("resize-pane", "-t", pane_id, flag, str(params.cells))
        row = await server.pane(pane_id, "pane").run_then_read(resize, note=UNCHANGED)
        return ResizePaneOutput(
            pane=pane_id, width=row.count("pane_width"), height=row.count("pane_height")
        )

    async def set_pane_title(self, call: Call, params: SetPaneTitleInput) -> SetPaneTitleOutput:
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

    async def swap_pane(self, call: Call, params: SwapPaneInput) -> SwapPaneOutput:
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

    async def respawn_pane(self, call: Call, params: RespawnPaneInput) -> RespawnPaneOutput:
        pane_id = check_pane_id(params.pane, field="pane")
        kill = params.kill_first is True
        server = self.tmux.server()
        if kill:  # never the pane this process runs in
            await Guard(server, self.tmux.environ).pane("respawn_pane", pane_id)
        row = await server.pane(pane_id, "pane").respawn_pane(kill=kill, kill_field="kill_first")
        return RespawnPaneOutput.model_validate(pane_view(server, row))

    async def clear_pane_scrollback(
        self, call: Call, params: ClearPaneScrollbackInput
    ) -> ClearPaneScrollbackOutput:
        pane_id = check_pane_id(params.pane, field="pane")
        server = self.tmux.server()
        await guard(server, self.tmux.environ).pane("clear_pane_scrollback", pane_id)
        await server.pane(pane_id, "pane").clear_history()
        return ClearPaneScrollbackOutput(pane=pane_id)

    async def kill_pane(self, call: Call, params: KillPaneInput) -> KillPaneOutput:
        pane_id = check_pane_id(params.pane, field="pane")
        server = self.tmux.server()
        await guard(server, self.tmux.environ).pane("kill_pane", pane_id)
        await server.pane(pane_id, "pane").kill_pane()
        return KillPaneOutput(id=pane_id)
