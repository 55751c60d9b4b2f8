"""The compiled schema check agrees with the full validator on every contract.

Calls and results are first checked by a schema compiled to Python code; the
full validator runs only to explain a failure. Any disagreement would let a
call through that the contract forbids, so both are run over instances built
from each schema and over many ways of breaking them.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codegen.contract_file import read_contract
from tmux_contract_mcp.validation import UTF8_KEYWORD, compile_check, compile_schema

CONTRACTS = sorted((Path(__file__).resolve().parent.parent / "contracts").glob("[!u]*/*.json"))
WRONG_VALUES: tuple[Any, ...] = ("x", "", 0, -1, 1.5, True, None, [], [1], {}, {"a": 1})


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
        if kind == "integer":
            return schema.get("minimum", 0)
        if kind == "number":
            return schema.get("minimum", 0)
        if kind == "boolean":
            return False
        if kind == "string":
            return "a" * schema.get("minLength", 1)
        return None

    def variants(self, schema: Any, value: Any) -> Iterator[Any]:
        """``value`` broken (or completed) in every way the schema has an opinion on."""
        schema = self.deref(schema)
        yield value
        if not isinstance(schema, dict):
            return
        yield from WRONG_VALUES
        for key in ("oneOf", "anyOf"):
            for branch in schema.get(key, []):
                yield from self.variants(branch, self.sample(branch))
        if isinstance(value, dict):
            props = schema.get("properties", {})
            yield {**value, "unexpected_key": 1}
            for name in value:
                yield {k: v for k, v in value.items() if k != name}
            for name, sub in props.items():
                for inner in self.variants(sub, self.sample(sub)):
                    yield {**value, name: inner}
        if isinstance(value, list) and "items" in schema:
            item = self.sample(schema["items"])
            yield [item] * (schema.get("maxItems", 3) + 1)
            for inner in self.variants(schema["items"], item):
                yield [inner]
        if isinstance(value, int) and not isinstance(value, bool):
            for bound in ("minimum", "maximum"):
                if bound in schema:
                    yield schema[bound] - 1
                    yield schema[bound] + 1
        if isinstance(value, str):
            limit = schema.get(UTF8_KEYWORD) or schema.get("maxLength")
            if limit:
                yield "a" * limit
                yield "a" * (limit + 1)
                yield "é" * (limit // 2 + 1)


def limited(values: Iterator[Any], count: int = 4000) -> list[Any]:
    seen: dict[str, Any] = {}
    for value in values:
        seen.setdefault(json.dumps(value, sort_keys=True), value)
        if len(seen) >= count:
            break
    return list(seen.values())


@pytest.mark.parametrize("path", CONTRACTS, ids=lambda p: f"{p.parent.name}/{p.stem}")
@pytest.mark.parametrize("which", ["inputSchema", "outputSchema"])
def test_the_compiled_check_agrees_with_the_full_validator(path: Path, which: str) -> None:
    schema = read_contract(path)[which]  # schema-first: every contract has both
    fast, full = compile_check(schema), compile_schema(schema)
    corpus = Corpus(schema)
    instances = limited(corpus.variants(schema, corpus.sample(schema)))
    verdicts = {full.is_valid(value) for value in instances}
    assert verdicts == {True, False}, "the corpus must hold valid and invalid instances"
    disagreements = [
        value for value in instances if fast(copy.deepcopy(value)) != full.is_valid(value)
    ]
    assert not disagreements, disagreements[:3]
