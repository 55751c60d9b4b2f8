"""A session as an object: the tmux commands that act on one session, named after them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import GONE_DURING_CALL, CommandFailed, NotFound
from .rows import LinkRow
from .settings import Hook, parse_hooks, read_shell_environment, set_and_show

if TYPE_CHECKING:
    from .server import Server


@dataclass(frozen=True, slots=True)
class Session:
    """Session ``session_id`` of ``server``, as argument ``field`` named it."""

    server: Server
    session_id: str
    field: str = "session_id"

    def not_found(self, note: str = "") -> NotFound:
        return NotFound(
            "session", self.session_id, socket=self.server.socket, field=self.field, note=note
        )

    async def kill_session(self) -> None:
        """``kill-session``: windows linked into another session live on there."""
        try:
            await self.server.run("kill-session", "-t", self.session_id)
        except CommandFailed as exc:
            if exc.not_found:
                raise self.not_found() from None
            raise

    async def new_window(
        self, *, options: Sequence[str] = (), extra: Sequence[str] = ()
    ) -> LinkRow:
        """A window at the first free index of the session, in the background; its
        placement row (with the further ``extra`` fields, ours, in ``raw``).

        The row is read after the window exists: in ``new-window -P`` itself tmux 3.3a
        reports the new window as linked into several sessions.
        """
        args = ["new-window", "-d", "-P", "-F", "#{window_id}", "-t", f"{self.session_id}:"]
        try:
            lines = await self.server.run(*args, *options)
        except CommandFailed as exc:
            if "can't find session" in exc.stderr:
                raise self.not_found(GONE_DURING_CALL) from None
            raise
        links = await self.list_windows(extra) if lines else []
        rows = [row for row in links if row.window_id == lines[0]]
        return self.server.made_one("window", rows, lines, "list_windows")

    async def list_windows(self, extra: Sequence[str] = ()) -> list[LinkRow]:
        """The session's windows (``list-windows -t``), with the further fields ``extra``."""
        return await self.server.list_windows("-t", self.session_id, extra=extra)

    async def show_environment(self) -> dict[str, str | None]:
        """The session's environment (``show-environment -t``; see ``settings``)."""
        return await read_shell_environment(self.server, ("-t", self.session_id))

    async def show_hooks(self) -> list[Hook]:
        """The session's hooks that are set (``show-hooks -t``)."""
        return parse_hooks(await self.server.run("show-hooks", "-t", self.session_id))

    async def set_history_limit(self, limit: int) -> str:
        """history-limit for the session's panes made from now on; what tmux holds after."""
        return await set_and_show(self.server, ("-t", self.session_id), "history-limit", str(limit))
