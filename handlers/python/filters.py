"""libtmux-style row filters of the listing tools: ``field`` or ``field__lookup`` → string."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import InvalidArgument


def _exact(text: str, value: str) -> bool:
    return text == value


def _iexact(text: str, value: str) -> bool:
    return text.casefold() == value.casefold()


LOOKUPS: dict[str, Callable[[str, str], bool]] = {
    "exact": _exact,
    "iexact": _iexact,
    "contains": lambda text, value: value in text,
    "icontains": lambda text, value: value.casefold() in text.casefold(),
    "startswith": lambda text, value: text.startswith(value),
    "istartswith": lambda text, value: text.casefold().startswith(value.casefold()),
    "endswith": lambda text, value: text.endswith(value),
    "iendswith": lambda text, value: text.casefold().endswith(value.casefold()),
}

REGEX_LOOKUPS = {"regex": 0, "iregex": re.IGNORECASE}

ALL_LOOKUPS = (*LOOKUPS, *REGEX_LOOKUPS)


def _text(value: object) -> str:
    """A row value as the text a filter compares with: JSON spelling for booleans, "" for null."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


_FLAG_WORDS = {"1": "true", "0": "false", "true": "true", "false": "false"}


@dataclass(frozen=True)
class Condition:
    field: str
    lookup: str
    value: str
    pattern: re.Pattern[str] | None

    def __call__(self, row: Mapping[str, Any]) -> bool:
        raw = row.get(self.field)
        text = _text(raw)
        if self.pattern is not None:
            return self.pattern.search(text) is not None
        value = self.value
        if isinstance(raw, bool) and self.lookup in ("exact", "iexact"):
            value = _FLAG_WORDS.get(value.lower(), value)  # "1"/"0" as tmux spells flags
        return LOOKUPS[self.lookup](text, value)


class Filters:
    """libtmux-style row filters (``field`` or ``field__lookup`` → string), all must hold."""

    def __init__(self, conditions: Sequence[Condition]) -> None:
        self.conditions = tuple(conditions)

    def __call__(self, rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        return [row for row in rows if all(holds(row) for holds in self.conditions)]

    @classmethod
    def parse(cls, given: Mapping[str, str] | str | None, model: type[Any]) -> Filters:
        """Checked before any tmux command runs; ``model`` is the tool's row model."""
        fields: tuple[str, ...] = tuple(model.model_fields)
        return cls([_condition(key, value, fields) for key, value in _filter_items(given).items()])


def _filter_items(given: Mapping[str, str] | str | None) -> dict[str, str]:
    if given is None:
        return {}
    if not isinstance(given, str):
        return dict(given)
    if not given.strip():
        return {}
    how = 'Pass an object such as {"session_name": "build"}, or that object as a JSON string.'
    try:
        decoded = json.loads(given)
    except ValueError:
        raise InvalidArgument("filters", given, "is not a JSON object", how) from None
    if not isinstance(decoded, dict):
        raise InvalidArgument("filters", given, "is not a JSON object", how)
    items: dict[str, str] = {}
    for key, value in decoded.items():
        if isinstance(value, (dict, list)) or value is None:
            raise InvalidArgument(
                "filters",
                given,
                f"gives {key!r} a {type(value).__name__ if value is not None else 'null'}; "
                "a filter value is a string",
                how,
            )
        items[key] = _text(value)
    return items


def _condition(key: str, value: str, fields: Sequence[str]) -> Condition:
    field, lookup = key, "exact"
    if key not in fields and "__" in key:
        field, _, lookup = key.rpartition("__")
    if field not in fields:
        raise InvalidArgument(
            "filters",
            {key: value},
            f"names no field of these rows ({field!r}); valid fields: {', '.join(fields)}",
            "Filter on one of those fields, optionally with a lookup suffix such as __contains.",
        )
    if lookup not in ALL_LOOKUPS:
        raise InvalidArgument(
            "filters",
            {key: value},
            f"uses the unknown lookup {lookup!r}; lookups: {', '.join(ALL_LOOKUPS)}",
            f"Write the key as {field}__<lookup>, or just {field} for an exact match.",
        )
    pattern = None
    if lookup in REGEX_LOOKUPS:
        try:
            pattern = re.compile(value, REGEX_LOOKUPS[lookup])
        except re.error as exc:
            raise InvalidArgument(
                "filters",
                {key: value},
                f"is not a valid regular expression ({exc})",
                "Fix the pattern (Python re syntax), or use __contains for a literal match.",
            ) from None
    return Condition(field, lookup, value, pattern)
