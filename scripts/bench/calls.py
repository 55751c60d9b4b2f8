"""What each row calls, in each profile's own tool names and arguments.

python's spelling is libtmux-mcp's, so the peer makes python's calls. rust and swift make
their own equivalent of each: the same tmux objects read, in their names and arguments
(``pane``, ``paneId``...), so a row is the same work in every profile.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from scripts.bench.layout import (
    CORNERS,
    HISTORY_LINES,
    LONG_LINES,
    SEARCHED,
    Layout,
    Scale,
)

BATCH_SIZE = 16

Args = dict[str, Any]
Builder = Callable[[int], Args]


@dataclass(frozen=True)
class Call:
    """What one cell times: a method (``tools/call`` unless ping or tools/list), the tool,
    and its arguments by ``seq``."""

    profile: str
    tool: str
    build: Builder
    method: str = "tools/call"

    @property
    def label(self) -> str:
        if self.method != "tools/call":
            return self.method
        return f"{self.tool} {compact(self.build(0))}"


def compact(arguments: Args) -> str:
    """Arguments in a line: a batch as its count, the rest as they are."""
    if "operations" in arguments:
        tools = sorted({op["tool"] for op in arguments["operations"]})
        return f"({len(arguments['operations'])} of {', '.join(tools)})"
    return "(" + ", ".join(f"{k}={v!r}" for k, v in arguments.items()) + ")"


PING = "ping"
TOOLS_LIST = "tools_list"

# The per-call rows, in the order they run and are printed.
CALL_ROWS = (
    PING,
    TOOLS_LIST,
    "list_sessions",
    "list_panes",
    "get_pane_info",
    "capture_pane",
    "select_pane",
    "find_pane_by_position",
    "batch_16",
    "wait",
)
# The scale rows, at every size.
SCALE_ROWS = ("list_panes", "list_windows", "search_panes", "capture_long", "snapshot_pane")
# What grows with the pane count: these rows print a cost per pane.
PER_PANE_ROWS = ("list_panes", "list_windows", "search_panes")
START_ROWS = ("cold_start", "import_mcp")
# print → notifications/resources/updated, python profile: scripts/bench/live.py.
LIVE = "live"
ALL_ROWS = (*CALL_ROWS, LIVE, *START_ROWS)

ROW_TITLES = {
    PING: "ping (no-op floor)",
    TOOLS_LIST: "tools/list",
    "list_sessions": "list_sessions",
    "list_panes": "list_panes",
    "get_pane_info": "get_pane_info",
    "capture_pane": "capture_pane",
    "select_pane": "select_pane by id",
    "find_pane_by_position": "find_pane_by_position",
    "batch_16": "batch of 16 reads",
    "wait": "wait reaction (print→result)",
    LIVE: "live: print→resources/updated",  # scripts/bench/live.py
    "cold_start": "cold start to tools/list",
    "import_mcp": "ref: python -c 'import mcp.server.lowlevel' (to imported)",
}
SCALE_TITLES = {
    "list_panes": "list_panes, every pane",
    "list_windows": "list_windows, every window",
    "search_panes": f"search_panes, every pane, {HISTORY_LINES:,} lines of history",
    "capture_long": f"capture_pane, {LONG_LINES:,} lines",
    "snapshot_pane": "snapshot_pane, a full 200x50 screen",
}

Spelled = dict[str, tuple[str, Builder]]


def _batch(ops: Callable[[int, int], Args], on_error: str) -> Builder:
    def build(seq: int) -> Args:
        return {"operations": [ops(seq, n) for n in range(BATCH_SIZE)], on_error: "stop"}

    return build


def python_calls(lay: Layout) -> Spelled:
    """The libtmux-mcp surface (the peer, and ours under ``--profile python``)."""

    def op(seq: int, n: int) -> Args:
        pane, kind = lay.pane(seq + n), n % 4
        if kind == 0:
            return {"tool": "list_panes", "arguments": {"window_id": lay.window}}
        if kind == 2:
            return {"tool": "capture_pane", "arguments": {"pane_id": pane, "max_lines": 50}}
        return {"tool": "get_pane_info", "arguments": {"pane_id": pane}}

    return {
        "list_sessions": ("list_sessions", lambda seq: {}),
        "list_panes": ("list_panes", lambda seq: {"window_id": lay.window}),
        "get_pane_info": ("get_pane_info", lambda seq: {"pane_id": lay.pane(seq)}),
        "capture_pane": (
            "capture_pane",
            lambda seq: {"pane_id": lay.pane(seq), "start": -100, "max_lines": 200},
        ),
        "select_pane": ("select_pane", lambda seq: {"pane_id": lay.pane(seq)}),
        "find_pane_by_position": (
            "find_pane_by_position",
            lambda seq: {"corner": CORNERS[seq % 4], "window_id": lay.window},
        ),
        "batch_16": ("call_read_tools_batch", _batch(op, "on_error")),
    }


def rust_calls(lay: Layout) -> Spelled:
    """The same reads in the rust family's arguments. Its list_panes has no scope: it lists
    every pane of the server, which here is the one window's four."""

    def op(seq: int, n: int) -> Args:
        pane, kind = lay.pane(seq + n), n % 4
        if kind == 0:
            return {"tool": "list_panes", "arguments": {}}
        if kind == 2:
            return {"tool": "capture_pane", "arguments": {"pane": pane}}
        return {"tool": "get_pane_info", "arguments": {"pane": pane}}

    return {
        "list_sessions": ("list_sessions", lambda seq: {}),
        "list_panes": ("list_panes", lambda seq: {}),
        "get_pane_info": ("get_pane_info", lambda seq: {"pane": lay.pane(seq)}),
        "capture_pane": ("capture_pane", lambda seq: {"pane": lay.pane(seq), "start": -100}),
        "select_pane": ("select_pane", lambda seq: {"pane": lay.pane(seq)}),
        "find_pane_by_position": (
            "find_pane_by_position",
            lambda seq: {"window": lay.window, "corner": CORNERS[seq % 4]},
        ),
        "batch_16": ("call_read_tools_batch", _batch(op, "on_error")),
    }


