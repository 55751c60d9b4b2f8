"""wait_for_text in the rust family's shapes: it judges only what the pane prints
from the call on, read from its output stream (``tmux.objects.textwait``), for
``seconds`` (30 when omitted, at most 600). Its patterns are read and matched by
Rust's regex crate (``regex_crate``).
"""

from __future__ import annotations

from typing import Any

from ...errors import InvalidArgument
from ...generated.rust.models.wait_for_text import WaitForTextInput, WaitForTextOutput
from ...seam import Call
from ..tmux.objects import FOLLOWED_FIELDS, Tmux
from ..tmux.objects.targets import check_pane_id
from ..tmux.objects.textwait import Found, TextWait, first_matching_row, screen_rows
from ..tmux.policy.ledger import Ledger
from .arguments import seconds_of
from .regex_crate import CratePatterns

PATTERN_BYTES = 4096


class PaneWaitTools:
    def __init__(self, tmux: Tmux, ledger: Ledger) -> None:
        self.tmux = tmux
        self.ledger = ledger

    async def wait_for_text(self, call: Call, params: WaitForTextInput) -> WaitForTextOutput:
        pane_id = check_pane_id(params.pane, field="pane")
        regex, case = bool(params.regex), bool(params.match_case)
        patterns = checked_patterns("patterns", listed(params.patterns), regex, case)
        stop = checked_patterns("stop", listed(params.stop), regex, case)
        limit = seconds_of(params.seconds if isinstance(params.seconds, int) else None)
        server = self.tmux.server()
        target = server.pane(pane_id, "pane")
        pane = await target.row(FOLLOWED_FIELDS)
        wait = TextWait(server, pane, patterns, stop, self.ledger, limit, call.progress)

        async def entry(now: Any) -> Found | None:
            """Wanted text already on a finished row, or only on the row being typed."""
            if not patterns:
                return None
            rows, cursor = await screen_rows(target, now)
            recent = self.ledger.recent(pane_id)
            none = CratePatterns("stop", (), ())
            finished = first_matching_row(
                rows[:cursor][::-1], recent, none, patterns, complete=True
            )
            if finished is not None:
                return Found("present_at_entry", finished.index, finished.pattern, finished.line)
            typing = first_matching_row(
                rows[cursor : cursor + 1], recent, none, patterns, complete=True
            )
            if typing is not None:
                return Found("pending", typing.index, typing.pattern, typing.line)
            return None

        found = await wait.run(entry)
        at_entry = found.outcome in ("present_at_entry", "pending")
        return WaitForTextOutput.model_validate(
            {
                "pane": pane_id,
                "outcome": found.outcome,
                "text": (found.line or "") if at_entry else wait.text(),
                "bytes": wait.bytes,
                "matched_index": found.index,
                "matched_pattern": found.pattern,
            }
        )


def checked_patterns(
    field: str, given: list[str] | None, regex: bool, match_case: bool
) -> CratePatterns:
    for index, pattern in enumerate(given or ()):
        size = len(pattern.encode("utf-8", "surrogatepass"))
        if size > PATTERN_BYTES:
            raise InvalidArgument(
                f"{field}[{index}]",
                pattern,
                f"is {size} bytes in UTF-8, more than the {PATTERN_BYTES} allowed",
                "Shorten it, or match a shorter distinctive part.",
            )
    return CratePatterns.build(field, given, regex, match_case)


def listed(value: object) -> list[str] | None:
    """An optional list argument: None when omitted or null."""
    return [str(item) for item in value] if isinstance(value, list) else None
