"""Panes in the rust profile: selecting one, answered with a three-way caller relation."""

from __future__ import annotations

from ...generated.rust.models.select_pane import (
    SelectPaneDirection,
    SelectPaneInput,
    SelectPaneOutput,
)
from ..tmux import panes
from ..tmux.core import Tmux
from ..tmux.targets import check_pane_id, window_of_pane
from .rows import pane_view


class Panes:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

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
        return SelectPaneOutput.model_validate(pane_view(server, row))
