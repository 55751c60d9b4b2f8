"""Searching pane text with hard bounds, so no pattern or pane count can stall the server.

A regex runs under a time budget shared by the whole call (the ``regex``
module can interrupt a catastrophic backtrack; ``re`` cannot). Matches are
capped per pane, overall and in bytes; every cap that bit is reported.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import anyio
import regex

from ....errors import InvalidArgument
from ..errors import NotFound
from .rows import PaneRow
from .server import Server

MAX_PANES = 200
MAX_MATCHES = 500
MAX_BYTES = 256 * 1024
MAX_LINE_CHARS = 1000
TIME_BUDGET = 2.0
CAPTURE_CONCURRENCY = 8


@dataclass(frozen=True)
class Match:
    pane: PaneRow
    line: int  # tmux line number: 0 is the top of the screen, negative is history
    text: str


@dataclass
class Found:
    matches: list[Match] = field(default_factory=list)
    panes_searched: int = 0
    truncated_by: list[str] = field(default_factory=list)

    def cut(self, reason: str) -> None:
        if reason not in self.truncated_by:
            self.truncated_by.append(reason)


class TimeBudgetSpent(Exception):
    pass


Cut = Literal["per_pane", "matches", "bytes", "time"]
SWIFT_CUTS: dict[Cut, str] = {
    "per_pane": "maxMatchesPerPane",
    "matches": "maxMatches",
    "bytes": "maxBytes",
    "time": "time",
}


@dataclass
class Budget:
    """What a whole search may still keep: bytes of matched text, and matches."""

    max_bytes: int = MAX_BYTES
    max_matches: int | None = MAX_MATCHES
    line_chars: int | None = MAX_LINE_CHARS  # a matched line is kept cut to this many
    size: int = 0
    count: int = 0


def scan(
    lines: Sequence[str], test: Callable[[str], bool], per_pane: int, budget: Budget
) -> tuple[list[tuple[int, str]], Cut | None]:
    """One pane's matching lines (their index in ``lines`` and text), and the cap that
    ended the scan early: ``per_pane`` (the search goes on with the next pane), or
    ``matches``, ``bytes`` or ``time`` (the search ends). The one loop both profiles'
    searches run, so every cap bites the same way in each."""
    hits: list[tuple[int, str]] = []
    try:
        for index, line in enumerate(lines):
            if not test(line):
                continue
            if len(hits) == per_pane:
                return hits, "per_pane"
            if budget.max_matches is not None and budget.count == budget.max_matches:
                return hits, "matches"
            text = line if budget.line_chars is None else line[: budget.line_chars]
            budget.size += len(text.encode("utf-8"))
            if budget.size > budget.max_bytes:
                return hits, "bytes"
            hits.append((index, text))
            budget.count += 1
    except TimeBudgetSpent:
        return hits, "time"
    return hits, None


def matcher(
    pattern: str,
    is_regex: bool,
    field_name: str = "pattern",
    *,
    match_case: bool = True,
    seconds: float = TIME_BUDGET,
) -> Callable[[str], bool]:
    """A line test for ``pattern``: a literal substring, or a regex run under a time budget
    of ``seconds``.

    The budget starts when the test is made. ``match_case=False`` compares
    case-insensitively (Unicode case folding for a literal, IGNORECASE for a regex).
    """
    if not pattern:
        raise InvalidArgument(field_name, pattern, "is empty", "Pass the text to look for.")
    if not is_regex:
        if match_case:
            return lambda line: pattern in line
        folded = pattern.casefold()
        return lambda line: folded in line.casefold()
    try:
        compiled = regex.compile(pattern, 0 if match_case else regex.IGNORECASE)
    except regex.error as exc:
        raise InvalidArgument(
            field_name,
            pattern,
            f"is not a valid regular expression ({exc})",
            "Fix the pattern, or pass regex: false to search for it literally.",
        ) from None
    deadline = time.monotonic() + seconds

    def test(line: str) -> bool:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeBudgetSpent
        try:
            return compiled.search(line, timeout=left) is not None
        except TimeoutError:
            raise TimeBudgetSpent from None

    return test


async def search(
    server: Server,
    panes: Sequence[PaneRow],
    test: Callable[[str], bool],
    scrollback: int,
    per_pane: int,
) -> Found:
    """Matches in the newest ``scrollback`` history lines plus the screen of each pane."""
    found = Found()
    chosen = list(panes)
    if len(chosen) > MAX_PANES:
        chosen = chosen[:MAX_PANES]
        found.cut("panes")
    texts: dict[str, list[str]] = {}
    limiter = anyio.CapacityLimiter(CAPTURE_CONCURRENCY)

    async def grab(pane: PaneRow) -> None:
        async with limiter:
            texts[pane.pane_id] = await server.pane(pane.pane_id).capture_pane(-scrollback)

    async with anyio.create_task_group() as group:
        for pane in chosen:
            group.start_soon(grab, pane)

    budget = Budget()
    for pane in chosen:
        history = min(scrollback, pane.count("history_size"))
        found.panes_searched += 1
        hits, cut = scan(texts[pane.pane_id], test, per_pane, budget)
        found.matches += [Match(pane, offset - history, text) for offset, text in hits]
        if cut is not None:
            found.cut(SWIFT_CUTS[cut])
            if cut != "per_pane":
                return found
    return found


@dataclass(frozen=True)
class PaneText:
    """The newest lines of one pane as a bounded read kept them."""

    pane: PaneRow
    first: int  # the position of ``lines[0]`` in the pane's whole text (0 = its first line)
    lines: list[str]


@dataclass(frozen=True)
class Ceilings:
    """What one bounded read may take: panes, lines, bytes (UTF-8, a newline per line)
    and seconds of capturing."""

    panes: int
    lines: int
    bytes: int
    seconds: float


async def read_bounded(
    server: Server, panes: Sequence[PaneRow], history: bool, ceilings: Ceilings
) -> tuple[list[PaneText], bool]:
    """The text of ``panes`` in order (the screen, and with ``history`` the scrollback),
    and whether a ceiling cut it short.

    Lines are shared out in pane order before anything is captured, so tmux never
    sends more than the line ceiling; each pane keeps its newest lines. Captures run
    side by side until the time ceiling; a pane not read by then, or gone, is left
    out. The byte ceiling then keeps the newest lines that fit and ends the read.
    """
    capped = len(panes) > ceilings.panes
    plan: list[tuple[PaneRow, int, int]] = []  # pane, its whole text's rows, rows to read
    left = ceilings.lines
    for pane in panes[: ceilings.panes]:
        height = pane.count("pane_height")
        total = height + (pane.count("history_size") if history else 0)
        take = min(total, left)
        if take < total:
            capped = True
        if take == 0:
            break
        plan.append((pane, total, take))
        left -= take
    texts: dict[str, list[str]] = {}
    gone: set[str] = set()
    limiter = anyio.CapacityLimiter(CAPTURE_CONCURRENCY)

    async def grab(pane: PaneRow, take: int) -> None:
        height = pane.count("pane_height")
        async with limiter:
            try:
                lines = await server.pane(pane.pane_id).capture_pane(height - take)
            except NotFound:
                gone.add(pane.pane_id)  # gone since it was listed: skipped, not a cut
                return
        texts[pane.pane_id] = lines[-take:] if take else []

    with anyio.move_on_after(ceilings.seconds):
        async with anyio.create_task_group() as group:
            for pane, _, take in plan:
                group.start_soon(grab, pane, take)
    read: list[PaneText] = []
    room = ceilings.bytes
    for pane, total, _ in plan:
        if pane.pane_id not in texts:
            capped = capped or pane.pane_id not in gone  # not read before the time ceiling
            continue
        lines = texts[pane.pane_id]
        kept = newest_fitting(lines, room)
        read.append(PaneText(pane, max(0, total - len(kept)), kept))
        if len(kept) < len(lines):
            return read, True
        room -= sum(_cost(line) for line in lines)
    return read, capped


def _cost(line: str) -> int:
    return len(line.encode("utf-8")) + 1


def newest_fitting(lines: list[str], room: int) -> list[str]:
    """The newest ``lines`` whose bytes, a newline each, fit in ``room``."""
    used, keep = 0, 0
    for line in reversed(lines):
        used += _cost(line)
        if used > room:
            break
        keep += 1
    return lines[len(lines) - keep :]
