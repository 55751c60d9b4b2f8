"""Sessions: listing and describing them, creating, renaming and killing one.

New sessions are made in the background (``-d``) and described from tmux's own
``-P -F`` reply, so creating one takes a single tmux command. Names reach tmux
through ``literal_format``: ``new-session -s`` and ``rename-session`` expand
their argument as a format (3.3a), which would replace ``#{...}`` and run ``#(...)``.
"""

from __future__ import annotations

from ...errors import InvalidArgument, ToolError
from ...generated.python.models.create_session import CreateSessionInput, CreateSessionOutput
from ...generated.python.models.get_session_info import GetSessionInfoInput, GetSessionInfoOutput
from ...generated.python.models.kill_session import KillSessionInput, KillSessionOutput
from ...generated.python.models.list_sessions import (
    ListSessionsInput,
    ListSessionsOutput,
    ListSessionsOutputResultItem,
)
from ...generated.python.models.rename_session import RenameSessionInput, RenameSessionOutput
from ...seam import Call
from ..tmux.errors import CommandFailed, TmuxError, no_sessions
from ..tmux.objects import spawn
from ..tmux.objects.server import Tmux
from ..tmux.objects.spawn import check_session_name, no_nul
from ..tmux.objects.targets import check_session_id
from ..tmux.policy import Guard
from ..tmux.transport.formats import format_of, literal_format, parse_rows
from .arguments import spawn_args
from .filters import Filters
from .rows import ACTIVE_PANE, SESSION_REPLY, session_fields
from .targets import if_gone, no_session, pick_session, session_target, vanished


class SessionTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def list_sessions(self, call: Call, params: ListSessionsInput) -> ListSessionsOutput:
        keep = Filters.parse(params.filters, ListSessionsOutputResultItem)
        server = self.tmux.server(params.socket_name)
        sessions, attached = await server.sessions_and_clients(extra=ACTIVE_PANE)
        rows = keep([session_fields(row, attached) for row in sessions])
        return ListSessionsOutput(result=[ListSessionsOutputResultItem(**row) for row in rows])

    async def get_session_info(
        self, call: Call, params: GetSessionInfoInput
    ) -> GetSessionInfoOutput:
        session_id, session_name = session_target(params.session_id, params.session_name)
        server = self.tmux.server(params.socket_name)
        sessions, attached = await server.sessions_and_clients(extra=ACTIVE_PANE)
        if not sessions:
            raise no_sessions(server.socket)
        if session_id is None and session_name is None:
            row = sessions[0]
        else:
            found = [s for s in sessions if s.session_id == session_id or s.name == session_name]
            if not found:
                raise no_session(server, session_id, session_name)
            row = found[0]
        return GetSessionInfoOutput(**session_fields(row, attached))

    async def create_session(self, call: Call, params: CreateSessionInput) -> CreateSessionOutput:
        args = ["new-session", "-d", "-P", "-F", format_of(SESSION_REPLY)]
        if params.session_name is not None:
            args += ["-s", literal_format(check_session_name(params.session_name))]
        if params.window_name is not None:
            args += ["-n", literal_format(no_nul("window_name", params.window_name))]
        args += check_cells("x", params.x) + check_cells("y", params.y)
        args += await spawn_args(
            self.tmux.environ,
            params.start_directory,
            params.environment,
            params.suppress_persistent_history,
        )
        server = self.tmux.server(params.socket_name)
        try:
            lines = await server.run(*args)
        except CommandFailed as exc:
            if "duplicate session" in exc.stderr:
                raise TmuxError(
                    f"A session named {params.session_name!r} already exists on tmux "
                    f"{server.socket}. Pick another session_name, or use that session "
                    "(list_sessions shows it)."
                ) from None
            raise
        row = server.made_one("session", parse_rows(lines, SESSION_REPLY), lines, "list_sessions")
        return CreateSessionOutput(
            session_id=row["session_id"],
            session_name=row["session_name"],
            window_count=int(row["session_windows"] or 0),
            session_attached=row["session_attached"],
            session_created=row["session_created"] or None,
            active_pane_id=row["pane_id"] or None,
        )

    async def rename_session(self, call: Call, params: RenameSessionInput) -> RenameSessionOutput:
        if params.new_name == "":
            raise InvalidArgument(
                "new_name", "", "is empty; tmux has no nameless sessions", "Pass a name."
            )
        session_id, session_name = session_target(params.session_id, params.session_name)
        server = self.tmux.server(params.socket_name)
        session = pick_session(server, await server.list_sessions(), session_id, session_name)
        try:
            await server.run(
                "rename-session", "-t", session.session_id, "--", literal_format(params.new_name)
            )
        except CommandFailed as exc:
            if "duplicate session" in exc.stderr:
                raise InvalidArgument(
                    "new_name",
                    params.new_name,
                    f"is taken: tmux {server.socket} already has a session named "
                    f"{exc.stderr.partition(': ')[2]!r} (tmux turns ':' and '.' into '_')",
                    "Pick another name; call list_sessions to see the names in use.",
                ) from None
            if_gone(exc, server, "session", session.session_id)
            raise
        sessions, attached = await server.sessions_and_clients(extra=ACTIVE_PANE)
        row = next((s for s in sessions if s.session_id == session.session_id), None)
        if row is None:
            raise vanished(server, "session", session.session_id)
        return RenameSessionOutput(**session_fields(row, attached))

    async def kill_session(self, call: Call, params: KillSessionInput) -> KillSessionOutput:
        if params.session_id is None and params.session_name is None:
            raise ToolError(
                "kill_session needs a target: pass session_id (e.g. '$1') or session_name. "
                "There is no default session to kill; call list_sessions to see them."
            )
        session_id = check_session_id(params.session_id) if params.session_id else None
        server = self.tmux.server(params.socket_name)
        sessions = await server.list_sessions()
        if session_id is not None:
            match = [s for s in sessions if s.session_id == session_id]
        else:
            match = [s for s in sessions if s.name == params.session_name]
        if not match:
            raise no_session(server, session_id, params.session_name)
        session = match[0]
        if params.session_name is not None and session.name != params.session_name:
            raise InvalidArgument(
                "session_name",
                params.session_name,
                f"names a different session than session_id {session.session_id} "
                f"('{session.name}')",
                "Pass only one of them.",
            )
        await Guard(server, self.tmux.environ).kill_session(session.session_id, session.name)
        await server.session(session.session_id).kill_session()
        return KillSessionOutput(result=f"Session killed: {session.name} ({session.session_id})")


def check_cells(field: str, value: int | None) -> list[str]:
    """``-x``/``-y`` for new-session: the field names its own flag."""
    return spawn.check_cells(field, f"-{field}", value)
