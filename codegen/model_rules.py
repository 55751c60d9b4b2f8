"""What a generated model must check the way the contract does, beyond the model generator's reach.

The strict models are one of the checkers a call passes, so they must agree
with the schema on every value. Patterns reach the models as written: the
generator refuses any pattern the two engines could read differently
(``codegen.patterns``). One keyword needs help:

- ``x-libtmux-max-utf8-bytes`` is ours; the generator only records it. Each
  field it limits gets a validator from the profile's generated ``limits``
  module, which counts bytes as the schema checkers do. The fields are read from
  the document the generator is given, before it runs: every object with a
  limited property of its own is a ``$defs`` entry there, named by
  ``naming.models_document``, so each validator names its class, passed through
  the generator's ``validators`` option.
"""

from __future__ import annotations

import keyword
from collections.abc import Iterator, Mapping
from typing import Any

from codegen import naming
from tmux_contract_mcp.contract_rules import UTF8_KEYWORD

_DATA = naming.VALUE_KEYWORDS
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


def limited_fields(document: Mapping[str, Any], where: str) -> dict[str, dict[int, list[str]]]:
    """class -> limit -> fields: each byte-limited property of an entry of the document's
    ``$defs`` (``naming.models_document``), on a string or on an array's items. Every
    limit in the document must be one of these: a model checks no other."""
    found: dict[str, dict[int, list[str]]] = {}
    for cls, schema in document["$defs"].items():
        properties = schema.get("properties", {}) if isinstance(schema, Mapping) else {}
        for name, sub in properties.items():
            limit = naming.limited(sub)
            if limit is None:
                continue
            if not name.isidentifier() or keyword.iskeyword(name):
                raise unchecked(where, cls, name)
            found.setdefault(cls, {}).setdefault(limit, []).append(name)
    checked = sum(len(names) for limits in found.values() for names in limits.values())
    wanted = byte_limits(document)
    if checked != wanted:
        raise RuntimeError(
            f"{where}: {wanted} byte limits in the schemas, but the models check {checked}; "
            f"a model can check {UTF8_KEYWORD} only on an object's own string property "
            "or on the items of its own array"
        )
    return found


def unchecked(where: str, cls: str, name: str) -> RuntimeError:
    return RuntimeError(
        f"{where}: {cls}.{name} carries {UTF8_KEYWORD}, but its model has no field {name!r} "
        "to check it on: a limited property needs a name Python spells as is"
    )


def validators(profile: str, fields: dict[str, dict[int, list[str]]]) -> dict[str, Any]:
    """The model generator's ``validators`` option: each limited field checked by its limit."""
    module = naming.limits_module(profile)
    return {
        cls: {
            "validators": [
                {
                    "fields": names,
                    "function": f"{module}.{naming.limit_function(limit)}",
                    "mode": "after",
                }
                for limit, names in sorted(limits.items())
            ]
        }
        for cls, limits in sorted(fields.items())
    }
