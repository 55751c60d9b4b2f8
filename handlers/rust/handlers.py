"""The rust profile's handlers: one socket per process, ``%``-ids, a three-way caller."""

from __future__ import annotations

from ...generated.rust.interface import RustProfileHandlers
from ...generated.rust.models.select_pane import (
    Relation,
    SelectPaneDirection,
    SelectPaneInput,
    SelectPaneOutput,
)
from ..tmux import panes
from ..tmux.core import TmuxHandlers
from ..tmux.targets import check_pane_id, window_of_pane


class RustHandlers(TmuxHandlers, RustProfileHandlers):
    async def select_pane(self, params: SelectPaneInput) -> SelectPaneOutput:
        server = self.tmux.server()
        pane_id = check_pane_id(params.pane, field="pane")
        chosen = params.direction
        direction = chosen.root if isinstance(chosen, SelectPaneDirection) else None
        if direction in panes.ONE_TRIP:
            row = await panes.select_from(server, pane_id, direction)
        else:
            window = await window_of_pane(server, pane_id, field="pane")
            anchor = window.pane(pane_id) or window.active_pane
            row = await panes.select(server, window, anchor, direction)
        return SelectPaneOutput(
            id=row.pane_id,
            window_id=row.window_id,
            active=row.active,
            caller=Relation(server.relation(row.pane_id).value),
            command=row.text("pane_current_command"),
            path=row.text("pane_current_path"),
        )
