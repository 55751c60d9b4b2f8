"""Patterns a wait looks for: literal unless regex, caseless unless match_case, each
bounded in matching time so a runaway expression refuses instead of hanging the wait."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import anyio
import regex

from ....errors import InvalidArgument

MATCHED_LINES = 20
LINE_CHARS = 1000  # a reported matched line is cut to this many characters
MATCH_BUDGET = 1.0  # seconds the patterns may spend on one read's lines


@dataclass(frozen=True)
class Patterns:
    """The patterns of one argument, compiled: literal unless regex, caseless unless match_case."""

    field: str
    sources: tuple[str, ...]
    compiled: tuple[regex.Pattern[str], ...]

    @classmethod
    def build(
        cls, field: str, given: Sequence[str] | None, is_regex: bool, match_case: bool
    ) -> Patterns:
        flags = 0 if match_case else regex.IGNORECASE
        compiled = []
        for index, pattern in enumerate(given or ()):
            name = f"{field}[{index}]"
            if not pattern:
                raise InvalidArgument(
                    name,
                    pattern,
                    "is empty (it would match every line)",
                    f"Remove it from {field}.",
                )
            try:
                compiled.append(
                    regex.compile(pattern if is_regex else regex.escape(pattern), flags)
                )
            except regex.error as exc:
                raise InvalidArgument(
                    name,
                    pattern,
                    f"is not a valid regular expression ({exc})",
                    "Fix the pattern, or pass regex: false to match it literally.",
                ) from None
        return cls(field, tuple(given or ()), tuple(compiled))

    def __bool__(self) -> bool:
        return bool(self.compiled)

    def which(self, line: str, deadline: float) -> int | None:
        """Index of the first pattern that matches ``line``, if any."""
        for index, pattern in enumerate(self.compiled):
            left = deadline - anyio.current_time()
            try:
                if left <= 0:
                    raise TimeoutError
                if pattern.search(line, timeout=left) is not None:
                    return index
            except TimeoutError:
                raise InvalidArgument(
                    f"{self.field}[{index}]",
                    self.sources[index],
                    f"took over {MATCH_BUDGET:g}s to match the pane's new lines",
                    "Simplify the regular expression (nested repeats backtrack badly).",
                ) from None
        return None

    def matching(self, index: int, lines: Sequence[str], deadline: float) -> list[str]:
        """The lines pattern ``index`` matches (the first of them is known to), bounded."""
        pattern = self.compiled[index]
        found = [lines[0][:LINE_CHARS]]
        for line in lines[1:]:
            if len(found) == MATCHED_LINES:
                break
            try:
                if pattern.search(line, timeout=max(deadline - anyio.current_time(), 0.001)):
                    found.append(line[:LINE_CHARS])
            except TimeoutError:
                break  # the verdict stands; only the list of lines is cut short
        return found
