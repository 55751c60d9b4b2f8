"""tmux rows in the swift family's shapes: camelCase, a ref beside every id."""

from __future__ import annotations

from typing import Any

from ..tmux.objects.deadpanes import DEAD_FIELDS
from ..tmux.objects.refs import Refs
from ..tmux.objects.rows import SERVER_FIELDS, LinkRow, PaneRow, SessionRow

PANE_ROW_FIELDS: tuple[str, ...] = (
    "pane_id",
    "pane_index",
    "pane_width",
    "pane_height",
    "pane_active",
    "pane_current_command",
    "pane_in_mode",
    "pane_synchronized",
    "pane_current_path",
    "pane_at_top",
    "pane_at_bottom",
    "pane_at_left",
    "pane_at_right",
    "window_id",
    *DEAD_FIELDS,
    *SERVER_FIELDS,
)
"""What ``pane`` reads (its ref names the server run) and what ``dead_notes`` read: all
list_panes asks of each pane, since tmux spends most of a large listing expanding each
field of each pane."""


def pane(refs: Refs, row: PaneRow) -> dict[str, Any]:
    return {
        "ref": refs.make("pane", row.pane_id, row.server_tag),
        "id": row.pane_id,
        "index": row.index,
        "width": row.count("pane_width"),
        "height": row.count("pane_height"),
        "isActive": row.active,
        "currentCommand": row["pane_current_command"],
        "isDead": row.flag("pane_dead") is True,
        "modeCount": row.count("pane_in_mode"),
        "isSynchronized": row.flag("pane_synchronized") is True,
        "currentPath": row.text("pane_current_path") or "",
        "isAtTop": row.flag("pane_at_top") is True,
        "isAtBottom": row.flag("pane_at_bottom") is True,
        "isAtLeft": row.flag("pane_at_left") is True,
        "isAtRight": row.flag("pane_at_right") is True,
        "windowID": row.window_id,
    }


def session(refs: Refs, row: SessionRow, attached: dict[str, int]) -> dict[str, Any]:
    return {
        "ref": refs.make("session", row.session_id, row.server_tag),
        "id": row.session_id,
        "name": row.name,
        "windowCount": row.count("session_windows"),
        "isAttached": attached.get(row.session_id, 0) > 0,
        "createdAt": row.count("session_created"),
    }


def window(refs: Refs, row: LinkRow) -> dict[str, Any]:
    return {
        "ref": refs.make("window", row.window_id, row.server_tag),
        "id": row.window_id,
        "name": row["window_name"],
        "paneCount": row.count("window_panes"),
        "width": row.count("window_width"),
        "height": row.count("window_height"),
    }


def link_ref(refs: Refs, row: LinkRow) -> str:
    return refs.make("link", f"{row.target}|{row.window_id}", row.server_tag)


def placement(refs: Refs, row: LinkRow) -> dict[str, Any]:
    return {
        "ref": link_ref(refs, row),
        "sessionID": row.session_id,
        "windowID": row.window_id,
        "index": row.index,
        "isActive": row.flag("window_active") is True,
        "target": row.target,
    }


def occurrence(refs: Refs, row: LinkRow) -> dict[str, Any]:
    shape = window(refs, row)
    return {
        "windowRef": shape.pop("ref"),
        "linkRef": link_ref(refs, row),
        **shape,
        "sessionID": row.session_id,
        "index": row.index,
        "isActive": row.flag("window_active") is True,
        "target": row.target,
    }


def capture(pane_id: str, lines: list[str], dropped: int) -> dict[str, Any]:
    return {"paneId": pane_id, "lines": lines, "droppedLines": dropped}
