"""Panes in the rust profile: selecting one, answered with a three-way caller relation."""

from __future__ import annotations

from ...generated.rust.models.select_pane import (
    SelectPaneDirection,
    SelectPaneInput,
    SelectPaneOutput,
)
from ..tmux.objects.server import Tmux
from ..tmux.objects.targets import check_pane_id
from .rows import pane_view


class Panes:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def select_pane(self, params: SelectPaneInput) -> SelectPaneOutput:
        server = self.tmux.server()
        pane_id = check_pane_id(params.pane, field="pane")
        chosen = params.direction
        direction = chosen.root if isinstance(chosen, SelectPaneDirection) else None
        row = await server.pane(pane_id, "pane").select_pane(direction)
        return SelectPaneOutput.model_validate(pane_view(server, row))
