"""Numbers as JSON Schema counts them: ``5.0`` is the integer 5.

JSON has one number type, and JSON Schema 2020-12 calls a number with a zero
fractional part an integer: ``{"maxLines": 5.0}`` meets ``"type": "integer"``
and equals ``5`` under ``const``, ``enum`` and every bound. Python tells
``5.0`` from ``5``, and the strict generated models refuse a float where they
want an int. So before a model reads a call, each such number is made the
int it equals. This changes no verdict of the schema (the value is the same
JSON number), and a model that wants a float still takes an int.
"""

from __future__ import annotations

from typing import Any


def integral(value: Any) -> Any:
    """``value`` with every float that has no fractional part as an int.

    What needs no change is returned as is; what does is copied, so the
    caller's value is never changed.
    """
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        changed: dict[Any, Any] | None = None
        for key, item in value.items():
            new = integral(item)
            if new is not item:
                if changed is None:
                    changed = dict(value)
                changed[key] = new
        return value if changed is None else changed
    if isinstance(value, list):
        items = [integral(item) for item in value]
        if any(new is not old for new, old in zip(items, value, strict=True)):
            return items
        return value
    return value
