"""The swift family's execute tools that make things: sessions, windows, panes, a restart.

The tmux side is shared (``Server.new_session``, ``Pane.split_window``...); here are the family's camelCase
arguments, targets as ids or refs (``lookup``), its shapes (``shapes``) and its
``force``: on respawn_pane ``killFirst`` ends a live process except the caller's
own, and ``force`` ends it even there.
"""

from __future__ import annotations

from ...generated.swift.models.create_session import CreateSessionInput, CreateSessionOutput
from ...generated.swift.models.create_window import CreateWindowInput, CreateWindowOutput
from ...generated.swift.models.respawn_pane import RespawnPaneInput, RespawnPaneOutput
from ...generated.swift.models.split_window import SplitWindowInput, SplitWindowOutput
from ..tmux.objects import spawn
from ..tmux.objects.refs import Refs
from ..tmux.policy import Guard
from . import shapes
from .lookup import Lookups, given

RESPAWN_ANYWAY = "Pass force: true to restart it anyway, which ends this MCP server."


class Creating:
    def __init__(self, lookups: Lookups, refs: Refs) -> None:
        self.lookups = lookups
        self.refs = refs

    async def create_session(self, params: CreateSessionInput) -> CreateSessionOutput:
        name = spawn.check_session_name(params.name, "name", optional=False)
        options = spawn.literal_name("windowName", given(params.windowName))
        options += await spawn.directory_args(
            given(params.startDirectory), "startDirectory", self.lookups.tmux.environ
        )
        options += spawn.check_cells("width", "-x", given(params.width))
        options += spawn.check_cells("height", "-y", given(params.height))
        lookup = self.lookups()
        row = await lookup.server.new_session(name, field="name", options=options)
        # A session made detached has no client at all, this process's own included.
        attached = {row.session_id: row.count("session_attached")}
        shape = shapes.session(self.refs, row, attached)
        # This tool's contract gives the creation time as an integer.
        shape["createdAt"] = row.count("session_created")
        return CreateSessionOutput.model_validate(shape)

    async def create_window(self, params: CreateWindowInput) -> CreateWindowOutput:
        options = spawn.literal_name("name", given(params.name))
        options += await spawn.directory_args(
            given(params.startDirectory), "startDirectory", self.lookups.tmux.environ
        )
        if self.refs.is_ref(params.session):  # a bad ref is judged before tmux runs
            self.refs.parse(params.session, "session", ("session",))
        lookup = self.lookups()
        session = await lookup.session(params.session)
        row = await lookup.server.session(session.session_id).new_window(options=options)
        return CreateWindowOutput.model_validate(shapes.occurrence(self.refs, row))

    async def split_window(self, params: SplitWindowInput) -> SplitWindowOutput:
        lookup = self.lookups()
        wanted = lookup.pane_id(params.paneId)  # its shape judged before tmux runs
        options = [*spawn.split_flags(given(params.direction))]
        options += await spawn.directory_args(
            given(params.startDirectory), "startDirectory", self.lookups.tmux.environ
        )
        pane_id = await lookup.pane_target(params.paneId)
        row = await lookup.server.pane(pane_id, wanted.field).split_window(options)
        return SplitWindowOutput.model_validate(shapes.pane(self.refs, row))

    async def respawn_pane(self, params: RespawnPaneInput) -> RespawnPaneOutput:
        lookup = self.lookups()
        lookup.pane_id(params.paneId)  # its shape judged before tmux runs
        where = given(params.startDirectory)
        options = (
            []
            if where is None
            else await spawn.directory_args(where, "startDirectory", self.lookups.tmux.environ)
        )
        pane_id = await lookup.pane_target(params.paneId)
        force = given(params.force) is True
        kill = force or given(params.killFirst) is True
        if kill and not force:  # never the pane this process runs in, unless forced
            await Guard(lookup.server, self.lookups.tmux.environ).pane(
                "respawn_pane", pane_id, override=RESPAWN_ANYWAY
            )
        pane = lookup.server.pane(pane_id, "paneId")
        row = await pane.respawn_pane(kill=kill, kill_field="killFirst", options=options)
        pane_ref = self.refs.make("pane", row.pane_id, row.server_tag)
        return RespawnPaneOutput(pane=row.pane_id, paneRef=pane_ref)
