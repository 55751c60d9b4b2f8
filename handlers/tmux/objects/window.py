"""A window as an object: the tmux commands that act on one window, named after them,
and ``WindowPanes``, the panes of one window as tmux listed them.

A window may be linked into several sessions at several indexes; ``links`` gives
every place it is at (``list-windows``), and a command by window id acts on the
window wherever it is linked.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..errors import CommandFailed, NotFound
from ..transport.formats import format_of, parse_rows
from .rows import PANE_FIELDS, LinkRow, PaneRow, each_pane_once

if TYPE_CHECKING:
    from .server import Server

Corner = Literal["top-left", "top-right", "bottom-left", "bottom-right"]
CORNER_ONLY: dict[Corner, str] = {
    "top-left": "#{&&:#{pane_at_top},#{pane_at_left}}",
    "top-right": "#{&&:#{pane_at_top},#{pane_at_right}}",
    "bottom-left": "#{&&:#{pane_at_bottom},#{pane_at_left}}",
    "bottom-right": "#{&&:#{pane_at_bottom},#{pane_at_right}}",
}
"""``list-panes -f`` filters: tmux formats only the pane in that corner (``Window.list_panes``)."""
SYNCHRONIZE = "synchronize-panes"


@dataclass(frozen=True)
class WindowPanes:
    """The panes of one window, in tmux's order (by pane index)."""

    window_id: str
    panes: tuple[PaneRow, ...]

    @classmethod
    def of(cls, window_id: str, rows: Iterable[PaneRow]) -> WindowPanes:
        """The panes of ``window_id`` among ``rows``, each once, in tmux's order."""
        panes = each_pane_once(row for row in rows if row.window_id == window_id)
        return cls(window_id, tuple(sorted(panes, key=lambda row: row.index)))

    @property
    def active_pane(self) -> PaneRow:
        for pane in self.panes:
            if pane.active:
                return pane
        return self.panes[0]

    def pane(self, pane_id: str) -> PaneRow | None:
        return next((pane for pane in self.panes if pane.pane_id == pane_id), None)

    def step(self, anchor: PaneRow, offset: int) -> PaneRow:
        """The pane ``offset`` places after ``anchor`` in tmux's order, wrapping around."""
        order = list(self.panes)
        position = next(i for i, pane in enumerate(order) if pane.pane_id == anchor.pane_id)
        return order[(position + offset) % len(order)]

    def corner(self, which: Corner, socket: object) -> PaneRow:
        """The pane that touches both edges of ``which`` corner (exactly one does)."""
        vertical, horizontal = which.split("-")
        for pane in self.panes:
            if pane.flag(f"pane_at_{vertical}") and pane.flag(f"pane_at_{horizontal}"):
                return pane
        raise NotFound("pane", which, socket=socket, by="corner", within=f"window {self.window_id}")


@dataclass(frozen=True, slots=True)
class Window:
    """Window ``window_id`` of ``server``, as argument ``field`` named it."""

    server: Server
    window_id: str
    field: str = "window_id"

    def not_found(self, note: str = "") -> NotFound:
        return NotFound(
            "window", self.window_id, socket=self.server.socket, field=self.field, note=note
        )

    async def run(self, command: str, *args: str, note: str = "") -> list[str]:
        """``command -t WINDOW args``; tmux's "can't find" is this window's ``NotFound``."""
        try:
            return await self.server.run(command, "-t", self.window_id, *args)
        except CommandFailed as exc:
            if exc.not_found:
                raise self.not_found(note) from None
            raise

    async def list_panes(
        self, *, only: str | None = None, fields: Sequence[str] = PANE_FIELDS
    ) -> WindowPanes:
        """The window's panes (``list-panes -t``). ``only`` is a fixed ``list-panes -f``
        filter of ours (never a caller's value): tmux then formats just the panes the
        caller will look at, which is most of what a listing costs it."""
        scope = ("-t", self.window_id)
        try:
            rows = await self.server.list_panes(
                *scope, *(("-f", only) if only else ()), fields=fields
            )
            if only and not rows:  # nothing passed the filter: a window is never empty
                rows = await self.server.list_panes(*scope, fields=fields)
        except CommandFailed as exc:
            if exc.not_found:
                raise self.not_found() from None
            raise
        panes = WindowPanes.of(self.window_id, rows)
        if not panes.panes:
            raise self.not_found()
        return panes

    async def links(self, extra: Sequence[str] = ()) -> list[LinkRow]:
        """Every place the window is linked at, in tmux's order (at least one), with the
        further fields ``extra``."""
        rows = [
            row
            for row in await self.server.list_windows("-a", extra=extra)
            if row.window_id == self.window_id
        ]
        if not rows:
            raise self.not_found()
        return rows

    async def kill_window(self) -> None:
        """``kill-window`` by id ends the window in every session it is linked into."""
        await self.run("kill-window")

    async def set_synchronize_panes(self, enabled: bool) -> str:
        """Set the window's synchronize-panes and read back what tmux holds (``on``/``off``)."""
        try:
            _, shown = await self.server.run_many(
                ("set-option", "-w", "-t", self.window_id, SYNCHRONIZE, "on" if enabled else "off"),
                ("show-options", "-w", "-v", "-t", self.window_id, SYNCHRONIZE),
            )
        except CommandFailed as exc:
            if exc.not_found:
                raise self.not_found() from None
            raise
        return shown[0] if shown else ("on" if enabled else "off")

    async def synchronized_panes(self) -> list[str]:
        """The panes whose synchronize-panes is on (a pane's own value wins over the
        window's): typing into one of them reaches them all."""
        fields = ("pane_id", "pane_synchronized")
        lines = await self.run("list-panes", "-F", format_of(fields))
        return [
            row["pane_id"] for row in parse_rows(lines, fields) if row["pane_synchronized"] == "1"
        ]
