"""Judging a value against a contract's JSON Schema (2020-12), and wording each failure.

One engine decides: jsonschema-rs (``jsonschema_rs``), compiled once per schema. It reads
``pattern`` as ECMA-262 and counts ``5.0`` as an integer, as the contract means them, and
it never writes into what it checks. Our one keyword, ``x-libtmux-max-utf8-bytes``, is
one of its keywords here. It cannot take a lone surrogate, so the text rule
(``text_rule``) refuses those before a value reaches it; a result that holds one anyway
is refused here, by that rule's name.

The engine gives each failure as data (the keyword, where in the value, where in the
schema); ``Schema.problems`` words them in one line each, naming the field path, the
rule and what would be accepted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jsonschema_rs
from pydantic_core import PydanticCustomError

from .contract_rules import UTF8_KEYWORD
from .errors import shown

SURROGATE_RULE = "no lone surrogate"


def utf8_bytes(text: str) -> int:
    """A string's length in UTF-8 bytes (a lone surrogate counts its three)."""
    return len(text.encode("utf-8", "surrogatepass"))


def _too_many_bytes(size: int, limit: int) -> str:
    return f"is {size} bytes in UTF-8, more than the {limit} allowed"


class MaxUtf8Bytes:
    """``x-libtmux-max-utf8-bytes`` as an engine keyword: a string's length in UTF-8 bytes,
    not code points."""

    def __init__(self, parent: Mapping[str, Any], limit: int, path: Sequence[str | int]) -> None:
        self.limit = limit

    def validate(self, instance: Any) -> None:
        if isinstance(instance, str) and (size := utf8_bytes(instance)) > self.limit:
            raise ValueError(_too_many_bytes(size, self.limit))


def within_utf8_bytes(value: Any, limit: int) -> Any:
    """The byte limit as a generated model checks it: the same count, the same verdict.

    A list is a field whose items carry the limit: each string in it is checked.
    """
    if isinstance(value, list):
        for item in value:
            within_utf8_bytes(item, limit)
        return value
    if isinstance(value, str) and (size := utf8_bytes(value)) > limit:
        raise PydanticCustomError(
            UTF8_KEYWORD,
            "is {size} bytes in UTF-8, more than the {limit} allowed",
            {"size": size, "limit": limit},
        )
    return value


class Schema:
    """One schema, compiled once: a fast verdict, and worded problems when it refuses."""

    def __init__(self, schema: Mapping[str, Any] | bool) -> None:
        self.schema = schema
        self._engine = jsonschema_rs.validator_for(
            schema if isinstance(schema, bool) else dict(schema),
            keywords={UTF8_KEYWORD: MaxUtf8Bytes},
            pattern_options=jsonschema_rs.RegexOptions(),
            validate_formats=False,
        )

    def accepts(self, value: Any) -> bool:
        try:
            return bool(self._engine.is_valid(value))
        except UnicodeEncodeError:  # a lone surrogate: the text rule's, refused
            return False

    def problems(self, value: Any, prefix: Sequence[str | int] = ()) -> list[str]:
        """Every violation, one line each, sorted by field path; ``prefix`` is where the
        value sits in a larger call (a batch operation)."""
        try:
            errors = [_leaf(error) for error in self._engine.iter_errors(value)]
        except UnicodeEncodeError:
            where = f"`{json_path(prefix)}`" if prefix else "the value"
            return [f"{where} holds a lone surrogate (rule: {SURROGATE_RULE})"]
        found = [_Failure.of(error, self.schema) for error in errors]
        found.sort(key=lambda failure: (failure.field_path(), failure.keyword))
        return [failure.describe(prefix) for failure in found]


