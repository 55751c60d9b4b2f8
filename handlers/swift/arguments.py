"""What the swift family's arguments take beyond their schemas: optional values left
out, and how long a wait lasts.
"""

from __future__ import annotations

from typing import Any

from pydantic import MISSING

from .config import SwiftConfig

DEFAULT_TIMEOUT_MS = 30_000


def given(value: Any, default: Any = None) -> Any:
    """An optional argument's value, or ``default`` when the caller left it out."""
    return default if value is MISSING else value


def wait_limit(timeout_ms: object, config: SwiftConfig) -> float:
    """How long a wait lasts: ``timeoutMs`` (30 s when omitted) cut to the server's ceiling."""
    milliseconds: int = given(timeout_ms, DEFAULT_TIMEOUT_MS)
    return min(milliseconds / 1000, config.wait_ceiling)
