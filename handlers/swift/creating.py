"""The swift family's execute tools that make things: sessions, windows, panes, a restart.

The tmux side is shared (``tmux.creating``); here are the family's camelCase
arguments, targets as ids or refs (``lookup``), its shapes (``shapes``) and its
``force``: on respawn_pane ``killFirst`` ends a live process except the caller's
own, and ``force`` ends it even there.
"""

from __future__ import annotations

from ...generated.swift.models.create_session import CreateSessionInput, CreateSessionOutput
from ...generated.swift.models.create_window import CreateWindowInput, CreateWindowOutput
from ...generated.swift.models.respawn_pane import RespawnPaneInput, RespawnPaneOutput
from ...generated.swift.models.split_window import SplitWindowInput, SplitWindowOutput
from ..tmux import creating
from ..tmux.refs import Refs
from . import shapes
from .lookup import Lookups, given


class Creating:
    def __init__(self, lookups: Lookups, refs: Refs) -> None:
        self.lookups = lookups
        self.refs = refs

    async def create_session(self, params: CreateSessionInput) -> CreateSessionOutput:
        name = creating.check_session_name(params.name, "name", optional=False)
        options = creating.literal_name("windowName", given(params.windowName))
        options += await creating.directory_args(
            given(params.startDirectory), "startDirectory", self.lookups.tmux.environ
        )
        options += creating.check_cells("width", "-x", given(params.width))
        options += creating.check_cells("height", "-y", given(params.height))
        lookup = self.lookups()
        row = await creating.new_session(lookup.server, name, field="name", options=options)
        # A session made detached has no client at all, this process's own included.
        attached = {row.session_id: row.count("session_attached")}
        shape = shapes.session(self.refs, row, attached)
        # This tool's contract gives the creation time as an integer.
        shape["createdAt"] = row.count("session_created")
        return CreateSessionOutput.model_validate(shape)

    async def create_window(self, params: CreateWindowInput) -> CreateWindowOutput:
        options = creating.literal_name("name", given(params.name))
        options += await creating.directory_args(
            given(params.startDirectory), "startDirectory", self.lookups.tmux.environ
        )
        if self.refs.is_ref(params.session):  # a bad ref is judged before tmux runs
            self.refs.parse(params.session, "session", ("session",))
        lookup = self.lookups()
        session = await lookup.session(params.session)
        row = await creating.new_window(lookup.server, session.session_id, options=options)
        return CreateWindowOutput.model_validate(shapes.occurrence(self.refs, row))

    async def split_window(self, params: SplitWindowInput) -> SplitWindowOutput:
        lookup = self.lookups()
        wanted = lookup.pane_id(params.paneId)  # its shape judged before tmux runs
        options = [*creating.split_flags(given(params.direction))]
        options += await creating.directory_args(
            given(params.startDirectory), "startDirectory", self.lookups.tmux.environ
        )
        pane_id = await lookup.pane_target(params.paneId)
        row = await creating.split(lookup.server, pane_id, field=wanted.field, options=options)
        return SplitWindowOutput.model_validate(shapes.pane(self.refs, row))

    async def respawn_pane(self, params: RespawnPaneInput) -> RespawnPaneOutput:
        lookup = self.lookups()
        lookup.pane_id(params.paneId)  # its shape judged before tmux runs
        where = given(params.startDirectory)
        options = (
            []
            if where is None
            else await creating.directory_args(where, "startDirectory", self.lookups.tmux.environ)
        )
        pane_id = await lookup.pane_target(params.paneId)
        force = given(params.force) is True
        row = await creating.respawn(
            lookup.server,
            self.lookups.tmux.environ,
            pane_id,
            kill=force or given(params.killFirst) is True,
            guarded=not force,
            kill_field="killFirst",
            field="paneId",
            options=options,
            override="Pass force: true to restart it anyway, which ends this MCP server.",
        )
        pane_ref = self.refs.make("pane", row.pane_id, row.server_tag)
        return RespawnPaneOutput(pane=row.pane_id, paneRef=pane_ref)
