"""Finding the pane, window or session a swift-profile argument names.

Every id argument takes the raw tmux id or a ref. Shapes are checked before
tmux runs; a ref from an earlier server run is refused, because tmux hands
the same ids out again after a restart.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..tmux.errors import NotFound
from ..tmux.objects import (
    LinkRow,
    PaneRow,
    Row,
    Server,
    SessionRow,
    Tmux,
    check_pane_id,
    check_window_id,
    session_row,
)
from ..tmux.objects.refs import Ref, Refs
from ..tmux.policy import Guard
from .arguments import given


@dataclass(frozen=True)
class Wanted:
    """An id to look up, and the server run a ref pinned it to (None for a raw id)."""

    object_id: str
    server_tag: str | None
    field: str
    given: str


@dataclass(frozen=True)
class Lookups:
    """The service every swift part finds its targets with: a ``Lookup`` per call.

    Each call asks the core for the served socket's server afresh, so a tmux too
    old to serve is refused at every call, as the core promises.
    """

    tmux: Tmux
    refs: Refs

    def for_call(self) -> Lookup:
        return Lookup(self.tmux.server(), self.refs)


class Lookup:
    def __init__(self, server: Server, refs: Refs) -> None:
        self.server = server
        self.refs = refs

    def _ref(self, value: str, field: str, kinds: tuple[str, ...]) -> Ref | None:
        return self.refs.parse(value, field, kinds) if self.refs.is_ref(value) else None

    def _check_run(self, wanted: Wanted, row: Row, what: str) -> None:
        if wanted.server_tag is not None and wanted.server_tag != row.server_tag:
            raise NotFound(
                what,
                wanted.object_id,
                socket=self.server.socket,
                field=wanted.field,
                note=f"the ref {wanted.given!r} names it on an earlier run of the tmux server, "
                "which has restarted since",
                next_step="List again to get current refs.",
            )

    def pane_id(self, value: str, field: str = "paneId") -> Wanted:
        ref = self._ref(value, field, ("pane",))
        if ref is not None:
            return Wanted(ref.object_id, ref.server_tag, field, value)
        return Wanted(check_pane_id(value, field), None, field, value)

    async def pane(self, value: str, field: str = "paneId") -> PaneRow:
        wanted = self.pane_id(value, field)
        row = await self.server.pane(wanted.object_id, field).row()
        self._check_run(wanted, row, "pane")
        return row

    async def pane_target(self, value: str, field: str = "paneId") -> str:
        """A pane id safe to hand to tmux: a raw id as is (tmux reports a missing pane
        itself), a ref only once it is known to name a pane of this server run."""
        wanted = self.pane_id(value, field)
        if wanted.server_tag is None:
            return wanted.object_id
        return (await self.pane(value, field)).pane_id

    def window_id(self, value: str, field: str = "windowId") -> Wanted:
        ref = self._ref(value, field, ("window", "link"))
        if ref is not None:
            object_id = ref.object_id.rpartition("|")[2] if ref.kind == "link" else ref.object_id
            return Wanted(object_id, ref.server_tag, field, value)
        return Wanted(check_window_id(value, field), None, field, value)

    async def window_panes(self, value: str, field: str = "windowId") -> list[PaneRow]:
        """The panes of a window, in tmux's order."""
        wanted = self.window_id(value, field)
        panes = (await self.server.window(wanted.object_id, field).list_panes()).panes
        self._check_run(wanted, panes[0], "window")
        return list(panes)

    async def window_links(self, value: str, field: str = "windowId") -> list[LinkRow]:
        """Every (session, index) the window is linked at."""
        wanted = self.window_id(value, field)
        links = await self.server.window(wanted.object_id, field).links()
        self._check_run(wanted, links[0], "window")
        return links

    async def session(self, value: str, field: str = "session") -> SessionRow:
        """A session by id (``$1``), ref, or exact name."""
        return self.match_session(await self.server.list_sessions(), value, field)

    def match_session(self, sessions: list[SessionRow], value: str, field: str) -> SessionRow:
        """The session of ``sessions`` that ``value`` names (id, ref or exact name)."""
        ref = self._ref(value, field, ("session",))
        if ref is None:
            return session_row(sessions, value, socket=self.server.socket, field=field)
        row = next((r for r in sessions if r.session_id == ref.object_id), None)
        if row is None:
            raise self.server.session(ref.object_id, field).not_found()
        self._check_run(Wanted(ref.object_id, ref.server_tag, field, value), row, "session")
        return row


FORCE = "Pass force: true to go ahead all the same."


def guard_unless_forced(server: Server, environ: Mapping[str, str], force: object) -> Guard | None:
    """The guard to ask, or None when ``force`` lifts it."""
    if given(force, False):
        return None
    return Guard(server, environ, caller_shown="")
