"""One rule for text in a call: no NUL character and no lone surrogate, anywhere.

JSON can spell both (``"\\u0000"``, ``"\\ud800"``) and the contracts' schemas
accept them as strings, but neither can reach tmux: a C string ends at NUL,
and a lone surrogate has no UTF-8 form, so no argv, pipe or pane can carry
it. Every string of a call, at any depth and object keys included, is held
to this rule before any checker or handler sees the call.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from .errors import shown
from .validation import json_path

RULE = "text without NUL or lone surrogates"


def _fault(text: str) -> tuple[int, str] | None:
    """Where ``text`` breaks the rule and how, or None."""
    if text.isascii():
        index = text.find("\0")
        return None if index < 0 else (index, "a NUL character (U+0000)")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # only a surrogate cannot be encoded
        return exc.start, f"a lone surrogate (U+{ord(text[exc.start]):04X})"
    index = text.find("\0")
    return None if index < 0 else (index, "a NUL character (U+0000)")


def printable(text: str) -> str:
    """``text`` with NUL, other control characters and surrogates written as escapes."""
    return "".join(
        f"\\u{ord(c):04x}" if ord(c) < 0x20 or 0xD800 <= ord(c) <= 0xDFFF else c for c in text
    )


def _faults(value: Any, path: tuple[str | int, ...]) -> Iterator[str]:
    if isinstance(value, str):
        fault = _fault(value)
        if fault is not None:
            index, what = fault
            yield f"`{_where(path)}` holds {what} at character {index}"
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and (fault := _fault(key)) is not None:
                where = f" in `{_where(path)}`" if path else ""
                yield f"the key {shown(key)}{where} holds {fault[1]}"
            yield from _faults(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _faults(item, (*path, index))


def _where(path: tuple[str | int, ...]) -> str:
    return printable(json_path(path)) or "the value"


def _clean(value: Any) -> bool:
    """Whether nothing in ``value`` breaks the rule: the common case, answered quickly."""
    if isinstance(value, str):
        return "\0" not in value if value.isascii() else _fault(value) is None
    if isinstance(value, dict):
        for key, item in value.items():
            if not (_clean(key) and _clean(item)):
                return False
    elif isinstance(value, list):
        for item in value:
            if not _clean(item):
                return False
    return True


def text_problems(value: Any, prefix: Sequence[str | int] = ()) -> list[str]:
    """One line per string or key of ``value`` that breaks the rule, naming where and why."""
    if _clean(value):
        return []
    return [
        f"{fault} (rule: {RULE}); tmux and the operating system cannot carry it, so leave it out"
        for fault in _faults(value, tuple(prefix))
    ]
