"""Argument and result validation against a contract's JSON Schema (2020-12).

The contract decides what is valid. Two schema checkers read it: a check
compiled to Python code for speed and the full validator, which words a
failure. Both read ``pattern`` as ECMA-262 does (see ``ecma``) and neither
writes anything into what it checks.
"""

from __future__ import annotations

import ast
import contextlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import fastjsonschema
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match
from pydantic_core import PydanticCustomError

from . import ecma
from .errors import shown

UTF8_KEYWORD = "x-libtmux-max-utf8-bytes"


def utf8_bytes(text: str) -> int:
    """A string's length in UTF-8 bytes (a lone surrogate counts its three)."""
    return len(text.encode("utf-8", "surrogatepass"))


def _max_utf8_bytes(
    validator: Any, limit: Any, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    """``x-libtmux-max-utf8-bytes``: a string's length in UTF-8 bytes, not code points."""
    if isinstance(instance, str):
        size = utf8_bytes(instance)
        if size > limit:
            yield ValidationError(f"is {size} bytes in UTF-8, more than the {limit} allowed")


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


def _pattern(
    validator: Any, pattern: str, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    """``pattern`` with its ECMA-262 meaning (``$`` is the end of the text, ``\\d`` is ASCII)."""
    if validator.is_type(instance, "string") and not ecma.search(pattern, instance):
        yield ValidationError(f"{shown(instance)} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, properties: Mapping[str, Any], instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    """``patternProperties`` with each pattern read as ECMA-262 reads it."""
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in properties.items():
        for key, value in instance.items():
            if ecma.search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


DIALECT = "https://json-schema.org/draft/2020-12/schema"


ContractValidator = validators.extend(
    Draft202012Validator,
    {
        UTF8_KEYWORD: _max_utf8_bytes,
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
    },
)


def compile_schema(schema: Mapping[str, Any]) -> Any:
    return ContractValidator(
        _one_dialect(schema), format_checker=Draft202012Validator.FORMAT_CHECKER
    )


def _one_dialect(node: Any, root: bool = True) -> Any:
    """``node`` without the ``$schema`` of its subschemas that name 2020-12 again.

    A contract may embed another's schema whole (a batch's operations carry each
    tool's input schema, ``$schema`` included). The validator would judge such a
    subschema with the library's own 2020-12 validator, whose ``pattern`` is
    Python's and not ECMA-262's, so one value could get two verdicts; the key
    changes nothing else, as every contract is 2020-12. Any other dialect is kept
    (and then refused by the contract checks).
    """
    if isinstance(node, list):
        return [_one_dialect(item, False) for item in node]
    if not isinstance(node, Mapping):
        return node
    return {
        key: _one_dialect(value, False)
        for key, value in node.items()
        if root or key != "$schema" or value != DIALECT
    }


def compile_check(schema: Mapping[str, Any]) -> Callable[[Any], bool]:
    """A fast yes/no check of ``schema`` (the schema compiled to Python code).

    The common case, a valid value, costs microseconds; ``argument_errors``
    with the full validator explains a failure. The compiler knows nothing of
    ``x-libtmux-max-utf8-bytes``, so the keyword is handed to it as a format.
    It would fill in defaults where a value leaves them out; it is told not to,
    so a check never changes what it checks.
    """
    formats: dict[str, Callable[[str], bool]] = {}
    switches: list[_Switch] = []
    compiled = fastjsonschema.compile(
        _compilable(schema, formats, switches, ()), formats=formats, use_default=False
    )

    def check(value: Any) -> bool:
        try:
            compiled(value)
        except fastjsonschema.JsonSchemaException:
            return False
        return all(switch.check(value) for switch in switches)

    return check


Path = tuple[str, ...] | None  # where a schema node applies: "properties"/name and "items" steps


@dataclass(frozen=True)
class _Switch:
    """A oneOf told apart by a constant, checked by picking the one branch it names."""

    path: tuple[str, ...]
    key: str
    branches: dict[str, Callable[[Any], bool]]

    def check(self, value: Any) -> bool:
        return all(
            self.branches[json.dumps(item[self.key])](item) for item in _at(value, self.path)
        )


def _at(value: Any, path: tuple[str, ...]) -> Iterator[Any]:
    """The parts of ``value`` a schema node at ``path`` applies to."""
    if not path:
        yield value
        return
    step, rest = path[0], path[1:]
    if step == "items":
        if isinstance(value, list):
            for item in value:
                yield from _at(item, rest)
    elif isinstance(value, Mapping) and step in value:
        yield from _at(value[step], rest)


def _compilable(
    node: Any,
    formats: dict[str, Callable[[str], bool]],
    switches: list[_Switch],
    path: Path,
) -> Any:
    """An equivalent schema the compiler handles well.

    Each byte limit becomes a named format; each pattern is written in
    Python's dialect of its ECMA-262 meaning. A ``oneOf`` whose branches are told
    apart by a constant (the batch's ``tool``) is checked in Python by the one
    branch the constant names, after the compiled check: the compiled ``oneOf``
    would try every branch and build an exception for each that fails.
    """
    if isinstance(node, list):
        return [_compilable(item, formats, switches, None) for item in node]
    if not isinstance(node, Mapping):
        return node
    copy: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DATA:
            copy[key] = value
        elif key == "pattern" and isinstance(value, str):
            copy[key] = ecma.translate(value, "re")
        elif key == "patternProperties" and isinstance(value, Mapping):
            copy[key] = {
                ecma.translate(pattern, "re"): _compilable(sub, formats, switches, None)
                for pattern, sub in value.items()
            }
        elif key in _SCHEMA_MAPS and isinstance(value, Mapping):
            copy[key] = {
                name: _compilable(
                    sub,
                    formats,
                    switches,
                    (*path, name) if key == "properties" and path is not None else None,
                )
                for name, sub in value.items()
            }
        elif key == "items" and path is not None:
            copy[key] = _compilable(value, formats, switches, (*path, "items"))
        else:
            copy[key] = _compilable(value, formats, switches, None)
    if "type" not in copy and (types := _type_union(copy.get("anyOf"))) is not None:
        del copy["anyOf"]
        copy["type"] = types
    limit = copy.pop(UTF8_KEYWORD, None)
    if isinstance(limit, int) and "format" not in copy:
        name = f"{UTF8_KEYWORD}-{limit}"
        formats[name] = _byte_limit(limit)
        copy["format"] = name
    branches = node.get("oneOf")
    key = _discriminator(branches) if isinstance(branches, list) else None
    if key is not None and path is not None:
        assert isinstance(branches, list)
        del copy["oneOf"]
        consts = [branch["properties"][key]["const"] for branch in branches]
        checks = {json.dumps(c): compile_check(b) for c, b in zip(consts, branches, strict=True)}
        switches.append(_Switch(path, key, checks))
        copy["allOf"] = [
            *copy.get("allOf", []),
            {"type": "object", "required": [key], "properties": {key: {"enum": consts}}},
        ]
    return copy


_ANNOTATIONS = frozenset({"description", "title", "default", "examples"})
_DATA = frozenset({"const", "enum", "default", "examples"})  # values, not schemas
_SCHEMA_MAPS = frozenset({"properties", "$defs", "dependentSchemas"})  # name -> schema


def _type_union(branches: Any) -> list[str] | None:
    """``anyOf: [{type: A}, {type: null}]`` as ``type: [A, "null"]``, when that is all it says.

    The compiled ``anyOf`` tries each branch and raises an exception for every
    miss, so each null field of a result would cost one; a type list costs none.
    """
    if not isinstance(branches, list) or not branches:
        return None
    names: list[str] = []
    for branch in branches:
        if not isinstance(branch, Mapping) or set(branch) - _ANNOTATIONS != {"type"}:
            return None
        kind = branch["type"]
        for name in kind if isinstance(kind, list) else [kind]:
            if not isinstance(name, str):
                return None
            if name not in names:
                names.append(name)
    return names


def _byte_limit(limit: int) -> Callable[[str], bool]:
    return lambda text: utf8_bytes(text) <= limit


def _discriminator(branches: list[Any]) -> str | None:
    """The property every branch requires with a distinct constant, if there is one."""
    if not branches or not all(
        isinstance(b, Mapping) and b.get("type") == "object" for b in branches
    ):
        return None
    first = branches[0]
    for key in first.get("required", []):
        consts = [
            b.get("properties", {}).get(key, {}).get("const", _NONE)
            if key in b.get("required", [])
            else _NONE
            for b in branches
        ]
        if _NONE not in consts and len({repr(c) for c in consts}) == len(consts):
            return str(key)
    return None


_NONE = object()


def json_path(parts: Any) -> str:
    """``['operations', 3, 'arguments', 'maxLines']`` -> ``operations[3].arguments.maxLines``."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def _leaf(error: ValidationError) -> ValidationError:
    """For a oneOf/anyOf failure, the most telling sub-error.

    Branches told apart by a ``const`` (the batch's ``tool``) are judged by the
    branch whose constant matched: its complaint is the one that helps. When no
    branch's constant matched, the complaint is that the value is none of them.
    """
    if not error.context:
        return error
    branches: dict[Any, list[ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    keyed = {key: errs for key, errs in branches.items() if any(_is_key(e) for e in errs)}
    if keyed:
        matched = [errs for key, errs in branches.items() if key not in keyed]
        if len(matched) == 1:
            return _leaf(best_match(matched[0]))
        if not matched:
            return _no_branch(error, [e for errs in keyed.values() for e in errs if _is_key(e)])
    # ``X | null`` fails twice; the null branch's complaint says nothing useful.
    telling = [
        e for e in error.context if not (e.validator == "type" and e.validator_value == "null")
    ]
    return _leaf(best_match(telling or error.context))


def _is_key(error: ValidationError) -> bool:
    return bool(error.validator == "const")


def _no_branch(error: ValidationError, keys: list[ValidationError]) -> ValidationError:
    """One ``enum``-style error listing every constant the value could have had."""
    first = keys[0]
    allowed = [
        e.validator_value for e in keys if list(e.absolute_path) == list(first.absolute_path)
    ]
    return ValidationError(
        f"{first.instance!r} is not one of {allowed!r}",
        validator="enum",
        validator_value=allowed,
        instance=first.instance,
        path=list(first.absolute_path),
        schema={"enum": allowed},
    )


def describe(error: ValidationError, prefix: Sequence[str | int] = ()) -> str:
    """One line naming the field path, the rule and what would be accepted.

    ``prefix`` is where the validated value sits in a larger call (a batch operation).
    """
    error = _leaf(error)
    path = json_path([*prefix, *error.absolute_path])
    rule = str(error.validator)
    if rule == "additionalProperties":
        extras = sorted(
            set(error.instance) - set(error.schema.get("properties", {}))
            if isinstance(error.instance, dict)
            else []
        )
        accepted = ", ".join(sorted(error.schema.get("properties", {}))) or "none"
        where = f" in `{path}`" if path else ""
        names = ", ".join(f"`{name}`" for name in extras)
        return (
            f"unexpected argument {names}{where} (rule: additionalProperties false); "
            f"accepted arguments: {accepted}"
        )
    if rule == "required":
        return f"`{field_path(error, prefix)}` is missing (rule: required)"
    if rule == "enum":
        allowed = ", ".join(repr(value) for value in error.validator_value)
        return f"`{path}`: {shown(error.instance)} is not one of {allowed} (rule: enum)"
    if rule == "type":
        expected = error.validator_value
        return f"`{path}`: {shown(error.instance)} is not of type {expected!r} (rule: type)"
    if rule == UTF8_KEYWORD:
        return f"`{path}` {error.message} (rule: {UTF8_KEYWORD} {error.validator_value})"
    label = f"`{path}`" if path else "the arguments"
    message = error.message.replace(repr(error.instance), shown(error.instance))
    return f"{label}: {message} (rule: {rule} {shown(error.validator_value)})"


def field_path(error: ValidationError, prefix: Sequence[str | int] = ()) -> str:
    """The path of the field an error is about; for ``required``, the missing field's own."""
    path = json_path([*prefix, *error.absolute_path])
    if error.validator == "required":
        # jsonschema reports one error per missing property: "'name' is a required property".
        name = error.message.removesuffix(" is a required property")
        with contextlib.suppress(ValueError, SyntaxError):
            name = str(ast.literal_eval(name))
        return f"{path}.{name}" if path else name
    return path


def argument_errors(
    validator: Any, arguments: Mapping[str, Any], prefix: Sequence[str | int] = ()
) -> list[str]:
    """Every violation of the input schema, one line each, sorted by field path."""
    errors = sorted(
        (_leaf(error) for error in validator.iter_errors(arguments)),
        key=lambda e: (field_path(e), str(e.validator)),
    )
    return [describe(error, prefix) for error in errors]
