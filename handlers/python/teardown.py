"""Killing and clearing, guarded so the server never removes what it runs in.

kill_server, kill_session, kill_window, kill_pane and respawn_pane ask the guard
(``handlers/tmux/guard.py``) first; clear_pane and delete_buffer end no process.
"""

from __future__ import annotations

from ...errors import InvalidArgument, ToolError
from ...generated.python.models.clear_pane import ClearPaneInput, ClearPaneOutput
from ...generated.python.models.delete_buffer import DeleteBufferInput, DeleteBufferOutput
from ...generated.python.models.kill_pane import KillPaneInput, KillPaneOutput
from ...generated.python.models.kill_server import KillServerInput, KillServerOutput
from ...generated.python.models.kill_session import KillSessionInput, KillSessionOutput
from ...generated.python.models.kill_window import KillWindowInput, KillWindowOutput
from ...generated.python.models.respawn_pane import RespawnPaneInput, RespawnPaneOutput
from ..tmux.errors import GONE_DURING_CALL, CommandFailed, NotFound
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.spawn import environment_args, no_nul, spawn_environment, start_directory
from ..tmux.objects.targets import (
    WindowSelector,
    check_pane_id,
    check_session_id,
    check_window_id,
)
from ..tmux.policy.guard import Guard
from ..tmux.transport.formats import literal_format
from .reading import no_buffer
from .shapes import pane_fields


def unknown_pane(server: Server, pane_id: str) -> NotFound:
    return NotFound("pane", pane_id, socket=server.socket, field="pane_id")


class TeardownTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    def _guard(self, server: Server) -> Guard:
        return Guard(server, self.tmux.environ)

    # --- kill_server -------------------------------------------------------------------

    async def kill_server(self, params: KillServerInput) -> KillServerOutput:
        server = self.tmux.server(params.socket_name)
        await self._guard(server).kill_server()
        await server.run("kill-server")
        return KillServerOutput(result=f"Server killed: tmux {server.socket}")

    # --- kill_session ------------------------------------------------------------------

    async def kill_session(self, params: KillSessionInput) -> KillSessionOutput:
        if params.session_id is None and params.session_name is None:
            raise ToolError(
                "kill_session needs a target: pass session_id (e.g. '$1') or session_name. "
                "There is no default session to kill; call list_sessions to see them."
            )
        if params.session_id is not None:
            check_session_id(params.session_id)
        server = self.tmux.server(params.socket_name)
        sessions = await server.list_sessions()
        if params.session_id is not None:
            match = [s for s in sessions if s.session_id == params.session_id]
            missing = NotFound(
                "session", params.session_id, socket=server.socket, field="session_id"
            )
        else:
            match = [s for s in sessions if s.name == params.session_name]
            missing = NotFound(
                "session",
                params.session_name,
                socket=server.socket,
                field="session_name",
                by="name",
            )
        if not match:
            raise missing
        session = match[0]
        if params.session_name is not None and session.name != params.session_name:
            raise InvalidArgument(
                "session_name",
                params.session_name,
                f"names a different session than session_id {session.session_id} "
                f"('{session.name}')",
                "Pass only one of them.",
            )
        await self._guard(server).kill_session(session.session_id, session.name)
        try:
            await server.run("kill-session", "-t", session.session_id)
        except CommandFailed as exc:
            if "can't find session" in exc.stderr:
                raise NotFound(
                    "session", session.session_id, socket=server.socket, note=GONE_DURING_CALL
                ) from None
            raise
        return KillSessionOutput(result=f"Session killed: {session.name} ({session.session_id})")

    # --- kill_window -------------------------------------------------------------------

    async def kill_window(self, params: KillWindowInput) -> KillWindowOutput:
        window_id = check_window_id(params.window_id)
        server = self.tmux.server(params.socket_name)
        await self._guard(server).kill_window(window_id)
        try:
            await server.run("kill-window", "-t", window_id)
        except CommandFailed as exc:
            if "can't find window" in exc.stderr:
                raise NotFound(
                    "window", window_id, socket=server.socket, field="window_id"
                ) from None
            raise
        return KillWindowOutput(result=f"Window killed: {window_id}")

    # --- kill_pane ---------------------------------------------------------------------

    async def kill_pane(self, params: KillPaneInput) -> KillPaneOutput:
        pane_id = check_pane_id(params.pane_id)
        server = self.tmux.server(params.socket_name)
        await self._guard(server).pane("kill_pane", pane_id)
        try:
            await server.run("kill-pane", "-t", pane_id)
        except CommandFailed as exc:
            if "can't find pane" in exc.stderr:
                raise unknown_pane(server, pane_id) from None
            raise
        return KillPaneOutput(result=f"Pane killed: {pane_id}")

    # --- clear_pane --------------------------------------------------------------------

    async def clear_pane(self, params: ClearPaneInput) -> ClearPaneOutput:
        """``send-keys -R`` resets the terminal (blank screen, home cursor), then
        ``clear-history`` drops the scrollback, including what the reset pushed there;
        pipelined, so little output can land between the two."""
        server = self.tmux.server(params.socket_name)
        if params.pane_id is not None:
            pane_id = check_pane_id(params.pane_id)
        else:
            selector = WindowSelector(
                params.window_id, None, params.session_name, params.session_id
            )
            pane_id = (await selector.resolve_pane(server, None)).pane_id
        try:
            await server.run_many(
                ("send-keys", "-R", "-t", pane_id), ("clear-history", "-t", pane_id)
            )
        except CommandFailed as exc:
            if "can't find pane" in exc.stderr:
                raise unknown_pane(server, pane_id) from None
            raise
        return ClearPaneOutput(result=f"Pane cleared: {pane_id}")

    # --- delete_buffer -----------------------------------------------------------------

    async def delete_buffer(self, params: DeleteBufferInput) -> DeleteBufferOutput:
        name = no_nul("buffer_name", params.buffer_name)
        server = self.tmux.server(params.socket_name)
        try:
            await server.run("delete-buffer", "-b", name)
        except CommandFailed as exc:
            if "unknown buffer" in exc.stderr or "no buffer" in exc.stderr:
                raise no_buffer(server, name, "nothing was deleted") from None
            raise
        return DeleteBufferOutput(result=f"Buffer deleted: {name!r}")

    # --- respawn_pane ------------------------------------------------------------------

    async def respawn_pane(self, params: RespawnPaneInput) -> RespawnPaneOutput:
        pane_id = check_pane_id(params.pane_id)
        environment = spawn_environment(
            params.environment, quiet_history=params.suppress_persistent_history is True
        )
        args = ["respawn-pane", "-t", pane_id]
        if params.kill is not False:
            args.append("-k")
        if params.start_directory is not None:
            # tmux expands -c as a format (3.3a runs #(...) in it): spell it literally.
            args += [
                "-c",
                literal_format(await start_directory(params.start_directory, self.tmux.environ)),
            ]
        args += environment_args(environment)
        if params.shell is not None:
            # After "--", a command starting with '-' is not read as a flag.
            args += ["--", no_nul("shell", params.shell)]
        server = self.tmux.server(params.socket_name)
        await self._guard(server).pane("respawn_pane", pane_id)
        try:
            await server.run(*args)
        except CommandFailed as exc:
            if "can't find pane" in exc.stderr:
                raise unknown_pane(server, pane_id) from None
            if "still active" in exc.stderr:
                raise ToolError(
                    f"Pane {pane_id} on tmux {server.socket} still runs its process, and "
                    "kill is false: nothing was restarted. Pass kill: true to kill that process "
                    "first, or wait until it exits."
                ) from None
            raise
        row = await server.pane(pane_id).display_message()
        if row is None:  # its new process exited at once and the pane closed
            raise ToolError(
                f"Pane {pane_id} on tmux {server.socket} was respawned but closed at once: "
                "the new command exited immediately. Check `shell`, or set remain-on-exit "
                "on the window to keep such a pane open."
            )
        return RespawnPaneOutput(**pane_fields(server, row))
