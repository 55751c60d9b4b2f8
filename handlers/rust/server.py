"""The tmux server as the rust family describes it: the tree of its sessions,
windows and panes.
"""

from __future__ import annotations

from typing import Any

from ...generated.rust.models.get_server_info import GetServerInfoInput, GetServerInfoOutput
from ...seam import Call
from ..tmux.objects import Tmux
from ..tmux.objects.rows import each_pane_once
from .rows import PANE_FIELDS, WINDOW_EXTRA, branch, branch_pane, branch_window


class ServerTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def get_server_info(self, call: Call, params: GetServerInfoInput) -> GetServerInfoOutput:
        server = self.tmux.server()
        sessions, attached = await server.sessions_and_clients(terminals_only=True)
        links = await server.list_windows("-a", extra=WINDOW_EXTRA)
        panes: dict[str, list[dict[str, Any]]] = {}
        for pane in each_pane_once(await server.list_panes("-a", fields=PANE_FIELDS)):
            panes.setdefault(pane.window_id, []).append(branch_pane(pane))
        tree = [
            branch(
                session,
                attached,
                [
                    branch_window(link, panes.get(link.window_id, []))
                    for link in links
                    if link.session_id == session.session_id
                ],
            )
            for session in sessions
        ]
        return GetServerInfoOutput.model_validate({"sessions": tree})
