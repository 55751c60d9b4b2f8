"""Listing and describing panes, windows and sessions: one row per object, refs beside ids."""

from __future__ import annotations

from ...errors import InvalidArgument
from ...generated.swift.models.find_pane_by_position import (
    FindPaneByPositionInput,
    FindPaneByPositionOutput,
)
from ...generated.swift.models.get_pane_info import GetPaneInfoInput, GetPaneInfoOutput
from ...generated.swift.models.get_session_info import GetSessionInfoInput, GetSessionInfoOutput
from ...generated.swift.models.get_window_info import GetWindowInfoInput, GetWindowInfoOutput
from ...generated.swift.models.list_panes import ListPanesInput, ListPanesOutput
from ...generated.swift.models.list_sessions import ListSessionsInput, ListSessionsOutput
from ...generated.swift.models.list_windows import ListWindowsInput, ListWindowsOutput
from ..tmux.objects.refs import Refs
from ..tmux.objects.rows import each_pane_once
from ..tmux.objects.window import WindowPanes
from . import shapes
from .lookup import Lookups, given


class Listing:
    def __init__(self, lookups: Lookups, refs: Refs) -> None:
        self.lookups = lookups
        self.refs = refs

    # --- panes -------------------------------------------------------------------------

    async def get_pane_info(self, params: GetPaneInfoInput) -> GetPaneInfoOutput:
        row = await self.lookups().pane(params.paneId)
        return GetPaneInfoOutput.model_validate({"pane": shapes.pane(self.refs, row)})

    async def list_panes(self, params: ListPanesInput) -> ListPanesOutput:
        lookup = self.lookups()
        session = given(params.session)
        window = given(params.window)
        session_row = await lookup.session(session) if session is not None else None
        if window is not None:
            rows = await lookup.window_panes(window, "window")
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
            rows = await lookup.server.list_panes("-s", "-t", session_row.session_id)
        else:
            rows = each_pane_once(await lookup.server.list_panes("-a"))
        return ListPanesOutput.model_validate({"panes": [shapes.pane(self.refs, r) for r in rows]})

    async def find_pane_by_position(
        self, params: FindPaneByPositionInput
    ) -> FindPaneByPositionOutput:
        lookup = self.lookups()
        rows = await lookup.window_panes(params.windowId)
        panes = WindowPanes(rows[0].window_id, tuple(rows))
        row = panes.corner(params.corner, lookup.server.socket)
        return FindPaneByPositionOutput.model_validate({"pane": shapes.pane(self.refs, row)})

    # --- windows and sessions ---------------------------------------------------------

    async def get_window_info(self, params: GetWindowInfoInput) -> GetWindowInfoOutput:
        links = await self.lookups().window_links(params.windowId)
        return GetWindowInfoOutput.model_validate(
            {
                "window": shapes.window(self.refs, links[0]),
                "placements": [shapes.placement(self.refs, link) for link in links],
            }
        )

    async def list_windows(self, params: ListWindowsInput) -> ListWindowsOutput:
        lookup = self.lookups()
        session = given(params.session)
        if session is not None:
            row = await lookup.session(session)
            links = await lookup.server.session(row.session_id).list_windows()
        else:
            links = await lookup.server.list_windows("-a")
        return ListWindowsOutput.model_validate(
            {"windows": [shapes.occurrence(self.refs, link) for link in links]}
        )

    async def get_session_info(self, params: GetSessionInfoInput) -> GetSessionInfoOutput:
        lookup = self.lookups()
        sessions, attached = await lookup.server.sessions_and_clients()
        row = lookup.match_session(sessions, params.session, "session")
        return GetSessionInfoOutput.model_validate(
            {"session": shapes.session(self.refs, row, attached)}
        )

    async def list_sessions(self, params: ListSessionsInput) -> ListSessionsOutput:
        sessions, attached = await self.lookups().server.sessions_and_clients()
        return ListSessionsOutput.model_validate(
            {"sessions": [shapes.session(self.refs, row, attached) for row in sessions]}
        )