def json_path(parts: Any) -> str:
    """``['operations', 3, 'arguments', 'maxLines']`` -> ``operations[3].arguments.maxLines``."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


_WEAK = frozenset({"anyOf", "oneOf"})


def _best(errors: Sequence[Any]) -> Any:
    """The most telling of several errors: the one nearest the top of the value, and among
    those one that is not itself a choice between branches."""
    return max(errors, key=lambda e: (-len(list(e.instance_path)), e.kind.name not in _WEAK))


def _leaf(error: Any) -> Any:
    """For a failed oneOf/anyOf, the most telling error of its branches.

    Branches told apart by a ``const`` (the batch's ``tool``) are judged by the branch
    whose constant matched: its complaint is the one that helps. When no branch's constant
    matched, the complaint is that the value is none of them. ``X | null`` fails twice;
    the null branch's complaint says nothing useful.
    """
    if error.kind.name not in _WEAK:
        return error
    branches: list[list[Any]] = [list(branch) for branch in error.kind.context]
    if not any(branches):
        return error
    keyed = {at for at, branch in enumerate(branches) if any(_is_key(e) for e in branch)}
    if keyed:
        matched = [branch for at, branch in enumerate(branches) if at not in keyed and branch]
        if len(matched) == 1:
            return _leaf(_best(matched[0]))
        if not matched:
            return _NoBranch([e for at in sorted(keyed) for e in branches[at] if _is_key(e)])
    flat = [e for branch in branches for e in branch]
    telling = [e for e in flat if not (e.kind.name == "type" and _types(e) == ["null"])]
    return _leaf(_best(telling or flat))


def _is_key(error: Any) -> bool:
    return bool(error.kind.name == "const")


def _types(error: Any) -> list[str]:
    return list(error.kind.as_dict().get("types", []))


class _NoBranch:
    """One ``enum``-style failure listing every constant the value could have had."""

    def __init__(self, keys: list[Any]) -> None:
        first = keys[0]
        self.instance_path = list(first.instance_path)
        self.instance = first.instance
        self.allowed = [
            e.kind.as_dict()["expected_value"]
            for e in keys
            if list(e.instance_path) == self.instance_path
        ]


@dataclass(frozen=True)
class _Failure:
    """One broken rule: which keyword, its value in the schema, where in the value."""

    keyword: str
    value: Any  # the keyword's value in the schema
    instance: Any
    path: tuple[str | int, ...]
    holder: Mapping[str, Any]  # the schema object holding the keyword
    detail: Mapping[str, Any]  # what the engine says of it

    @classmethod
    def of(cls, error: Any, root: Mapping[str, Any] | bool) -> _Failure:
        if isinstance(error, _NoBranch):
            return cls("enum", error.allowed, error.instance, tuple(error.instance_path), {}, {})
        keyword = str(error.kind.name)
        schema_path = list(error.schema_path)
        holder = _node(root, schema_path[:-1]) if schema_path else root
        holder = holder if isinstance(holder, Mapping) else {}
        detail = error.kind.as_dict()
        value = holder.get(keyword, detail.get("limit"))
        return cls(keyword, value, error.instance, tuple(error.instance_path), holder, detail)

    def field_path(self, prefix: Sequence[str | int] = ()) -> str:
        """The path of the field this is about; for ``required``, the missing field's own."""
        path = json_path([*prefix, *self.path])
        if self.keyword == "required":
            name = str(self.detail.get("property", ""))
            return f"{path}.{name}" if path else name
        return path

    def describe(self, prefix: Sequence[str | int]) -> str:
        path = json_path([*prefix, *self.path])
        shown_value = shown(self.instance)
        if self.keyword == "additionalProperties":
            accepted = ", ".join(sorted(self.holder.get("properties", {}))) or "none"
            names = ", ".join(f"`{name}`" for name in sorted(self.detail.get("unexpected", [])))
            where = f" in `{path}`" if path else ""
            return (
                f"unexpected argument {names}{where} (rule: additionalProperties false); "
                f"accepted arguments: {accepted}"
            )
        if self.keyword == "required":
            return f"`{self.field_path(prefix)}` is missing (rule: required)"
        if self.keyword == "enum":
            allowed = ", ".join(repr(value) for value in self.value)
            return f"`{path}`: {shown_value} is not one of {allowed} (rule: enum)"
        if self.keyword == "type":
            return f"`{path}`: {shown_value} is not of type {self.value!r} (rule: type)"
        if self.keyword == UTF8_KEYWORD:
            size = utf8_bytes(self.instance) if isinstance(self.instance, str) else 0
            return (
                f"`{path}` {_too_many_bytes(size, self.value)} (rule: {UTF8_KEYWORD} {self.value})"
            )
        label = f"`{path}`" if path else "the arguments"
        words = _WORDS.get(self.keyword, "breaks the rule")
        return f"{label}: {shown_value} {words.format(self.value)} (rule: {self.keyword} {shown(self.value)})"


# How each other rule is broken, after the value: "{0}" is the keyword's value in the schema.
_WORDS = {
    "maximum": "is greater than the maximum of {0}",
    "minimum": "is less than the minimum of {0}",
    "exclusiveMaximum": "is not less than {0}",
    "exclusiveMinimum": "is not greater than {0}",
    "multipleOf": "is not a multiple of {0}",
    "maxLength": "is longer than {0} characters",
    "minLength": "is shorter than {0} characters",
    "pattern": "does not match {0!r}",
    "maxItems": "has more than {0} items",
    "minItems": "has fewer than {0} items",
    "uniqueItems": "has items that repeat",
    "maxProperties": "has more than {0} properties",
    "minProperties": "has fewer than {0} properties",
    "const": "is not {0!r}",
    "not": "matches a schema it must not match",
    "oneOf": "matches more than one of the alternatives",
    "anyOf": "matches none of the alternatives",
    "contains": "has no item of the kind required",
    "falseSchema": "is not allowed here",
}


def _node(root: Any, path: Sequence[str | int]) -> Any:
    node = root
    for step in path:
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            return {}
    return node
