"""Reading an input schema the way the fuzzer needs it: local ``$ref`` inlined, the verdict
on a value, and every place in a value together with the schema that governs it."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from tmux_contract_mcp.text_rule import text_problems
from tmux_contract_mcp.validation import Schema

Path = tuple[str | int, ...]


def inline_refs(schema: Any, root: Any | None = None) -> Any:
    """``schema`` with every local ``$ref`` replaced by what it points at (contracts have
    no recursive references), so any part of it can be read on its own."""
    root = schema if root is None else root
    if isinstance(schema, list):
        return [inline_refs(item, root) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    if isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#/"):
        target: Any = root
        for step in schema["$ref"][2:].split("/"):
            target = target[step.replace("~1", "/").replace("~0", "~")]
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        return inline_refs({**target, **rest}, root)
    return {k: inline_refs(v, root) for k, v in schema.items() if k not in ("$defs", "$schema")}


class Verdict:
    """Whether a value is a valid call, as the project decides it: the text rule (no NUL,
    no lone surrogate) and then the schema, with ``pattern`` read as ECMA-262 and the
    byte limit ``x-libtmux-max-utf8-bytes`` (``runtime/validation.py``)."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.validator = Schema(schema)

    def valid(self, value: Any) -> bool:
        return not text_problems(value) and self.validator.accepts(value)


@cache
def _branch_validator(key: str) -> Schema:
    return Schema(json.loads(key))


def matches(schema: Any, value: Any) -> bool:
    """Whether ``value`` satisfies ``schema`` (validators cached by the schema's JSON)."""
    if not isinstance(schema, Mapping):
        return True
    try:
        return _branch_validator(json.dumps(schema, sort_keys=True)).accepts(value)
    except (TypeError, ValueError):
        return False


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def allowed_types(schema: Any) -> set[str] | None:
    """The JSON types a schema admits, or None when it says nothing about types."""
    if not isinstance(schema, Mapping):
        return None
    found: set[str] = set()
    kind = schema.get("type")
    if isinstance(kind, str):
        found.add(kind)
    elif isinstance(kind, list):
        found.update(k for k in kind if isinstance(k, str))
    for key in ("anyOf", "oneOf"):
        for branch in schema.get(key, []) or []:
            sub = allowed_types(branch)
            if sub is None:
                return None
            found |= sub
    if "const" in schema:
        found.add(json_type(schema["const"]))
    if "enum" in schema and isinstance(schema["enum"], list):
        found.update(json_type(v) for v in schema["enum"])
    if not found:
        return None
    if "number" in found:
        found.add("integer")
    return found


@dataclass(frozen=True)
class Slot:
    """One place in a value: its path, the value there and the schema that governs it."""

    path: Path
    value: Any
    schema: Mapping[str, Any]  # the alternative the value satisfies, where there is a choice
    declared: Mapping[str, Any]  # the schema as written there, every alternative


def _branch(schema: Mapping[str, Any], value: Any) -> Mapping[str, Any]:
    """The alternative of an ``anyOf``/``oneOf`` that ``value`` satisfies (else the first
    of its type), merged with the keywords beside it."""
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            chosen = next((b for b in branches if matches(b, value)), None)
            if chosen is None:
                kind = json_type(value)
                chosen = next(
                    (b for b in branches if kind in (allowed_types(b) or {kind})), branches[0]
                )
            rest = {k: v for k, v in schema.items() if k != key}
            return _branch({**rest, **chosen}, value) if isinstance(chosen, Mapping) else rest
    return schema


def slots(schema: Mapping[str, Any], value: Any, path: Path = ()) -> Iterator[Slot]:
    """Every place in ``value``, the root first, each with the schema that applies there."""
    here = _branch(schema, value)
    yield Slot(path, value, here, schema)
    if isinstance(value, dict):
        properties = here.get("properties", {})
        extra = here.get("additionalProperties")
        for key, item in value.items():
            sub = properties.get(key, extra if isinstance(extra, Mapping) else {})
            yield from slots(sub if isinstance(sub, Mapping) else {}, item, (*path, key))
    elif isinstance(value, list):
        items = here.get("items", {})
        for index, item in enumerate(value):
            yield from slots(items if isinstance(items, Mapping) else {}, item, (*path, index))


def get(value: Any, path: Path) -> Any:
    for step in path:
        value = value[step]
    return value


def replaced(value: Any, path: Path, new: Any) -> Any:
    """A copy of ``value`` with the part at ``path`` replaced by ``new``."""
    if not path:
        return new
    step, rest = path[0], path[1:]
    if isinstance(value, dict):
        copy = dict(value)
        copy[step] = replaced(value[step], rest, new)
        return copy
    items = list(value)
    assert isinstance(step, int)
    items[step] = replaced(items[step], rest, new)
    return items


def without(value: Any, path: Path, key: str) -> Any:
    """A copy of ``value`` with ``key`` removed from the object at ``path``."""
    target = dict(get(value, path))
    target.pop(key, None)
    return replaced(value, path, target)


def with_key(value: Any, path: Path, key: str, item: Any) -> Any:
    target = dict(get(value, path))
    target[key] = item
    return replaced(value, path, target)


def property_names(schema: Any) -> set[str]:
    """Every property name a schema mentions, at any depth."""
    found: set[str] = set()
    if isinstance(schema, Mapping):
        for key, sub in schema.items():
            if key == "properties" and isinstance(sub, Mapping):
                found.update(sub)
            found |= property_names(sub)
    elif isinstance(schema, list):
        for item in schema:
            found |= property_names(item)
    return found


def string_paths(schema: Any, path: Path = ()) -> list[Path]:
    """Every place a schema lets a string stand: object properties by name, array items as
    index 0, each alternative of an ``anyOf``/``oneOf``; one path per place."""
    found: list[Path] = []
    if not isinstance(schema, Mapping):
        return found
    if "string" in (allowed_types(schema) or set()) and path:
        found.append(path)
    for key in ("anyOf", "oneOf", "allOf"):
        for branch in schema.get(key, []) or []:
            found += [p for p in string_paths(branch, path) if p not in found]
    for name, sub in (schema.get("properties") or {}).items():
        found += [p for p in string_paths(sub, (*path, name)) if p not in found]
    items = schema.get("items")
    if isinstance(items, Mapping):
        found += [p for p in string_paths(items, (*path, 0)) if p not in found]
    return found


def holding(path: Path, value: Any) -> Any:
    """The smallest JSON value with ``value`` at ``path`` (objects for names, lists for 0)."""
    for step in reversed(path):
        value = [value] if isinstance(step, int) else {step: value}
    return value
