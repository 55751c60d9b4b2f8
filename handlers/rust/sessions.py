"""Sessions in the rust family's shapes: listing and describing them, creating,
renaming and killing one.

A session is named by its ``$`` id or its exact name, looked up in this process,
never handed to tmux's own target matching; names are made literal
(``literal_format``) because tmux expands them as formats. ``attached`` counts
terminal clients, never a control-mode client (this server's or anyone's).
"""

from __future__ import annotations

from ...errors import InvalidArgument, ToolError
from ...generated.rust.models.create_session import CreateSessionInput, CreateSessionOutput
from ...generated.rust.models.get_session_info import GetSessionInfoInput, GetSessionInfoOutput
from ...generated.rust.models.kill_session import KillSessionInput, KillSessionOutput
from ...generated.rust.models.list_sessions import ListSessionsInput, ListSessionsOutput
from ...generated.rust.models.rename_session import RenameSessionInput, RenameSessionOutput
from ...seam import Call
from ..tmux.errors import CommandFailed
from ..tmux.objects import Tmux, spawn
from ..tmux.objects.targets import session_row
from ..tmux.transport.formats import literal_format
from .arguments import given
from .rows import session_view
from .targets import guard, session_of


class SessionTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def list_sessions(self, call: Call, params: ListSessionsInput) -> ListSessionsOutput:
        server = self.tmux.server()
        sessions, attached = await server.sessions_and_clients(terminals_only=True)
        rows = [session_view(row, attached) for row in sessions]
        return ListSessionsOutput.model_validate({"sessions": rows})

    async def get_session_info(
        self, call: Call, params: GetSessionInfoInput
    ) -> GetSessionInfoOutput:
        server = self.tmux.server()
        sessions, attached = await server.sessions_and_clients(terminals_only=True)
        found = session_row(sessions, params.session, socket=server.socket, field="session")
        return GetSessionInfoOutput.model_validate(session_view(found, attached))

    async def create_session(self, call: Call, params: CreateSessionInput) -> CreateSessionOutput:
        name = spawn.check_session_name(params.name, "name", optional=False)
        where = await spawn.directory_args(
            given(params.start_directory), "start_directory", self.tmux.environ
        )
        server = self.tmux.server()
        row = await server.new_session(name, field="name", options=where)
        # A session made detached has no client at all, this process's own included.
        attached = {row.session_id: row.count("session_attached")}
        return CreateSessionOutput.model_validate(session_view(row, attached))

    async def rename_session(self, call: Call, params: RenameSessionInput) -> RenameSessionOutput:
        name = params.name
        if not name:
            raise InvalidArgument("name", name, "is empty", "Pass the new name, e.g. 'build'.")
        server = self.tmux.server()
        session = (await session_of(server, params.session, "session"))[0]
        if name != session.name:  # the same name again is already done
            try:
                await server.run(
                    "rename-session", "-t", session.session_id, "--", literal_format(name)
                )
            except CommandFailed as exc:
                if "duplicate session" not in exc.stderr:
                    raise
                raise ToolError(
                    f"Invalid argument `name`: {name!r} is refused by tmux on {server.socket}: "
                    "another session already has that name. Pass a name no other session has "
                    "(list_sessions shows them); nothing was changed.",
                    kind="refused",
                ) from None
        row, attached = await session_of(server, session.session_id, "session")
        return RenameSessionOutput.model_validate(session_view(row, attached))

    async def kill_session(self, call: Call, params: KillSessionInput) -> KillSessionOutput:
        server = self.tmux.server()
        session = await server.find_session(params.session, "session")
        await guard(server, self.tmux.environ).kill_session(session.session_id, session.name)
        await server.session(session.session_id, "session").kill_session()
        return KillSessionOutput(id=session.session_id)
