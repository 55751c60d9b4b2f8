"""Pane operations every profile shares: selecting by direction, finding a corner."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from .core import Server
from .errors import CommandFailed, NotFound, TmuxError
from .formats import PANE_FIELDS, PaneRow, pane_rows
from .targets import ACTIVE_ONLY, Window
from .transport.formats import cached_format

Direction = Literal["up", "down", "left", "right", "last", "next", "previous"]
Corner = Literal["top-left", "top-right", "bottom-left", "bottom-right"]

_LAYOUT_FLAGS = {"up": "-U", "down": "-D", "left": "-L", "right": "-R"}


def step(window: Window, anchor: PaneRow, offset: int) -> PaneRow:
    """The pane ``offset`` places after ``anchor`` in tmux's order, wrapping around."""
    order = list(window.panes)
    position = next(i for i, pane in enumerate(order) if pane.pane_id == anchor.pane_id)
    return order[(position + offset) % len(order)]


async def select(
    server: Server, window: Window, anchor: PaneRow, direction: Direction | None
) -> PaneRow:
    """Select ``anchor`` or the pane ``direction`` of it; return the window's active pane after."""
    if direction is None:
        await server.run("select-pane", "-t", anchor.pane_id)
    elif direction in _LAYOUT_FLAGS:
        await server.run("select-pane", "-t", anchor.pane_id, _LAYOUT_FLAGS[direction])
    elif direction == "last":
        try:
            await server.run("select-pane", "-l", "-t", window.window_id)
        except CommandFailed as exc:
            if "no last pane" in exc.stderr:
                raise TmuxError(
                    f"Window {window.window_id} on tmux {server.socket} has no previously active "
                    "pane to return to. Select a pane by id or with up/down/left/right/next/previous."
                ) from None
            raise
    else:
        target = step(window, anchor, 1 if direction == "next" else -1)
        await server.run("select-pane", "-t", target.pane_id)
    rows = await server.list_panes("-t", window.window_id, "-f", ACTIVE_ONLY)
    active = [row for row in rows if row.active and row.window_id == window.window_id]
    if not active:
        raise TmuxError(
            f"Window {window.window_id} on tmux {server.socket} vanished while selecting."
        )
    return active[0]


ONE_TRIP: frozenset[Direction | None] = frozenset({None, "up", "down", "left", "right", "last"})


async def select_from(
    server: Server,
    pane_id: str,
    direction: Direction | None,
    fields: Sequence[str] = PANE_FIELDS,
    field: str = "pane_id",
) -> PaneRow:
    """Select ``pane_id`` (or the pane ``direction`` of it) and read back in one round trip.

    Only for directions tmux resolves itself (``ONE_TRIP``): the selection and
    the read of the window are written together, and tmux runs them in order.
    The row read back holds ``fields`` (``pane_id`` and ``pane_active`` among them).
    """
    select: tuple[str, ...]
    if direction is None:
        select = ("select-pane", "-t", pane_id)
    elif direction == "last":
        select = ("select-pane", "-l", "-t", pane_id)
    else:
        select = ("select-pane", "-t", pane_id, _LAYOUT_FLAGS[direction])
    try:
        _, lines = await server.run_many(
            select, ("list-panes", "-t", pane_id, "-f", ACTIVE_ONLY, "-F", cached_format(fields))
        )
    except CommandFailed as exc:
        if exc.not_found:
            raise NotFound("pane", pane_id, socket=server.socket, field=field) from None
        if "no last pane" in exc.stderr:
            raise TmuxError(
                f"The window of pane {pane_id} on tmux {server.socket} has no previously active "
                "pane to return to. Select a pane by id or with up/down/left/right/next/previous."
            ) from None
        raise
    active = [row for row in pane_rows(lines, fields) if row.active]
    if not active:
        raise TmuxError(f"The window of pane {pane_id} on tmux {server.socket} vanished.")
    return active[0]


CORNER_ONLY: dict[Corner, str] = {
    "top-left": "#{&&:#{pane_at_top},#{pane_at_left}}",
    "top-right": "#{&&:#{pane_at_top},#{pane_at_right}}",
    "bottom-left": "#{&&:#{pane_at_bottom},#{pane_at_left}}",
    "bottom-right": "#{&&:#{pane_at_bottom},#{pane_at_right}}",
}
"""``list-panes -f`` filters: tmux formats only the pane in that corner (see ``resolve_window``)."""


def corner(window: Window, which: Corner) -> PaneRow:
    """The pane that touches both edges of ``which`` corner (exactly one does)."""
    vertical, horizontal = which.split("-")
    for pane in window.panes:
        if pane.flag(f"pane_at_{vertical}") and pane.flag(f"pane_at_{horizontal}"):
            return pane
    raise TmuxError(f"No pane of window {window.window_id} touches the {which} corner.")
