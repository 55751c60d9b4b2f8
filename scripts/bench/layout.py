"""The private tmux server the timings read: the small window of the per-call rows, then the
same server grown for the scale rows.

Per call: one session, one window of four panes, a few hundred lines of scrollback each.
At scale, the server is grown (sessions of five windows of four panes, as the sizes table
grows its own) to each pane count in turn, every pane counted, those of the per-call rows
too. Every pane has 2,000 lines of history or a few more, except one kept for the long
capture (a session of its own: 50,000 lines of history in a pane 20 columns wide) and one
whose screen is full of text (a 200x50 session of its own, for snapshot_pane). The server's
first pane was made before the history limit was raised: it keeps 1,800 to 2,000 lines.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from scripts.bench.sizes import grow
from scripts.lab.tmuxserver import TmuxServer

CORNERS = ("top-left", "top-right", "bottom-left", "bottom-right")
SCALE_SIZES = (10, 50, 200)
HISTORY_LINES = 2000  # of history in every pane the search reads
LONG_LINES = 50_000  # of history in the pane the long capture reads
# tmux drops the oldest tenth of a pane's history when it reaches the limit, so the limits
# are set above what is printed: a pane never holds less than it was given.
HISTORY_LIMIT = 2500
LONG_LIMIT = 60_000
# 20 columns: rust's capture_pane refuses more than 1,000,000 cells (rows x width) in one
# read, so 50,000 rows fit only in a pane this narrow; every server reads the same pane.
LONG_WIDTH = 20
LONG_SESSION = "long"
SCREEN_SESSION = "screen"
FILL_MARK = "hist"  # the history lines are "hist 1" .. "hist 2100"
SEARCHED = f"{FILL_MARK} 1234"  # the searched text: one line of every filled pane's history
SETTLE_TIMEOUT = 60.0


@dataclass(frozen=True)
class Layout:
    """The per-call rows' window of four panes (the wait pane is one of them)."""

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


def prepare_tmux(tmux: TmuxServer) -> Layout:
    """One session, one window of four panes, a few hundred lines of scrollback each."""
    tmux.tmux("set-option", "-g", "history-limit", str(HISTORY_LIMIT))
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


@dataclass(frozen=True)
class Scale:
    """The server at one size: how many panes, windows and sessions it holds in all, and
    the two panes the capture and the snapshot read."""

    panes: int
    windows: int
    sessions: int
    long_pane: str  # LONG_LINES lines of history
    screen_pane: str  # a full 200x50 screen of text

    @property
    def label(self) -> str:
        return f"{self.panes} panes ({self.windows} windows, {self.sessions} sessions)"


@dataclass(frozen=True)
class Fixed:
    """The panes made once, before the first size: the long history and the full screen."""

    long_pane: str
    screen_pane: str


def prepare_fixed(tmux: TmuxServer) -> Fixed:
    """The long-history pane and the full-screen pane, each in a session of its own."""
    tmux.tmux("set-option", "-g", "history-limit", str(LONG_LIMIT))
    try:
        long_pane = new_session(tmux, LONG_SESSION, LONG_WIDTH, 24)
    finally:
        tmux.tmux("set-option", "-g", "history-limit", str(HISTORY_LIMIT))
    screen = new_session(tmux, SCREEN_SESSION, 200, 50)
    tmux.wait_for_prompt(long_pane)
    tmux.wait_for_prompt(screen)
    # 100 lines more than the history must hold; seq's numbers fit 20 columns.
    tmux.tmux("send-keys", "-t", long_pane, f"seq 1 {LONG_LINES + 100}", "Enter")
    rows = "for i in $(seq 1 60); do printf 'row %03d %0180d\\n' $i 0; done"
    tmux.tmux("send-keys", "-t", screen, f"{fill_command()}; {rows}", "Enter")
    settle(tmux, {long_pane: LONG_LINES, screen: HISTORY_LINES})
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while "row 060" not in tmux.tmux("capture-pane", "-p", "-t", screen):
        if time.monotonic() > deadline:
            raise RuntimeError(f"pane {screen} never showed its screen of text")
        time.sleep(0.05)
    return Fixed(long_pane, screen)


def new_session(tmux: TmuxServer, name: str, width: int, height: int) -> str:
    return tmux.tmux(
        "new-session", "-d", "-s", name, "-x", str(width), "-y", str(height),
        "-P", "-F", "#{pane_id}",
    ).strip()  # fmt: skip


def fill_command() -> str:
    return f"seq -f '{FILL_MARK} %g' 1 {HISTORY_LINES + 100}"


def histories(tmux: TmuxServer) -> dict[str, tuple[int, int]]:
    """Every pane of the server: its history size and its history limit."""
    rows = tmux.lines("list-panes", "-a", "-F", "#{pane_id} #{history_size} #{history_limit}")
    return {pane: (int(size), int(limit)) for pane, size, limit in (r.split() for r in rows)}


def full(history: tuple[int, int] | None, lines: int) -> bool:
    """Whether a pane's (size, limit) holds ``lines`` lines, or as many as its limit keeps."""
    if history is None:
        return False
    size, limit = history
    return size >= min(lines, limit * 9 // 10)


def settle(tmux: TmuxServer, wanted: dict[str, int]) -> None:
    """Until each pane in ``wanted`` holds that many lines of history, or, where its limit
    is lower, the nine tenths of its limit that tmux keeps at the least once it is full."""
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while True:
        have = histories(tmux)
        short = {p: have.get(p, (0, 0))[0] for p, n in wanted.items() if not full(have.get(p), n)}
        if not short:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"panes short of history after {SETTLE_TIMEOUT:g} s: {short}")
        time.sleep(0.1)


def grow_to(tmux: TmuxServer, fixed: Fixed, panes: int) -> Scale:
    """Grow the server to ``panes`` panes in all and give every new pane its history; the
    server as it then is."""
    grow(tmux, panes)
    have = histories(tmux)
    hungry = [p for p, h in have.items() if not full(h, HISTORY_LINES) and p != fixed.long_pane]
    for pane in hungry:
        tmux.tmux("send-keys", "-t", pane, fill_command(), "Enter")
    settle(tmux, dict.fromkeys(hungry, HISTORY_LINES))
    rows = tmux.lines("list-panes", "-a", "-F", "#{session_name} #{window_id}")
    return Scale(
        panes=len(rows),
        windows=len({row.split()[1] for row in rows}),
        sessions=len({row.split()[0] for row in rows}),
        long_pane=fixed.long_pane,
        screen_pane=fixed.screen_pane,
    )
