"""A pane as an object: the tmux commands that act on one pane, named after them.

A ``Pane`` is a pane id on one server and the argument that named it (``field``),
so every command it runs words a missing pane the same way (``NotFound``, from
that argument). It holds no state of the pane: ``display_message`` reads its row
(the fields asked for) as tmux reports it now.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ....errors import ToolError
from ..errors import CommandFailed, NotFound, TmuxError
from ..transport.formats import cached_format, format_of
from . import linedrawing
from .rows import PANE_FIELDS, PaneRow, pane_rows
from .window import WindowPanes

if TYPE_CHECKING:
    from .server import Server

Direction = Literal["up", "down", "left", "right", "last", "next", "previous"]

# Directions tmux resolves itself from the pane: its selection and the read of its
# window travel in one round trip.
ONE_TRIP: frozenset[Direction | None] = frozenset({None, "up", "down", "left", "right", "last"})
_LAYOUT_FLAGS = {"up": "-U", "down": "-D", "left": "-L", "right": "-R"}
ACTIVE_ONLY = "#{pane_active}"
"""A ``list-panes -f`` filter: tmux formats the window's active pane and skips the rest."""

TOO_SMALL = ("no space", "too small", "too big")
SPLIT_FIELDS = (*PANE_FIELDS, "pane_start_path")
SPLIT_FORMAT = format_of(SPLIT_FIELDS)


