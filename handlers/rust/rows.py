"""tmux rows in the rust family's shapes: snake_case, raw ids, and the caller relation.

Every rust tool that answers with a pane, a window or a session builds it here,
so the three shapes are written once. Each returns the plain dict the tool's
generated output model validates (each tool's model has its own row class).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..tmux.objects.deadpanes import DEAD_FIELDS
from ..tmux.objects.rows import SERVER_FIELDS, LinkRow, PaneRow, SessionRow
from ..tmux.objects.server import Server

# What a pane row reads (pane_view, branch_pane), the pane_at_* flags the corners need,
# and whether the pane is dead (a note says it: ``deadpanes.dead_notes``).
PANE_FIELDS: tuple[str, ...] = (
    "pane_id",
    "pane_index",
    "pane_active",
    "pane_current_command",
    "pane_current_path",
    "window_id",
    "pane_at_top",
    "pane_at_bottom",
    "pane_at_left",
    "pane_at_right",
    *DEAD_FIELDS,
    *SERVER_FIELDS,
)

# The list_windows fields beyond the shared link listing (``Server.list_windows(extra=…)``).
WINDOW_EXTRA: tuple[str, ...] = ("window_linked",)


def pane_view(server: Server, row: PaneRow) -> dict[str, Any]:
    """``PaneView``: ``caller`` is ``self`` only when the socket and the pane are both the
    caller's, as ``Server.relation`` proves them."""
    return {
        "id": row.pane_id,
        "window_id": row.window_id,
        "active": row.active,
        "caller": server.relation(row.pane_id, row.raw.get("pid")).value,
        "command": row.text("pane_current_command"),
        "path": row.text("pane_current_path"),
    }


def window_view(row: LinkRow) -> dict[str, Any]:
    """``WindowView``: one row per session link of a window (``row`` from ``list_windows``
    asked with ``WINDOW_EXTRA``)."""
    return {
        "id": row.window_id,
        "session_id": row.session_id,
        "index": row.index,
        "name": row["window_name"],
        "panes": row.count("window_panes"),
        "active": row.flag("window_active") is True,
        "linked": row.flag("window_linked") is True,
    }


def session_view(row: SessionRow, attached: Mapping[str, int]) -> dict[str, Any]:
    """``SessionView``: ``attached`` counts clients other than this process's own (as
    ``Server.sessions_and_clients`` gives them), so the control client never counts."""
    return {
        "id": row.session_id,
        "name": row.name,
        "windows": row.count("session_windows"),
        "attached": attached.get(row.session_id, 0) > 0,
    }


def branch_pane(row: PaneRow) -> dict[str, Any]:
    """``BranchPane`` (get_server_info's tree): a pane in brief."""
    return {"id": row.pane_id, "active": row.active, "command": row.text("pane_current_command")}


def branch_window(row: LinkRow, panes: list[dict[str, Any]]) -> dict[str, Any]:
    """``BranchWindow``: a window at one session link, with its ``branch_pane`` rows."""
    view = window_view(row)
    del view["session_id"]
    return {**view, "panes": panes}


def branch(
    row: SessionRow, attached: Mapping[str, int], windows: list[dict[str, Any]]
) -> dict[str, Any]:
    """``Branch``: a session (as ``session_view``) with its ``branch_window`` rows."""
    return {**session_view(row, attached), "windows": windows}
