"""What a generated model must check the way the contract does, beyond the model generator's reach.

The strict models are one of the checkers a call passes, so they must agree
with the schema on every value. Patterns reach the models as written: the
generator refuses any pattern the two engines could read differently
(``codegen.patterns``). One keyword needs help:

- ``x-libtmux-max-utf8-bytes`` is ours; the generator only records it. Each
  field it limits gets a validator from the profile's generated ``limits``
  module, which counts bytes as the schema checkers do.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from typing import Any

from codegen import naming
from tmux_contract_mcp.contract_rules import UTF8_KEYWORD

_DATA = frozenset({"const", "enum", "default", "examples"})  # values, not schemas
_SCHEMA_MAPS = frozenset({"properties", "$defs", "dependentSchemas"})  # name -> schema


def inline_defaulted_refs(schema: Any) -> Any:
    """``schema`` with each property that is a ``$ref`` to a local enum plus a ``default``
    spelled out in place (the enum beside the default), for the models only.

    The generator types such a property with the enum's root model but writes the default
    as the bare value, which a type checker refuses; inlined, the property is a
    ``Literal`` with a ``Literal`` default. What is advertised keeps the ``$ref``.
    """
    if not isinstance(schema, Mapping):
        return schema
    defs = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, Mapping):
            return node
        ref = node.get("$ref")
        target = defs.get(ref.removeprefix("#/$defs/")) if isinstance(ref, str) else None
        if "default" in node and isinstance(target, Mapping) and "enum" in target:
            merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
            return {
                key: walk(value) if key not in _DATA else value for key, value in merged.items()
            }
        return {key: value if key in _DATA else walk(value) for key, value in node.items()}

    return walk(schema)


def patterns(node: Any) -> Iterator[str]:
    """Every ``pattern`` and ``patternProperties`` key of a schema."""
    if isinstance(node, list):
        for item in node:
            yield from patterns(item)
    elif isinstance(node, Mapping):
        for key, value in node.items():
            if key in _DATA:
                continue
            if key == "pattern" and isinstance(value, str):
                yield value
            elif key == "patternProperties" and isinstance(value, Mapping):
                yield from value
                yield from patterns(list(value.values()))
            elif key in _SCHEMA_MAPS and isinstance(value, Mapping):
                yield from patterns(list(value.values()))
            else:
                yield from patterns(value)


def byte_limits(node: Any) -> int:
    """How many times a schema uses the byte-limit keyword."""
    if isinstance(node, list):
        return sum(byte_limits(item) for item in node)
    if not isinstance(node, Mapping):
        return 0
    return sum(
        (1 if key == UTF8_KEYWORD else 0) + (0 if key in _DATA else byte_limits(value))
        for key, value in node.items()
    )


def limited_fields(code: str) -> dict[str, dict[int, list[str]]]:
    """class -> limit -> fields, for every field whose ``Field`` carries the byte limit."""
    found: dict[str, dict[int, list[str]]] = {}
    for cls in ast.parse(code).body:
        if not isinstance(cls, ast.ClassDef):
            continue
        for statement in cls.body:
            if not isinstance(statement, ast.AnnAssign) or not isinstance(
                statement.target, ast.Name
            ):
                continue
            limit = _limit(statement.annotation)
            if limit is not None:
                found.setdefault(cls.name, {}).setdefault(limit, []).append(statement.target.id)
    return found


def item_limited_fields(schema: Mapping[str, Any], cls: str) -> dict[str, dict[int, list[str]]]:
    """class -> limit -> fields, for each own property of ``schema`` (the model ``cls``)
    that is an array whose items carry the byte limit: the generator drops the keyword
    there, so the field's validator checks every item (``within_utf8_bytes`` on a list)."""
    found: dict[str, dict[int, list[str]]] = {}
    for name, sub in sorted(schema.get("properties", {}).items()):
        items = sub.get("items") if isinstance(sub, Mapping) else None
        if isinstance(items, Mapping) and isinstance(items.get(UTF8_KEYWORD), int):
            found.setdefault(cls, {}).setdefault(items[UTF8_KEYWORD], []).append(name)
    return found


def validated_fields(code: str) -> dict[str, set[str]]:
    """class -> the fields a ``field_validator`` of the class names."""
    found: dict[str, set[str]] = {}
    for cls in ast.parse(code).body:
        if not isinstance(cls, ast.ClassDef):
            continue
        for method in cls.body:
            if not isinstance(method, ast.FunctionDef):
                continue
            for decorator in method.decorator_list:
                if (
                    isinstance(decorator, ast.Call)
                    and isinstance(decorator.func, ast.Name)
                    and decorator.func.id == "field_validator"
                ):
                    found.setdefault(cls.name, set()).update(
                        arg.value
                        for arg in decorator.args
                        if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                    )
    return found


def _limit(annotation: ast.expr) -> int | None:
    for node in ast.walk(annotation):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        if node.func.id != "Field":
            continue
        for keyword in node.keywords:
            if keyword.arg == "json_schema_extra" and isinstance(keyword.value, ast.Dict):
                for key, value in zip(keyword.value.keys, keyword.value.values, strict=True):
                    if (
                        isinstance(key, ast.Constant)
                        and key.value == UTF8_KEYWORD
                        and isinstance(value, ast.Constant)
                        and isinstance(value.value, int)
                    ):
                        return value.value
    return None


def limit_function(limit: int) -> str:
    return f"at_most_{limit}_utf8_bytes"


def validators(profile: str, fields: dict[str, dict[int, list[str]]]) -> dict[str, Any]:
    """The model generator's ``validators`` option: each limited field checked by its limit."""
    module = f"{naming.PACKAGE}.generated.{profile}.limits"
    return {
        cls: {
            "validators": [
                {"fields": names, "function": f"{module}.{limit_function(limit)}", "mode": "after"}
                for limit, names in sorted(limits.items())
            ]
        }
        for cls, limits in sorted(fields.items())
    }
