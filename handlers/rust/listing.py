"""The rust profile's listings: sessions, windows (one row per session link) and panes.

Ids are checked for shape before tmux runs; a well-formed id naming nothing is
``object_gone``. Rows come only from ``rows``; ``attached`` counts terminal
clients, never a control-mode client (this server's or anyone's).
"""

from __future__ import annotations

from typing import Any

from ...errors import InvalidArgument
from ...generated.rust.models.find_pane_by_position import (
    FindPaneByPositionInput,
    FindPaneByPositionOutput,
)
from ...generated.rust.models.get_pane_info import GetPaneInfoInput, GetPaneInfoOutput
from ...generated.rust.models.get_server_info import GetServerInfoInput, GetServerInfoOutput
from ...generated.rust.models.get_session_info import GetSessionInfoInput, GetSessionInfoOutput
from ...generated.rust.models.get_window_info import GetWindowInfoInput, GetWindowInfoOutput
from ...generated.rust.models.list_panes import ListPanesInput, ListPanesOutput
from ...generated.rust.models.list_sessions import ListSessionsInput, ListSessionsOutput
from ...generated.rust.models.list_windows import ListWindowsInput, ListWindowsOutput
from ..tmux.objects import CORNER_ONLY, Tmux
from ..tmux.objects.rows import SERVER_FIELDS, each_pane_once
from ..tmux.objects.targets import check_pane_id, check_window_id, session_row
from .rows import (
    WINDOW_EXTRA,
    branch,
    branch_pane,
    branch_window,
    pane_view,
    session_view,
    window_view,
)

# What a pane row reads (pane_view, branch_pane) and the pane_at_* flags the corners need.
PANE_FIELDS: tuple[str, ...] = (
    "pane_id",
    "pane_index",
    "pane_active",
    "pane_current_command",
    "pane_current_path",
    "window_id",
    "pane_at_top",
    "pane_at_bottom",
    "pane_at_left",
    "pane_at_right",
    *SERVER_FIELDS,
)


class Listing:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def list_sessions(self, params: ListSessionsInput) -> ListSessionsOutput:
        server = self.tmux.server()
        sessions, attached = await server.sessions_and_clients(terminals_only=True)
        rows = [session_view(row, attached) for row in sessions]
        return ListSessionsOutput.model_validate({"sessions": rows})

    async def list_windows(self, params: ListWindowsInput) -> ListWindowsOutput:
        links = await self.tmux.server().list_windows("-a", extra=WINDOW_EXTRA)
        return ListWindowsOutput.model_validate({"windows": [window_view(row) for row in links]})

    async def list_panes(self, params: ListPanesInput) -> ListPanesOutput:
        server = self.tmux.server()
        panes = each_pane_once(await server.list_panes("-a", fields=PANE_FIELDS))
        return ListPanesOutput.model_validate({"panes": [pane_view(server, p) for p in panes]})

    async def get_server_info(self, params: GetServerInfoInput) -> GetServerInfoOutput:
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

    async def get_session_info(self, params: GetSessionInfoInput) -> GetSessionInfoOutput:
        server = self.tmux.server()
        sessions, attached = await server.sessions_and_clients(terminals_only=True)
        found = session_row(sessions, params.session, socket=server.socket, field="session")
        return GetSessionInfoOutput.model_validate(session_view(found, attached))

    async def get_window_info(self, params: GetWindowInfoInput) -> GetWindowInfoOutput:
        server = self.tmux.server()
        window = server.window(check_window_id(params.window, field="window"), "window")
        (found, *_) = await window.links(WINDOW_EXTRA)
        return GetWindowInfoOutput.model_validate(window_view(found))

    async def get_pane_info(self, params: GetPaneInfoInput) -> GetPaneInfoOutput:
        server = self.tmux.server()
        row = await server.pane(check_pane_id(params.pane, field="pane"), "pane").row(PANE_FIELDS)
        return GetPaneInfoOutput.model_validate(pane_view(server, row))

    async def find_pane_by_position(
        self, params: FindPaneByPositionInput
    ) -> FindPaneByPositionOutput:
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
        return FindPaneByPositionOutput.model_validate(pane_view(server, row))
