"""A handler's answer when the text content should not be the JSON of the result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Reply(Generic[M]):
    """The structured result plus the text shown beside it (e.g. a one-line summary)."""

    model: M
    text: str
