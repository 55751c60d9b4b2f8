"""Optional arguments of the rust family: left out (``MISSING``) and ``null`` mean the same."""

from __future__ import annotations

from typing import Any

from pydantic import MISSING


def given(value: Any, default: Any = None) -> Any:
    """The argument's value; ``default`` when the caller left it out or sent null."""
    if value is MISSING or value is None:
        return default
    return value
