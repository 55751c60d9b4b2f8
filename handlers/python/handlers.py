"""The python profile's handlers: libtmux-mcp argument and result shapes over the tmux core."""

from __future__ import annotations

from typing import Any

from ...errors import InvalidArgument
from ...generated.python.interface import PythonProfileHandlers
from ...generated.python.models.find_pane_by_position import (
    FindPaneByPositionInput,
    FindPaneByPositionOutput,
)
from ...generated.python.models.select_pane import SelectPaneInput, SelectPaneOutput
from ..tmux import panes
from ..tmux.core import Server, TmuxHandlers
from ..tmux.formats import PaneRow
from ..tmux.targets import (
    Window,
    WindowSelector,
    check_pane_id,
    resolve_window,
    window_of_pane,
)


def pane_fields(server: Server, row: PaneRow) -> dict[str, Any]:
    """A pane in the libtmux-mcp shape (its mix of string and integer fields is the contract's)."""
    return {
        "pane_id": row.pane_id,
        "pane_index": row["pane_index"],
        "pane_active": row["pane_active"],
        "pane_current_command": row["pane_current_command"],
        "pane_current_path": row["pane_current_path"],
        "pane_pid": row["pane_pid"],
        "pane_title": row["pane_title"],
        "pane_width": row["pane_width"],
        "pane_height": row["pane_height"],
        "pane_tty": row["pane_tty"],
        "pane_left": row.number("pane_left"),
        "pane_top": row.number("pane_top"),
        "pane_right": row.number("pane_right"),
        "pane_bottom": row.number("pane_bottom"),
        "pane_at_top": row.flag("pane_at_top"),
        "pane_at_bottom": row.flag("pane_at_bottom"),
        "pane_at_left": row.flag("pane_at_left"),
        "pane_at_right": row.flag("pane_at_right"),
        "window_id": row.window_id,
        "session_id": row.session_id,
        "is_caller": server.relation(row.pane_id).as_bool,
    }


class PythonHandlers(TmuxHandlers, PythonProfileHandlers):
    async def select_pane(self, params: SelectPaneInput) -> SelectPaneOutput:
        server = self.tmux.server(params.socket_name)
        pane_id = check_pane_id(params.pane_id) if params.pane_id is not None else None
        selector = WindowSelector(
            params.window_id, params.window_index, params.session_name, params.session_id
        )
        window: Window
        if (
            pane_id is not None
            and selector.window_id is None
            and params.direction in panes.ONE_TRIP
        ):
            row = await panes.select_from(server, pane_id, params.direction)
            return SelectPaneOutput(**pane_fields(server, row))
        if pane_id is not None:
            window = await window_of_pane(server, pane_id)
            if selector.window_id is not None and selector.window_id != window.window_id:
                raise InvalidArgument(
                    "window_id",
                    selector.window_id,
                    f"does not hold pane {pane_id} (it is in {window.window_id})",
                    "Pass only pane_id, or a window_id that holds it.",
                )
            anchor = window.pane(pane_id) or window.active_pane
        else:
            window = await resolve_window(server, selector)
            anchor = window.active_pane
        row = await panes.select(server, window, anchor, params.direction)
        return SelectPaneOutput(**pane_fields(server, row))

    async def find_pane_by_position(
        self, params: FindPaneByPositionInput
    ) -> FindPaneByPositionOutput:
        server = self.tmux.server(params.socket_name)
        selector = WindowSelector(
            params.window_id, params.window_index, params.session_name, params.session_id
        )
        window = await resolve_window(server, selector)
        row = panes.corner(window, params.corner)
        return FindPaneByPositionOutput(**pane_fields(server, row))
