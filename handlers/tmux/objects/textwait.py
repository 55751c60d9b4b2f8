"""Waiting for text in what a pane prints from now on, read from its output stream.

The wait attaches to the pane's session output client first, then lets the
profile look at what was already there (``Entry``), then judges each row the
stream brings: stop patterns before patterns, the earliest row first, the row
still being written included. Text this process just typed into the pane and
submitted (the ledger's recent lines) is taken out of a row before it is judged,
so the echo of a command never passes for its output. Nothing polls: the wait
sleeps until the pane prints, may have gone, or the deadline passes; the only
timer sends a progress notification about once a second.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import anyio

from ....seam import Reporter
from ..errors import NoServer, WatchLost
from ..policy.ledger import Ledger
from ..transport.stream import Lines, PaneStream
from .pane import Pane
from .patterns import MATCH_BUDGET
from .rows import FOLLOWED_FIELDS, PaneRow
from .server import Server

Outcome = Literal["matched", "stopped", "deadline", "pane_closed", "present_at_entry", "pending"]
PROGRESS_EVERY = 1.0
WATCH_RESTARTS = 3


@dataclass(frozen=True)
class Found:
    """How a wait ended: which list matched (``index`` into it) and the row that did."""

    outcome: Outcome
    index: int | None = None
    pattern: str | None = None
    line: str | None = None


class LinePatterns(Protocol):
    """What a wait looks for: ``patterns.Patterns``, or a profile's own reading of them
    (the rust family's regex crate)."""

    @property
    def sources(self) -> tuple[str, ...]: ...

    def __bool__(self) -> bool: ...

    def which(self, line: str, deadline: float) -> int | None:
        """Index of the first pattern that matches ``line``, if any (refused past
        ``deadline``)."""
        ...


def without_echo(row: str, recent: Sequence[str], *, complete: bool) -> str:
    """``row`` without the text this process typed at its end.

    A complete row loses a recent line it ends with; the row still being written
    loses the longest beginning of a recent line it ends with (the echo may be
    arriving a few characters at a time).
    """
    stripped = row.rstrip()
    for line in recent:
        line = line.rstrip()
        if not line:
            continue
        if stripped.endswith(line):
            return stripped[: len(stripped) - len(line)]
        if not complete:
            for size in range(min(len(line), len(stripped)), 0, -1):
                if stripped.endswith(line[:size]):
                    return stripped[: len(stripped) - size]
    return row


def first_matching_row(
    rows: Sequence[str],
    recent: Sequence[str],
    stop: LinePatterns,
    patterns: LinePatterns,
    *,
    complete: bool,
) -> Found | None:
    """The first row a stop pattern (first) or a pattern matches, echo taken out."""
    deadline = anyio.current_time() + MATCH_BUDGET
    for row in rows:
        text = without_echo(row, recent, complete=complete)
        for found, outcome in ((stop, "stopped"), (patterns, "matched")):
            index = found.which(text, deadline) if found else None
            if index is not None:
                return Found(outcome, index, found.sources[index], row)  # type: ignore[arg-type]
    return None


# What the profile checks once the watch is up, before any new output is judged.
Entry = Callable[[PaneRow], Awaitable["Found | None"]]


class TextWait:
    """One wait on one pane's stream (see the module's docstring)."""

    def __init__(
        self,
        server: Server,
        pane: PaneRow,
        patterns: LinePatterns,
        stop: LinePatterns,
        ledger: Ledger,
        limit: float,
        progress: Reporter,
    ) -> None:
        self.server = server
        self.pane = pane
        self.pane_id = pane.pane_id
        self.patterns = patterns
        self.stop = stop
        self.ledger = ledger
        self.limit = limit
        self.progress = progress  # the call's progress notifications
        self.lines = Lines()
        self.stream = PaneStream(self.pane_id, self.lines.feed)
        self.printed = False  # the pane printed text (its echo of our input aside)
        self.at_entry = False  # the entry look ended the wait
        self.started = anyio.current_time()
        self.next_progress = self.started + PROGRESS_EVERY

    @property
    def bytes(self) -> int:
        return self.stream.total

    def text(self) -> str:
        return self.lines.text()

    async def run(self, entry: Entry) -> Found:
        if self.pane["pane_dead"] == "1":
            return Found("pane_closed")
        pane: PaneRow | None = self.pane
        first = True
        try:
            for _ in range(WATCH_RESTARTS + 1):
                if pane is None or pane["pane_dead"] == "1":
                    return Found("pane_closed")
                try:
                    async with self.server.output_watch(pane) as watch:
                        remove = watch.client.add_listener(self.stream.on_line)
                        try:
                            if first:
                                first = False
                                found = await entry(pane)
                                if found is not None:
                                    self.at_entry = True
                                    return found
                            while True:
                                found = self.match_new_rows()
                                if found is not None:
                                    return found
                                if self.stream.maybe_gone:
                                    self.stream.maybe_gone = False
                                    now = await self.server.pane(self.pane_id).display_message(
                                        FOLLOWED_FIELDS
                                    )
                                    if now is None or now["pane_dead"] == "1":
                                        return Found("pane_closed")
                                    if now.session_id != watch.client.session_id:
                                        pane = now
                                        break
                                if not await self.sleep(watch.changed):
                                    return self.match_new_rows() or Found("deadline")
                        finally:
                            remove()
                except WatchLost:
                    pane = await self.server.pane(self.pane_id).display_message(FOLLOWED_FIELDS)
            return Found("pane_closed")
        except NoServer:
            return Found("pane_closed")

    def match_new_rows(self) -> Found | None:
        recent = self.ledger.recent(self.pane_id)
        rows = self.lines.take()
        current = self.lines.current()
        for row in [*rows, current]:
            if without_echo(row, recent, complete=row is not current).strip():
                self.printed = True
        found = first_matching_row(rows, recent, self.stop, self.patterns, complete=True)
        found = found or first_matching_row(
            [current], recent, self.stop, self.patterns, complete=False
        )
        if found is None and not self.patterns and self.printed:
            return Found("matched")
        return found

    async def sleep(self, changed: Callable[[], Awaitable[None]]) -> bool:
        """Until the pane prints or may have gone (True) or the deadline passes (False)."""
        deadline = self.started + self.limit
        while True:
            now = anyio.current_time()
            if now >= deadline:
                return False
            if now >= self.next_progress:
                elapsed = now - self.started
                await self.progress(
                    elapsed,
                    self.limit,
                    f"waiting on pane {self.pane_id}: {elapsed:.0f}s of {self.limit:g}s",
                )
                self.next_progress = now + PROGRESS_EVERY
            with anyio.move_on_after(min(deadline, self.next_progress) - now):
                await changed()
                return True

    def elapsed(self) -> float:
        return anyio.current_time() - self.started


async def screen_rows(pane: Pane, row: PaneRow) -> tuple[list[str], int]:
    """The visible rows of ``pane`` as they read, and which of them holds the cursor
    (``row``: the pane as last read)."""
    return [line.rstrip() for line in await pane.capture_pane()], row.count("cursor_y")
