"""tmux rows in the libtmux-mcp shapes (their mix of string and integer fields is the contract's)."""

from __future__ import annotations

from typing import Any

from ..tmux.objects.rows import PaneRow
from ..tmux.objects.server import Server
from ..tmux.objects.targets import TARGET_FIELDS

SHAPE_FIELDS: tuple[str, ...] = (
    *TARGET_FIELDS,
    "pane_current_command",
    "pane_current_path",
    "pane_pid",
    "pane_title",
    "pane_width",
    "pane_height",
    "pane_tty",
    "pane_left",
    "pane_top",
    "pane_right",
    "pane_bottom",
    "pane_at_top",
    "pane_at_bottom",
    "pane_at_left",
    "pane_at_right",
)
"""What a tool that answers with ``pane_fields`` asks tmux for: the shape and the targeting."""


def pane_fields(server: Server, row: PaneRow) -> dict[str, Any]:
    """A pane in the libtmux-mcp shape (its mix of string and integer fields is the contract's)."""
    return {
        "pane_id": row.pane_id,
        "pane_index": row["pane_index"],
        "pane_active": row["pane_active"],
        "pane_current_command": row["pane_current_command"],
        "pane_current_path": row["pane_current_path"],
        "pane_pid": row["pane_pid"],
        "pane_title": row["pane_title"],
        "pane_width": row["pane_width"],
        "pane_height": row["pane_height"],
        "pane_tty": row["pane_tty"],
        "pane_left": row.number("pane_left"),
        "pane_top": row.number("pane_top"),
        "pane_right": row.number("pane_right"),
        "pane_bottom": row.number("pane_bottom"),
        "pane_at_top": row.flag("pane_at_top"),
        "pane_at_bottom": row.flag("pane_at_bottom"),
        "pane_at_left": row.flag("pane_at_left"),
        "pane_at_right": row.flag("pane_at_right"),
        "window_id": row.window_id,
        "session_id": row.session_id,
        "is_caller": server.relation(row.pane_id).as_bool,
    }
