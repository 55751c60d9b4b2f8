"""The tmux server the bench's scale rows read: grown to a pane count with sessions and
windows to match, every pane with its history, and the two panes made for the long capture
and the snapshot."""

from __future__ import annotations

from scripts.bench.layout import (
    HISTORY_LINES,
    LONG_LINES,
    LONG_WIDTH,
    SEARCHED,
    full,
    grow_to,
    histories,
    prepare_fixed,
    prepare_tmux,
)
from scripts.lab.tmuxserver import TmuxServer


def test_the_server_grows_to_each_size_and_every_pane_holds_its_history(tmux: TmuxServer) -> None:
    lay = prepare_tmux(tmux)
    assert len(lay.panes) == 4 and lay.wait_pane in lay.panes and lay.cycle == 4
    fixed = prepare_fixed(tmux)
    small = grow_to(tmux, fixed, 10)
    # main (one window of four), long, screen, and g0's first window of four
    assert (small.panes, small.windows, small.sessions) == (10, 4, 4)
    larger = grow_to(tmux, fixed, 27)
    assert (larger.panes, larger.windows, larger.sessions) == (27, 9, 5)  # 21 grown: g0, g1
    have = histories(tmux)
    assert len(have) == 27
    long_size, _ = have[fixed.long_pane]
    assert long_size >= LONG_LINES
    width = tmux.tmux("display-message", "-p", "-t", fixed.long_pane, "#{pane_width}").strip()
    assert width == str(LONG_WIDTH)
    others = {pane: h for pane, h in have.items() if pane != fixed.long_pane}
    assert all(full(h, HISTORY_LINES) for h in others.values()), others
    # the pane made before the limit was raised keeps less; every other holds 2,000 or more
    assert sum(size >= HISTORY_LINES for size, _ in others.values()) >= len(others) - 1
    for pane in others:
        if pane != fixed.screen_pane:
            history = tmux.tmux("capture-pane", "-p", "-S", f"-{HISTORY_LINES}", "-t", pane)
            assert history.count(f"{SEARCHED}\n") == 1, pane
    screen = tmux.tmux("capture-pane", "-p", "-t", fixed.screen_pane)
    assert "row 060" in screen and len(screen.splitlines()) >= 49
