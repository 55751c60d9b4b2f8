"""A dead pane in words: how its program ended, and the note every report of it carries.

A pane whose program has exited stays on screen when ``remain-on-exit`` is on: tmux
keeps what it printed, and still reports the exited program's name and pid as the
pane's current command and pid. Nothing there reads input any more. Where a family's
rows have a field for it (swift's ``isDead``, rust's snapshot ``dead``), they say so;
every tool that reports panes also adds ``dead_notes`` to its result (``Reply.notes``,
text beside the structured result, which stays the family's), so an agent that reads
the result learns it, with the exit status or the signal.
"""

from __future__ import annotations

import signal
from collections.abc import Iterable

from .rows import PaneRow

DEAD_FIELDS: tuple[str, ...] = ("pane_dead", "pane_dead_status", "pane_dead_signal")
"""What a report asks of each pane to say whether, and how, its program ended."""


def how_it_ended(row: PaneRow) -> str:
    """A dead pane's end in words: its exit status, or the signal that killed it."""
    number = row.number("pane_dead_signal")
    if number is not None:
        try:
            name = f" ({signal.Signals(number).name})"
        except ValueError:
            name = ""
        return f"its program was killed by signal {number}{name}"
    status = row.number("pane_dead_status")
    if status is not None:
        return f"its program exited with status {status}"
    return "its program has exited"


def dead_note(row: PaneRow) -> str | None:
    """What to know about ``row`` if its pane is dead (None while its program runs)."""
    if row.raw.get("pane_dead") != "1":
        return None
    return (
        f"Pane {row.pane_id} is dead: {how_it_ended(row)}, and remain-on-exit keeps the pane "
        "with what it printed. The command and pid reported for it are that exited program's; "
        "nothing there reads input. capture_pane still reads it; respawn_pane restarts it."
    )


def dead_notes(rows: Iterable[PaneRow]) -> tuple[str, ...]:
    """One note per dead pane among ``rows``, in their order."""
    return tuple(note for row in rows if (note := dead_note(row)) is not None)