def swift_calls(lay: Layout) -> Spelled:
    """The same reads in the swift family's camelCase arguments."""

    def op(seq: int, n: int) -> Args:
        pane, kind = lay.pane(seq + n), n % 4
        if kind == 0:
            return {"tool": "list_panes", "arguments": {"window": lay.window}}
        if kind == 2:
            return {"tool": "capture_pane", "arguments": {"paneId": pane, "maxLines": 50}}
        return {"tool": "get_pane_info", "arguments": {"paneId": pane}}

    return {
        "list_sessions": ("list_sessions", lambda seq: {}),
        "list_panes": ("list_panes", lambda seq: {"window": lay.window}),
        "get_pane_info": ("get_pane_info", lambda seq: {"paneId": lay.pane(seq)}),
        "capture_pane": (
            "capture_pane",
            lambda seq: {"paneId": lay.pane(seq), "start": -100, "maxLines": 200},
        ),
        "select_pane": ("select_pane", lambda seq: {"paneId": lay.pane(seq)}),
        "find_pane_by_position": (
            "find_pane_by_position",
            lambda seq: {"corner": CORNERS[seq % 4], "windowId": lay.window},
        ),
        "batch_16": ("call_read_tools_batch", _batch(op, "onError")),
    }


PER_CALL: dict[str, Callable[[Layout], Spelled]] = {
    "python": python_calls,
    "rust": rust_calls,
    "swift": swift_calls,
}


def scale_calls(profile: str, scale: Scale) -> Spelled:
    """The scale rows in ``profile``'s spelling. The search reads every pane's last
    HISTORY_LINES lines of history and its screen; the long capture the LONG_LINES lines
    of the long pane's history (swift keeps its newest 2,000: its maxLines' bound)."""
    long, screen = scale.long_pane, scale.screen_pane
    if profile == "python":
        return {
            "list_panes": ("list_panes", lambda seq: {}),
            "list_windows": ("list_windows", lambda seq: {}),
            "search_panes": (
                "search_panes",
                lambda seq: {"pattern": SEARCHED, "content_start": -HISTORY_LINES},
            ),
            "capture_long": (
                "capture_pane",
                lambda seq: {
                    "pane_id": long,
                    "start": -LONG_LINES,
                    "end": -1,
                    "max_lines": LONG_LINES,
                },
            ),
            "snapshot_pane": ("snapshot_pane", lambda seq: {"pane_id": screen}),
        }
    if profile == "rust":
        return {
            "list_panes": ("list_panes", lambda seq: {}),
            "list_windows": ("list_windows", lambda seq: {}),
            "search_panes": ("search_panes", lambda seq: {"pattern": SEARCHED, "history": True}),
            "capture_long": (
                "capture_pane",
                lambda seq: {"pane": long, "start": -LONG_LINES, "end": -1},
            ),
            "snapshot_pane": ("snapshot_pane", lambda seq: {"pane": screen}),
        }
    return {
        "list_panes": ("list_panes", lambda seq: {}),
        "list_windows": ("list_windows", lambda seq: {}),
        "search_panes": (
            "search_panes",
            lambda seq: {"pattern": SEARCHED, "scrollbackLines": HISTORY_LINES},
        ),
        "capture_long": (
            "capture_pane",
            lambda seq: {"paneId": long, "start": -LONG_LINES, "end": -1, "maxLines": 2000},
        ),
        "snapshot_pane": ("snapshot_pane", lambda seq: {"paneId": screen}),
    }


def wait_arguments(profile: str, pane: str, marker: str, seconds: int) -> tuple[str, Args]:
    """wait_for_text for ``marker`` in ``pane``, in each profile's arguments."""
    if profile == "rust":
        return "wait_for_text", {"pane": pane, "patterns": [marker], "seconds": seconds}
    if profile == "swift":
        return "wait_for_text", {
            "paneId": pane,
            "patterns": [marker],
            "timeoutMs": seconds * 1000,
        }
    return "wait_for_text", {"patterns": [marker], "pane_id": pane, "timeout": seconds}


def per_call(row: str, profile: str, lay: Layout) -> Call | None:
    """The call a per-call row makes on ``profile``'s surface (None: none there)."""
    if row == PING:
        return Call(profile, "", lambda seq: {}, "ping")
    if row == TOOLS_LIST:
        return Call(profile, "", lambda seq: {}, "tools/list")
    spelled = PER_CALL[profile](lay).get(row)
    return None if spelled is None else Call(profile, *spelled)


def at_scale(row: str, profile: str, scale: Scale) -> Call | None:
    spelled = scale_calls(profile, scale).get(row)
    return None if spelled is None else Call(profile, *spelled)
