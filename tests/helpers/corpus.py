"""Instances built from a contract's schema: a valid sample, and every way of breaking it.

The variants are the values on which checkers of one schema tend to disagree:
integral floats (``5.0``, ``-0.0``, ``1e2``), bools where integers go, bounds
and one past them, strings with a trailing newline against a pattern, strings
at and one over a length or byte limit in multi-byte characters, lone
surrogates and NUL (in values and keys), extra and missing properties, nulls.
Deterministic: the same schema always gives the same instances, in order.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tmux_contract_mcp.contract_rules import UTF8_KEYWORD
from tmux_contract_mcp.validation import Schema

WRONG_VALUES: tuple[Any, ...] = ("x", "", 0, -1, 1.5, True, None, [], [1], {}, {"a": 1})
NUMBERS: tuple[Any, ...] = (5.0, -0.0, 1e2, 2.5, False, 2**70)
PATTERN_SAMPLES = ("a", "A", "a1", "x_y", "0", "a-b", "%1", "@1", "$1")
# After a value that matches a pattern: what ECMA-262 and Python's re read differently.
PATTERN_TAILS = ("\n", "\r", "\u2028", "\u0663", "\u00e9", "\U0001f600")
BAD_TEXT = ("\ud800", "\udfff", "\x00")


class Corpus:
    """Instances of one schema: samples it accepts and variants that break them."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root

    def deref(self, schema: Any) -> Any:
        """Follow a local ``$ref`` (``#/$defs/Name``)."""
        while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
            node: Any = self.root
            for part in schema["$ref"].removeprefix("#/").split("/"):
                node = node[part]
            schema = node
        return schema

    def sample(self, schema: Any) -> Any:
        """A value the schema accepts, built from its first alternatives."""
        schema = self.deref(schema)
        if not isinstance(schema, dict):
            return None
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return schema["enum"][0]
        for key in ("oneOf", "anyOf"):
            if key in schema:
                return self.sample(schema[key][0])
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = kind[0]
        if kind == "object":
            props = schema.get("properties", {})
            return {name: self.sample(props.get(name, {})) for name in schema.get("required", [])}
        if kind == "array":
            return [self.sample(schema.get("items", {}))] * schema.get("minItems", 0)
        if kind in ("integer", "number"):
            return schema.get("minimum", 0)
        if kind == "boolean":
            return False
        if kind == "string":
            if "pattern" in schema:
                return next(
                    s for s in PATTERN_SAMPLES if Schema({"pattern": schema["pattern"]}).accepts(s)
                )
            return "a" * schema.get("minLength", 1)
        return None

    def admits(self, schema: Any, kind: str) -> bool:
        """Whether any alternative of ``schema`` names the JSON type ``kind``."""
        schema = self.deref(schema)
        if not isinstance(schema, dict):
            return False
        types = schema.get("type", [])
        if kind in (types if isinstance(types, list) else [types]):
            return True
        return any(
            self.admits(branch, kind)
            for key in ("oneOf", "anyOf")
            for branch in schema.get(key, [])
        )

    def variants(self, schema: Any, value: Any) -> Iterator[Any]:
        """``value`` broken (or completed) in every way the schema has an opinion on."""
        schema = self.deref(schema)
        yield value
        if not isinstance(schema, dict):
            return
        yield from WRONG_VALUES
        if self.admits(schema, "integer") or self.admits(schema, "number"):
            yield from NUMBERS
        for key in ("oneOf", "anyOf"):
            for branch in schema.get(key, []):
                yield from self.variants(branch, self.sample(branch))
        if isinstance(value, dict):
            yield from self.object_variants(schema, value)
        if isinstance(value, list) and "items" in schema:
            item = self.sample(schema["items"])
            yield [item] * (schema.get("maxItems", 3) + 1)
            yield [item] * schema.get("maxItems", 3)
            for inner in self.variants(schema["items"], item):
                yield [inner]
        if isinstance(value, int) and not isinstance(value, bool):
            yield from self.number_variants(schema, value)
        if isinstance(value, str):
            yield from self.string_variants(schema, value)

    def object_variants(self, schema: dict[str, Any], value: dict[str, Any]) -> Iterator[Any]:
        props = schema.get("properties", {})
        yield {**value, "unexpected_key": 1}
        for bad in BAD_TEXT:
            yield {**value, f"key{bad}": 1}
        for name in value:
            yield {k: v for k, v in value.items() if k != name}
        for name, sub in props.items():
            for inner in self.variants(sub, self.sample(sub)):
                yield {**value, name: inner}

    def number_variants(self, schema: dict[str, Any], value: int) -> Iterator[Any]:
        yield float(value)
        for bound in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if bound in schema:
                edge = schema[bound]
                for near in (edge - 1, edge, edge + 1):
                    yield near
                    yield float(near)
                yield edge + 0.5
                yield edge - 0.5

    def string_variants(self, schema: dict[str, Any], value: str) -> Iterator[Any]:
        for bad in BAD_TEXT:
            yield value + bad
            yield bad + value
        if "pattern" in schema:
            for tail in PATTERN_TAILS:
                yield value + tail
                yield tail + value
        limit = schema.get(UTF8_KEYWORD)
        if limit:  # bytes: ASCII is one, é two, 😀 four
            for char, size in (("a", 1), ("\u00e9", 2), ("\U0001f600", 4)):
                yield char * (limit // size)
                yield char * (limit // size + 1)
            yield "\u00e9" * (limit // 2 - 1) + "a"
            yield "\u00e9" * (limit // 2) + "a"
        length = schema.get("maxLength")
        if length:  # code points: 😀 is one, though UTF-16 spells it in two
            for char in ("a", "\u00e9", "\U0001f600"):
                yield char * length
                yield char * (length + 1)


def limited(values: Iterator[Any], count: int) -> list[Any]:
    """The first ``count`` distinct instances (5.0 and 5 are distinct here)."""
    seen: dict[str, Any] = {}
    for value in values:
        seen.setdefault(repr(value), value)
        if len(seen) >= count:
            break
    return list(seen.values())


def instances(schema: dict[str, Any], count: int) -> list[Any]:
    corpus = Corpus(schema)
    return limited(corpus.variants(schema, corpus.sample(schema)), count)
