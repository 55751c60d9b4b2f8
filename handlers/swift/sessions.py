"""Sessions in the swift family's shapes: listing and describing them, creating,
renaming and killing one.

A session is named by its id (``$1``), a ref or its exact name (``targets``); names
tmux would expand as a format are made literal first (``literal_format``).
kill_session is refused for every session while this process runs inside the
same tmux server, since what a session holds can change between check and kill;
``force`` lifts it.
"""

from __future__ import annotations

from ...errors import InvalidArgument
from ...generated.swift.models.create_session import CreateSessionInput, CreateSessionOutput
from ...generated.swift.models.get_session_info import GetSessionInfoInput, GetSessionInfoOutput
from ...generated.swift.models.kill_session import KillSessionInput, KillSessionOutput
from ...generated.swift.models.list_sessions import ListSessionsInput, ListSessionsOutput
from ...generated.swift.models.rename_session import RenameSessionInput, RenameSessionOutput
from ...seam import Call
from ..tmux.errors import CommandFailed
from ..tmux.objects import spawn
from ..tmux.objects.refs import Refs
from ..tmux.objects.spawn import no_nul
from ..tmux.transport.formats import literal_format
from . import rows
from .arguments import given
from .targets import FORCE, Lookups, guard_unless_forced


class SessionTools:
    def __init__(self, lookups: Lookups, refs: Refs) -> None:
        self.lookups = lookups
        self.refs = refs

    async def list_sessions(self, call: Call, params: ListSessionsInput) -> ListSessionsOutput:
        sessions, attached = await self.lookups.for_call().server.sessions_and_clients()
        return ListSessionsOutput.model_validate(
            {"sessions": [rows.session(self.refs, row, attached) for row in sessions]}
        )

    async def get_session_info(
        self, call: Call, params: GetSessionInfoInput
    ) -> GetSessionInfoOutput:
        lookup = self.lookups.for_call()
        sessions, attached = await lookup.server.sessions_and_clients()
        row = lookup.match_session(sessions, params.session, "session")
        return GetSessionInfoOutput.model_validate(
            {"session": rows.session(self.refs, row, attached)}
        )

    async def create_session(self, call: Call, params: CreateSessionInput) -> CreateSessionOutput:
        name = spawn.check_session_name(params.name, "name", optional=False)
        options = spawn.literal_name("windowName", given(params.windowName))
        options += await spawn.directory_args(
            given(params.startDirectory), "startDirectory", self.lookups.tmux.environ
        )
        options += spawn.check_cells("width", "-x", given(params.width))
        options += spawn.check_cells("height", "-y", given(params.height))
        lookup = self.lookups.for_call()
        row = await lookup.server.new_session(name, field="name", options=options)
        # A session made detached has no client at all, this process's own included.
        attached = {row.session_id: row.count("session_attached")}
        shape = rows.session(self.refs, row, attached)
        # This tool's contract gives the creation time as an integer.
        shape["createdAt"] = row.count("session_created")
        return CreateSessionOutput.model_validate(shape)

    async def rename_session(self, call: Call, params: RenameSessionInput) -> RenameSessionOutput:
        name = no_nul("name", params.name)
        lookup = self.lookups.for_call()
        session = await lookup.session(params.session)
        try:
            _, lines = await lookup.server.run_many(
                ("rename-session", "-t", session.session_id, "--", literal_format(name)),
                ("display-message", "-p", "-t", session.session_id, "#{session_name}"),
            )
        except CommandFailed as exc:
            if "duplicate session" in exc.stderr or "invalid session" in exc.stderr:
                raise InvalidArgument(
                    "name",
                    name,
                    f"is refused by tmux on {lookup.server.socket} ({exc.stderr})",
                    "Pass a name no other session has, and not empty.",
                ) from None
            raise
        return RenameSessionOutput(sessionId=session.session_id, name=lines[0] if lines else name)

    async def kill_session(self, call: Call, params: KillSessionInput) -> KillSessionOutput:
        lookup = self.lookups.for_call()
        session = await lookup.session(params.session)
        guard = guard_unless_forced(lookup.server, self.lookups.tmux.environ, params.force)
        if guard is not None:
            what = f"session '{session.name}' ({session.session_id})"
            await guard.whole_server("kill_session", what, override=FORCE)
        await lookup.server.session(session.session_id, "session").kill_session()
        return KillSessionOutput(deleted=True, sessionId=session.session_id)
