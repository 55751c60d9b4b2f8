"""What a result's text is: the compact JSON of the structured content, or a handler's own.

Handlers and the runtime both write results' JSON with ``compact_json``, so a batch can
count a nested result's bytes exactly as the runtime will send them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError, to_json

M = TypeVar("M", bound=BaseModel)


def compact_json(value: Any) -> str:
    """JSON as the server writes a result's structured content and its text.

    pydantic-core's encoder writes what ``json.dumps(ensure_ascii=False, separators=(",",
    ":"))`` writes, in under half the time on a 200-pane list, except that a float's small
    exponent has no leading zero (``1e-7``, not ``1e-07``: the same number). Text it cannot
    encode (a lone surrogate, from tmux bytes that are not UTF-8) goes to ``json``."""
    try:
        return to_json(value).decode()
    except PydanticSerializationError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Reply(Generic[M]):
    """The structured result plus the text shown beside it (e.g. a one-line summary).

    ``text`` None keeps the profile's own rule for the text. ``notes`` are sent as further
    text blocks after it, for what the structured result has no field for (a dead pane in
    a family whose rows cannot say so): the first block stays exactly what a client of the
    family parses, and an agent reading the result reads the notes too.
    """

    model: M
    text: str | None = None
    notes: tuple[str, ...] = ()