@dataclass(frozen=True, slots=True)
class Pane:
    """Pane ``pane_id`` of ``server``, as argument ``field`` named it."""

    server: Server
    pane_id: str
    field: str = "pane_id"

    def not_found(self, note: str = "") -> NotFound:
        return NotFound(
            "pane", self.pane_id, socket=self.server.socket, field=self.field, note=note
        )

    async def run(self, *commands: Sequence[str], note: str = "") -> list[list[str]]:
        """``commands`` aimed at this pane, in order (one round trip where the transport
        can); tmux's "can't find" is this pane's ``NotFound`` (with ``note``)."""
        try:
            return await self.server.run_many(*commands)
        except CommandFailed as exc:
            if exc.not_found:
                raise self.not_found(note) from None
            raise

    async def display_message(self, fields: Sequence[str] = PANE_FIELDS) -> PaneRow | None:
        """The pane's row with ``fields`` (``display-message -p``), or None when it is gone.

        ``display-message -t`` does not fail for a missing pane (tmux 3.3a):
        it expands the format with no pane, so the empty ``pane_id`` tells.
        """
        lines = await self.server.run(
            "display-message", "-p", "-t", self.pane_id, cached_format(fields)
        )
        rows = pane_rows(lines, fields)
        return rows[0] if rows and rows[0].pane_id == self.pane_id else None

    async def row(self, fields: Sequence[str] = PANE_FIELDS, note: str = "") -> PaneRow:
        """``display_message``, or ``NotFound`` (with ``note``) when the pane is gone."""
        row = await self.display_message(fields)
        if row is None:
            raise self.not_found(note)
        return row

    async def run_then_read(
        self, command: Sequence[str], fields: Sequence[str] = PANE_FIELDS, note: str = ""
    ) -> PaneRow:
        """Run ``command`` on the pane, then read its row, in one round trip; a pane gone
        by either is ``NotFound`` with ``note``."""
        read = ("display-message", "-p", "-t", self.pane_id, cached_format(fields))
        try:
            _, lines = await self.server.run_many(command, read)
        except CommandFailed as exc:
            if exc.not_found:
                raise self.not_found(note) from None
            raise
        rows = pane_rows(lines, fields)
        if not rows or rows[0].pane_id != self.pane_id:
            raise self.not_found(note)
        return rows[0]

    async def capture_pane(
        self,
        start: int | str | None = None,
        end: int | str | None = None,
        *,
        join_wrapped: bool = False,
    ) -> list[str]:
        """``capture-pane -p``: tmux line numbers (0 = top of the screen, negative = history),
        with what a program drew in the alternate character set drawn (``linedrawing``)."""
        args = ["capture-pane", "-p", linedrawing.FLAG, "-t", self.pane_id]
        args += ["-J"] if join_wrapped else []
        if start is not None:
            args += ["-S", str(start)]
        if end is not None:
            args += ["-E", str(end)]
        (lines,) = await self.run(args)
        return linedrawing.plain_lines(lines)

    async def kill_pane(self) -> None:
        """``kill-pane``: the pane and its process end; a window left empty closes."""
        await self.run(("kill-pane", "-t", self.pane_id))

    async def clear_history(self) -> None:
        """``clear-history``: the scrollback goes, the visible screen stays as it is."""
        await self.run(("clear-history", "-t", self.pane_id))

    async def split_window(
        self, options: Sequence[str] = (), command: Sequence[str] = ()
    ) -> PaneRow:
        """The new pane from splitting this one (``options``: side, size, directory,
        already checked), running ``command`` (after ``--``) instead of the default
        shell when given; the split pane stays active."""
        args = ["split-window", "-d", "-P", "-F", SPLIT_FORMAT, *options, "-t", self.pane_id]
        args += ["--", *command] if command else []
        try:
            lines = await self.server.run(*args)
        except CommandFailed as exc:
            if "can't find pane" in exc.stderr:
                raise self.not_found() from None
            if any(text in exc.stderr for text in TOO_SMALL):
                raise ToolError(
                    f"Pane {self.pane_id} on tmux {self.server.socket} is too small to split "
                    f"that way (tmux: {exc.stderr}). Split a bigger pane, pass a smaller size, "
                    "or make the window bigger (resize_window). Nothing was created.",
                    kind="refused",
                ) from None
            raise
        row = self.server.made_one("pane", pane_rows(lines, SPLIT_FIELDS), lines, "list_panes")
        # Until the new shell's process group is set up tmux reports no current path; the
        # shell is then still where it was started.
        if not row.raw["pane_current_path"]:
            row.raw["pane_current_path"] = row.raw["pane_start_path"]
        return row

    async def respawn_pane(
        self, *, kill: bool, kill_field: str, options: Sequence[str] = ()
    ) -> PaneRow:
        """Rerun the pane's own command in it (``kill`` ends a live process first; the
        caller has asked the guard); the pane's row after."""
        args = ["respawn-pane", "-t", self.pane_id, *(["-k"] if kill else []), *options]
        try:
            await self.server.run(*args)
        except CommandFailed as exc:
            if "can't find pane" in exc.stderr:
                raise self.not_found() from None
            if "still active" in exc.stderr:
                raise ToolError(
                    f"Pane {self.pane_id} on tmux {self.server.socket} still runs its process, "
                    f"so it was not restarted. Pass {kill_field}: true to end that process "
                    "first, or wait until it exits.",
                    kind="refused",
                ) from None
            raise
        row = await self.display_message()
        if row is None:  # the command exited at once and the pane closed
            raise ToolError(
                f"Pane {self.pane_id} on tmux {self.server.socket} was restarted but closed at "
                "once: its command exited immediately. Set remain-on-exit on its window to keep "
                "such a pane open.",
                kind="partial_effect",
            )
        return row

    async def select_pane(
        self,
        direction: Direction | None = None,
        fields: Sequence[str] = PANE_FIELDS,
        window: WindowPanes | None = None,
    ) -> PaneRow:
        """Select this pane, or the pane ``direction`` of it; the active pane of its window
        after, with ``fields`` (``pane_id`` and ``pane_active`` among them).

        Directions tmux resolves itself (``ONE_TRIP``) travel with the read in one round
        trip; ``next`` and ``previous`` step in ``window`` (its panes, listed if not given).
        """
        if direction not in ONE_TRIP:
            panes = window if window is not None else await self.window_panes()
            anchor = panes.pane(self.pane_id) or panes.active_pane
            target = panes.step(anchor, 1 if direction == "next" else -1)
            return await Pane(self.server, target.pane_id, self.field).select_pane(None, fields)
        select: tuple[str, ...] = ("select-pane", "-t", self.pane_id)
        if direction == "last":
            select = ("select-pane", "-l", "-t", self.pane_id)
        elif direction is not None:
            select = (*select, _LAYOUT_FLAGS[direction])
        read = ("list-panes", "-t", self.pane_id, "-f", ACTIVE_ONLY, "-F", cached_format(fields))
        try:
            _, lines = await self.server.run_many(select, read)
        except CommandFailed as exc:
            if exc.not_found:
                raise self.not_found() from None
            if "no last pane" in exc.stderr:
                raise TmuxError(
                    f"The window of pane {self.pane_id} on tmux {self.server.socket} has no "
                    "previously active pane to return to. Select a pane by id or with "
                    "up/down/left/right/next/previous."
                ) from None
            raise
        active = [row for row in pane_rows(lines, fields) if row.active]
        if not active:
            raise self.not_found("its window went away while selecting")
        return active[0]

    async def window_panes(self, fields: Sequence[str] = PANE_FIELDS) -> WindowPanes:
        """The panes of the window holding this pane, in tmux's order."""
        try:
            rows = await self.server.list_panes("-t", self.pane_id, fields=fields)
        except CommandFailed as exc:
            if exc.not_found:
                raise self.not_found() from None
            raise
        window_ids = {row.window_id for row in rows if row.pane_id == self.pane_id}
        if not window_ids:
            raise self.not_found()
        return WindowPanes.of(window_ids.pop(), rows)
