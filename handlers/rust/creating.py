"""The rust family's execute tools that make things: sessions, windows, panes, a restart.

The tmux side is shared (``Server.new_session``, ``Pane.split_window``...); here are the family's argument names,
its raw-id targets, the split share checked in the handler (the schema only says
``percent >= 0``), and its row shapes (``rows``).
"""

from __future__ import annotations

from typing import Any

from pydantic import MISSING

from ...errors import InvalidArgument
from ...generated.rust.models.create_session import CreateSessionInput, CreateSessionOutput
from ...generated.rust.models.create_window import CreateWindowInput, CreateWindowOutput
from ...generated.rust.models.respawn_pane import RespawnPaneInput, RespawnPaneOutput
from ...generated.rust.models.split_window import (
    SplitDirection,
    SplitWindowInput,
    SplitWindowOutput,
)
from ..tmux.objects import spawn
from ..tmux.objects.server import Tmux
from ..tmux.objects.targets import check_pane_id, session_row
from ..tmux.policy import Guard
from .rows import WINDOW_EXTRA, pane_view, session_view, window_view


def optional(value: Any) -> Any:
    """An optional argument's value; None when it was left out or sent as null."""
    return None if value is MISSING else value


class Creating:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def create_session(self, params: CreateSessionInput) -> CreateSessionOutput:
        name = spawn.check_session_name(params.name, "name", optional=False)
        where = await spawn.directory_args(
            optional(params.start_directory), "start_directory", self.tmux.environ
        )
        server = self.tmux.server()
        row = await server.new_session(name, field="name", options=where)
        # A session made detached has no client at all, this process's own included.
        attached = {row.session_id: row.count("session_attached")}
        return CreateSessionOutput.model_validate(session_view(row, attached))

    async def create_window(self, params: CreateWindowInput) -> CreateWindowOutput:
        if not params.session:
            raise InvalidArgument(
                "session", params.session, "is empty", "Pass a session id such as $1 or a name."
            )
        options = spawn.literal_name("name", optional(params.name))
        options += await spawn.directory_args(
            optional(params.start_directory), "start_directory", self.tmux.environ
        )
        server = self.tmux.server()
        sessions = await server.list_sessions()
        session = session_row(sessions, params.session, socket=server.socket, field="session")
        row = await server.session(session.session_id).new_window(
            options=options, extra=WINDOW_EXTRA
        )
        return CreateWindowOutput.model_validate(window_view(row))

    async def split_window(self, params: SplitWindowInput) -> SplitWindowOutput:
        pane_id = check_pane_id(params.pane, field="pane")
        chosen = optional(params.direction)
        direction = chosen.root if isinstance(chosen, SplitDirection) else None
        options = [*spawn.split_flags(direction)]
        options += spawn.check_percent(optional(params.percent))
        options += await spawn.directory_args(
            optional(params.start_directory), "start_directory", self.tmux.environ
        )
        server = self.tmux.server()
        row = await server.pane(pane_id, "pane").split_window(options)
        return SplitWindowOutput.model_validate(pane_view(server, row))

    async def respawn_pane(self, params: RespawnPaneInput) -> RespawnPaneOutput:
        pane_id = check_pane_id(params.pane, field="pane")
        kill = params.kill_first is True
        server = self.tmux.server()
        if kill:  # never the pane this process runs in
            await Guard(server, self.tmux.environ).pane("respawn_pane", pane_id)
        row = await server.pane(pane_id, "pane").respawn_pane(kill=kill, kill_field="kill_first")
        return RespawnPaneOutput.model_validate(pane_view(server, row))
