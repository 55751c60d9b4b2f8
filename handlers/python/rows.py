"""tmux rows in the libtmux-mcp shapes (their mix of string and integer fields is the contract's)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..tmux.objects.deadpanes import DEAD_FIELDS
from ..tmux.objects.rows import LinkRow, PaneRow, SessionRow
from ..tmux.objects.server import Server
from ..tmux.objects.targets import TARGET_FIELDS
from ..tmux.transport.formats import as_flag, as_int

# `#{pane_id}` in a list-sessions / list-windows row is the active pane of the active window.
ACTIVE_PANE = ("pane_id",)

# How pane_fields shapes each field: as tmux's text, as a number, as a flag.
_TEXT = (
    "pane_index",
    "pane_active",
    "pane_current_command",
    "pane_current_path",
    "pane_pid",
    "pane_title",
    "pane_width",
    "pane_height",
    "pane_tty",
)
_NUMBERS = ("pane_left", "pane_top", "pane_right", "pane_bottom")
_FLAGS = ("pane_at_top", "pane_at_bottom", "pane_at_left", "pane_at_right")

ROW_FIELDS: tuple[str, ...] = (
    "pane_id",
    *_TEXT,
    *_NUMBERS,
    *_FLAGS,
    "window_id",
    "session_id",
    *DEAD_FIELDS,
)
"""What ``pane_fields`` reads, and whether the pane is dead (no field says it:
``deadpanes.dead_notes`` do): all a listing of every pane asks for, since tmux spends
most of a large listing expanding each field of each pane."""

SHAPE_FIELDS: tuple[str, ...] = (
    *TARGET_FIELDS,
    *(name for name in ROW_FIELDS if name not in TARGET_FIELDS),
)
"""What a tool that picks its panes by a window or session asks tmux for: the row and
the targeting."""


# Fields of the -P -F replies. A name may hold a newline, so no name comes last
# (parse_rows rejoins a row split inside any field but the last).
SESSION_REPLY = (
    "session_id",
    "session_name",
    "session_windows",
    "session_attached",
    "session_created",
    "pane_id",
)

WINDOW_REPLY = (
    "window_id",
    "window_name",
    "window_index",
    "session_id",
    "session_name",
    "window_panes",
    "window_layout",
    "window_active",
    "window_width",
    "window_height",
    "pane_id",
)


def pane_fields(server: Server, row: PaneRow) -> dict[str, Any]:
    """A pane in the libtmux-mcp shape (its mix of string and integer fields is the contract's).

    Written as three loops over field names because list_panes shapes every pane of a
    server with it: per pane, the fewest calls."""
    raw = row.raw
    shaped: dict[str, Any] = {"pane_id": raw["pane_id"]}
    for name in _TEXT:
        shaped[name] = raw[name]
    for name in _NUMBERS:
        shaped[name] = as_int(raw[name])
    for name in _FLAGS:
        shaped[name] = as_flag(raw[name])
    shaped["window_id"] = raw["window_id"]
    shaped["session_id"] = raw["session_id"]
    shaped["is_caller"] = server.relation(raw["pane_id"]).as_bool
    return shaped


def session_fields(row: SessionRow, attached: Mapping[str, int]) -> dict[str, Any]:
    return {
        "session_id": row.session_id,
        "session_name": row.name,
        "window_count": row.count("session_windows"),
        "session_attached": str(attached.get(row.session_id, 0)),
        "session_created": row.text("session_created"),
        "active_pane_id": row.text("pane_id"),
    }


def window_fields(link: LinkRow) -> dict[str, Any]:
    return {
        "window_id": link.window_id,
        "window_name": link["window_name"],
        "window_index": link["window_index"],
        "session_id": link.session_id,
        "session_name": link["session_name"],
        "pane_count": link.count("window_panes"),
        "window_layout": link.text("window_layout"),
        "window_active": link["window_active"],
        "window_width": link["window_width"],
        "window_height": link["window_height"],
        "active_pane_id": link.text("pane_id"),
    }
