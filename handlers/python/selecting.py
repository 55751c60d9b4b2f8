"""Choosing panes by where they are: select_pane and find_pane_by_position."""

from __future__ import annotations

from ...errors import InvalidArgument, ToolError
from ...generated.python.models.find_pane_by_position import (
    FindPaneByPositionInput,
    FindPaneByPositionOutput,
)
from ...generated.python.models.select_pane import SelectPaneInput, SelectPaneOutput
from ..tmux.objects.server import Tmux
from ..tmux.objects.targets import WindowSelector, check_pane_id
from ..tmux.objects.window import CORNER_ONLY, WindowPanes
from .shapes import SHAPE_FIELDS, pane_fields


class SelectingTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def select_pane(self, params: SelectPaneInput) -> SelectPaneOutput:
        if params.pane_id is None and params.direction is None:
            # The window fields only scope a move: alone they select nothing.
            raise ToolError(
                "select_pane needs `pane_id` or `direction`, and neither was given. Pass "
                "pane_id (such as '%1', from list_panes) to select that pane, or direction "
                "('up', 'down', 'left', 'right', 'last', 'next' or 'previous') to move from "
                "the active pane of the window that window_id, or window_index with "
                "session_name or session_id, names (by default the first session's active "
                "window). Nothing was run."
            )
        server = self.tmux.server(params.socket_name)
        pane_id = check_pane_id(params.pane_id) if params.pane_id is not None else None
        selector = WindowSelector(
            params.window_id, params.window_index, params.session_name, params.session_id
        )
        window: WindowPanes | None = None
        if pane_id is not None:
            pane = server.pane(pane_id)
            if selector.window_id is not None:
                window = await pane.window_panes()
                if selector.window_id != window.window_id:
                    raise InvalidArgument(
                        "window_id",
                        selector.window_id,
                        f"does not hold pane {pane_id} (it is in {window.window_id})",
                        "Pass only pane_id, or a window_id that holds it.",
                    )
        else:
            window = await selector.resolve_window(server)
            pane = server.pane(window.active_pane.pane_id)
        row = await pane.select_pane(params.direction, SHAPE_FIELDS, window)
        return SelectPaneOutput(**pane_fields(server, row))

    async def find_pane_by_position(
        self, params: FindPaneByPositionInput
    ) -> FindPaneByPositionOutput:
        server = self.tmux.server(params.socket_name)
        selector = WindowSelector(
            params.window_id, params.window_index, params.session_name, params.session_id
        )
        window = await selector.resolve_window(server, CORNER_ONLY[params.corner], SHAPE_FIELDS)
        row = window.corner(params.corner, server.socket)
        return FindPaneByPositionOutput(**pane_fields(server, row))
