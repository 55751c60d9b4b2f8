"""What the rust family's arguments take beyond their schemas: optional values left
out or ``null`` read alike, sizes in cells, and the seconds a wait lasts.
"""

from __future__ import annotations

from typing import Any

from pydantic import MISSING

from ...errors import InvalidArgument
from ..tmux.objects import layouts

WINDOW_MAXIMUM = layouts.WINDOW_MAXIMUM

DEFAULT_SECONDS = 30

MAX_SECONDS = 600


def given(value: Any, default: Any = None) -> Any:
    """The argument's value; ``default`` when the caller left it out or sent null."""
    if value is MISSING or value is None:
        return default
    return value


def check_cells(field: str, value: int, unit: str) -> int:
    """A size or a step in cells: tmux takes 1 up to its largest window."""
    if not 1 <= value <= WINDOW_MAXIMUM:
        raise InvalidArgument(
            field,
            value,
            f"is outside 1..{WINDOW_MAXIMUM} {unit}",
            f"Pass a number of {unit} from 1 to {WINDOW_MAXIMUM}.",
        )
    return value


def seconds_of(value: int | None) -> float:
    """``seconds`` as the family reads it: 30 when omitted, capped at 600."""
    return float(DEFAULT_SECONDS if value is None else min(value, MAX_SECONDS))
