"""What each row calls, on each tool surface, against the private tmux server's layout."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from scripts.bench.servers import Column, Conn, conn_for
from scripts.lab.tmuxserver import TmuxServer

BATCH_SIZE = 16

Args = dict[str, Any]
Builder = Callable[[int], Args]


@dataclass(frozen=True)
class Call:
    """The call one cell times: which process (profile) and tool, and its arguments."""

    profile: str
    tool: str
    build: Builder

    @property
    def label(self) -> str:
        return f"{self.profile}:{self.tool}"


@dataclass(frozen=True)
class Layout:
    """What the private tmux server holds: one window of four panes."""

    window: str
    panes: tuple[str, ...]
    wait_pane: str
    wait_tty: str

    def pane(self, seq: int) -> str:
        return self.panes[seq % len(self.panes)]

    @property
    def cycle(self) -> int:
        """Every call's arguments depend on ``seq`` modulo this, so seqs 0..cycle-1 cover them."""
        return math.lcm(len(self.panes), len(CORNERS))


CORNERS = ("top-left", "top-right", "bottom-left", "bottom-right")


def python_calls(lay: Layout) -> dict[str, tuple[str, Builder]]:
    """The libtmux-mcp surface (the peer, and ours under ``--profile python``)."""

    def batch(seq: int) -> Args:
        ops: list[Args] = []
        for n in range(BATCH_SIZE):
            pane = lay.pane(seq + n)
            kind = n % 4
            if kind == 0:
                ops.append({"tool": "list_panes", "arguments": {"window_id": lay.window}})
            elif kind == 2:
                ops.append(
                    {"tool": "capture_pane", "arguments": {"pane_id": pane, "max_lines": 50}}
                )
            else:
                ops.append({"tool": "get_pane_info", "arguments": {"pane_id": pane}})
        return {"operations": ops, "on_error": "stop"}

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
        "batch_16": ("call_read_tools_batch", batch),
    }


def swift_calls(lay: Layout) -> dict[str, tuple[str, Builder]]:
    """The same reads in the swift family's camelCase arguments."""

    def batch(seq: int) -> Args:
        ops: list[Args] = []
        for n in range(BATCH_SIZE):
            pane = lay.pane(seq + n)
            kind = n % 4
            if kind == 0:
                ops.append({"tool": "list_panes", "arguments": {"window": lay.window}})
            elif kind == 2:
                ops.append({"tool": "capture_pane", "arguments": {"paneId": pane, "maxLines": 50}})
            else:
                ops.append({"tool": "get_pane_info", "arguments": {"paneId": pane}})
        return {"operations": ops, "onError": "stop"}

    return {
        "list_sessions": ("list_sessions", lambda seq: {}),
        "list_panes": ("list_panes", lambda seq: {"window": lay.window}),
        "get_pane_info": ("get_pane_info", lambda seq: {"paneId": lay.pane(seq)}),
        "capture_pane": (
            "capture_pane",
            lambda seq: {"paneId": lay.pane(seq), "start": -100, "maxLines": 200},
        ),
        "find_pane_by_position": (
            "find_pane_by_position",
            lambda seq: {"corner": CORNERS[seq % 4], "windowId": lay.window},
        ),
        "batch_16": ("call_read_tools_batch", batch),
    }


FAST_ROWS = (
    "list_sessions",
    "list_panes",
    "get_pane_info",
    "capture_pane",
    "select_pane",
    "find_pane_by_position",
    "batch_16",
)
ROW_TITLES = {
    "ping": "ping (no-op floor)",
    "list_sessions": "list_sessions",
    "list_panes": "list_panes",
    "get_pane_info": "get_pane_info",
    "capture_pane": "capture_pane",
    "select_pane": "select_pane by id",
    "find_pane_by_position": "find_pane_by_position",
    "batch_16": "batch of 16 reads",
    "wait": "wait reaction (print→result)",
    "live": "live: print→resources/updated",  # scripts/bench/live.py
    "cold_start": "cold start to tools/list",
    "import_mcp": "ref: python -c 'import mcp.server.lowlevel' (to exit)",
}
ALL_ROWS = ("ping", *FAST_ROWS, "wait", "live", "cold_start", "import_mcp")


def choose(row: str, column: Column, conns: Sequence[Conn], lay: Layout) -> tuple[Call | None, str]:
    """The python-surface call when served, else the swift one, else why it is n/a."""
    if not column.measures(row):
        return None, "not measured on this row"
    if column.is_peer:
        options = [("peer", python_calls(lay))]
    else:
        options = [("python", python_calls(lay)), ("swift", swift_calls(lay))]
    missing = []
    for profile, calls in options:
        conn = conn_for(conns, column, profile)
        if row not in calls:
            missing.append(f"{profile}: no equivalent")
            continue
        tool, build = calls[row]
        if conn is None:
            missing.append(f"{profile}: server unavailable")
        elif tool not in conn.tools:
            missing.append(f"{profile}: no {tool}")
        else:
            return Call(profile, tool, build), ""
    return None, "; ".join(missing)


def wait_call(column: Column, conns: Sequence[Conn]) -> tuple[Call | None, str]:
    """wait_for_text on the python surface, else swift capture_since with waitMs."""
    if not column.measures("wait"):
        return None, "not measured on this row"
    if column.is_peer:
        options = [("peer", "wait_for_text")]
    else:
        options = [("python", "wait_for_text"), ("swift", "capture_since")]
    missing = []
    for profile, tool in options:
        conn = conn_for(conns, column, profile)
        if conn is None:
            missing.append(f"{profile}: server unavailable")
        elif tool not in conn.tools:
            missing.append(f"{profile}: no {tool}")
        else:
            return Call(profile, tool, lambda seq: {}), ""
    return None, "; ".join(missing)


def prepare_tmux(tmux: TmuxServer) -> Layout:
    """One session, one window of four panes, a few hundred lines of scrollback each."""
    corners = tmux.grid()
    panes = tuple(corners[c] for c in CORNERS)
    window = tmux.tmux("display-message", "-p", "-t", "main:0", "#{window_id}").strip()
    for pane in panes:
        tmux.tmux("send-keys", "-t", pane, "seq -f 'scrollback line %g' 1 400", "Enter")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        tails = [tmux.tmux("capture-pane", "-p", "-t", p) for p in panes]
        if all("scrollback line 400" in tail for tail in tails):
            break
        time.sleep(0.1)
    wait_pane = corners["bottom-right"]
    tty = tmux.tmux("display-message", "-p", "-t", wait_pane, "#{pane_tty}").strip()
    return Layout(window, panes, wait_pane, tty)
