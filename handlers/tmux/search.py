"""Searching pane text with hard bounds, so no pattern or pane count can stall the server.

A regex runs under a time budget shared by the whole call (the ``regex``
module can interrupt a catastrophic backtrack; ``re`` cannot). Matches are
capped per pane, overall and in bytes; every cap that bit is reported.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import anyio
import regex

from ...errors import InvalidArgument
from .capture import capture_lines
from .core import Server
from .formats import PaneRow

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


def matcher(
    pattern: str, is_regex: bool, field_name: str = "pattern", *, match_case: bool = True
) -> Callable[[str], bool]:
    """A line test for ``pattern``: a literal substring, or a regex run under the time budget.

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
    deadline = time.monotonic() + TIME_BUDGET

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
            texts[pane.pane_id] = await capture_lines(server, pane.pane_id, start=-scrollback)

    async with anyio.create_task_group() as group:
        for pane in chosen:
            group.start_soon(grab, pane)

    size = 0
    try:
        for pane in chosen:
            lines = texts[pane.pane_id]
            history = min(scrollback, pane.count("history_size"))
            found.panes_searched += 1
            in_pane = 0
            for offset, line in enumerate(lines):
                if not test(line):
                    continue
                if in_pane == per_pane:
                    found.cut("maxMatchesPerPane")
                    break
                if len(found.matches) == MAX_MATCHES:
                    found.cut("maxMatches")
                    return found
                text = line[:MAX_LINE_CHARS]
                size += len(text.encode("utf-8"))
                if size > MAX_BYTES:
                    found.cut("maxBytes")
                    return found
                found.matches.append(Match(pane, offset - history, text))
                in_pane += 1
    except TimeBudgetSpent:
        found.cut("time")
    return found
