"""The calls a tool is fuzzed with, drawn by hypothesis from the tool's own input schema.

A case is a valid instance (``hypothesis_jsonschema.from_schema``), that instance with one
thing broken (a wrong type, a required property left out, an unexpected one, a number out
of bounds, a string too long in code points or in UTF-8 bytes, a NUL, a lone surrogate, a
value outside an enum or a pattern, too many or too few items), or that instance with an
injection string in one of its strings (a tmux ``;``, ``#{}``, ``#()``, ``$()``, backticks,
quotes, newlines), each of which would create a marker file if anything ran it. Whether a
case is valid is never assumed from how it was made: the verdict (``schemas.Verdict``) is
taken on the arguments actually sent.

Two things are filled in only when the case runs (``resolve``): the marker path, and, in
about half the cases, ids and names of the live tmux server (``live``).

``from_schema`` reads ``pattern`` with Python's ``re`` (whose ``$`` also matches before a
final newline) and knows nothing of ``x-libtmux-max-utf8-bytes``; the instances it draws
are taken as drawn, and the verdict decides what they are.
"""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisDeprecationWarning
from hypothesis_jsonschema import from_schema

from scripts.fuzz.schemas import (
    Path,
    Slot,
    allowed_types,
    json_type,
    replaced,
    slots,
    with_key,
    without,
)

MARK = "@@MARK@@"  # replaced by the path of a marker file that must never appear
LIVE = "@@LIVE@@"  # replaced by a live id or name for the field it sits in

# Each would create the marker file if a shell or tmux ran any part of it.
INJECTIONS = (
    f"x; run-shell 'touch {MARK}'",
    f"x \\; run-shell 'touch {MARK}'",
    f"#(touch {MARK})",
    f"#{{pane_id}}#(touch {MARK})",
    f"#[fg=red]#(touch {MARK})",
    f"$(touch {MARK})",
    f"`touch {MARK}`",
    f"\ntouch {MARK}\n",
    f"'; touch {MARK}; '",
    f'"; touch {MARK}; "',
    f'x" ; run-shell "touch {MARK}" ; display-message -p "',
    f"x\rtouch {MARK}\r",
    f"{LIVE}'; run-shell 'touch {MARK}'; display-message -p '",
    f"{LIVE} ; touch {MARK}",
    f"{LIVE}#(touch {MARK})",
)

WRONG_TYPED: tuple[Any, ...] = (0, 1.5, "1", True, None, [], {}, ["x"], {"a": 1})
BROKEN_TEXT = ("\x00", "\ud800", "\udfff", "\udbff\x00")
HUGE = (2**63, -(2**63) - 1, 10**30, -(10**30), 1e308, -1e308)


@dataclass(frozen=True)
class Case:
    """One call to make. ``target`` is the path the case changed (never filled with live
    values); ``names`` are the field names a refusal may name for it."""

    tool: str
    how: str
    arguments: dict[str, Any]
    target: Path | None = None
    names: tuple[str, ...] = ()
    live: bool = False
    live_seed: int = 0


Candidate = tuple[str, Any, Path | None, tuple[str, ...]]  # label, arguments, target, names


def _leaf(path: Path) -> tuple[str, ...]:
    names = [step for step in path if isinstance(step, str)]
    return (names[-1],) if names else ()


def _where(path: Path) -> str:
    return ".".join(str(step) for step in path) or "the arguments"


def _string_breaks(slot: Slot, base: Any) -> dict[str, list[Candidate]]:
    value, schema, path = slot.value, slot.schema, slot.path
    names = _leaf(path)
    found: dict[str, list[Candidate]] = {}

    def add(category: str, label: str, new: Any) -> None:
        found.setdefault(category, []).append((label, replaced(base, path, new), path, names))

    middle = len(value) // 2
    for broken in BROKEN_TEXT:
        kind = "NUL" if broken == "\x00" else "lone surrogate"
        add(kind, f"{kind} in {_where(path)}", value[:middle] + broken + value[middle:])
    limit = schema.get("maxLength")
    if isinstance(limit, int):
        add("too long", f"{limit + 1} code points", "a" * (limit + 1))
    size = schema.get("x-libtmux-max-utf8-bytes")
    if isinstance(size, int):
        add("too many bytes", "two-byte characters past the limit", "é" * (size // 2 + 1))
        add("too many bytes", "four-byte characters past the limit", "😀" * (size // 4 + 1))
        add("too many bytes", "exactly the limit", "é" * (size // 2) + "a" * (size % 2))
    add("too long", "20000 code points", "é" * 20000)
    if isinstance(schema.get("enum"), list):
        add("enum", "outside the enum", "not-one-of-them")
    if isinstance(schema.get("pattern"), str):
        add("pattern", "a final newline", value + "\n")
        add("pattern", "empty", "")
    return found


def _number_breaks(slot: Slot, base: Any) -> list[Candidate]:
    schema, path = slot.schema, slot.path
    names = _leaf(path)
    values: list[Any] = list(HUGE)
    for key, step in (("minimum", -1), ("maximum", 1)):
        if isinstance(schema.get(key), int | float):
            values.append(schema[key] + step)
    for key in ("exclusiveMinimum", "exclusiveMaximum"):
        if isinstance(schema.get(key), int | float):
            values.append(schema[key])
    if "integer" in (allowed_types(schema) or set()) and "number" not in (
        allowed_types(schema) or set()
    ):
        values.append(0.5)
    return [(f"{_where(path)} = {v!r}", replaced(base, path, v), path, names) for v in values]


def _object_breaks(slot: Slot, base: Any) -> dict[str, list[Candidate]]:
    value, schema, path = slot.value, slot.schema, slot.path
    found: dict[str, list[Candidate]] = {}
    for key in schema.get("required", []):
        if key in value:
            found.setdefault("missing", []).append(
                (f"without {key}", without(base, path, key), (*path, key), (key,))
            )
    properties = schema.get("properties", {})
    if schema.get("additionalProperties") is False:
        found.setdefault("unexpected", []).append(
            ("an unexpected key", with_key(base, path, "unexpected_key", 1), path,
             ("unexpected_key",))
        )  # fmt: skip
    elif not properties:  # a free mapping: its keys are text too (NUL only: the SDK client
        # rewrites or refuses a lone surrogate in a key, so one could never be sent)
        for broken in ("\x00",):
            found.setdefault("key", []).append(
                ("a key breaking the text rule", with_key(base, path, f"k{broken}", "v"), path,
                 _leaf(path))
            )  # fmt: skip
    for key, sub in properties.items():
        if key in value:
            continue
        types = allowed_types(sub)
        for sample in WRONG_TYPED:
            if types is not None and json_type(sample) not in types:
                found.setdefault("type", []).append(
                    (f"{key} = {sample!r}", with_key(base, path, key, sample), (*path, key), (key,))
                )
                break
    return found


def broken_variants(schema: Mapping[str, Any], base: dict[str, Any]) -> dict[str, list[Candidate]]:
    """Every single-fault variant of ``base``, grouped by the kind of fault."""
    found: dict[str, list[Candidate]] = {}

    def merge(more: Mapping[str, list[Candidate]]) -> None:
        for category, items in more.items():
            found.setdefault(category, []).extend(items)

    for slot in slots(schema, base):
        types = allowed_types(slot.declared)
        if slot.path and types is not None:
            wrong = [s for s in WRONG_TYPED if json_type(s) not in types]
            names = _leaf(slot.path)
            where = _where(slot.path)
            merge(
                {"type": [(f"{where} = {s!r}", replaced(base, slot.path, s), slot.path, names)
                          for s in wrong]}
            )  # fmt: skip
        value = slot.value
        if isinstance(value, str):
            merge(_string_breaks(slot, base))
        elif isinstance(value, int | float) and not isinstance(value, bool):
            merge({"bounds": _number_breaks(slot, base)})
        elif isinstance(value, dict):
            merge(_object_breaks(slot, base))
        elif isinstance(value, list):
            names = _leaf(slot.path)
            low, high = slot.schema.get("minItems"), slot.schema.get("maxItems")
            if isinstance(low, int) and low > 0:
                merge({"items": [("too few items", replaced(base, slot.path, value[: low - 1]),
                                  slot.path, names)]})  # fmt: skip
            if isinstance(high, int) and value:
                more = (value * (high + 1))[: high + 1]
                merge({"items": [("too many items", replaced(base, slot.path, more), slot.path,
                                  names)]})  # fmt: skip
    return found


def injected_variants(schema: Mapping[str, Any], base: dict[str, Any]) -> list[Candidate]:
    """``base`` with one of its strings, or one string property it left out, made an
    injection string."""
    found: list[Candidate] = []
    for slot in slots(schema, base):
        if isinstance(slot.value, str) and slot.path:
            for text in INJECTIONS:
                found.append(
                    (f"injection in {_where(slot.path)}", replaced(base, slot.path, text),
                     slot.path, _leaf(slot.path))
                )  # fmt: skip
        elif isinstance(slot.value, dict):
            for key, sub in slot.schema.get("properties", {}).items():
                if key not in slot.value and "string" in (allowed_types(sub) or set()):
                    for text in INJECTIONS:
                        found.append(
                            (f"injection in {_where((*slot.path, key))}",
                             with_key(base, slot.path, key, text),
                             (*slot.path, key), (key,))
                        )  # fmt: skip
    return found


KINDS = ("valid", "broken", "injected")
DRAWN = {"maxProperties": 3, "maxItems": 4, "maxLength": 24}  # sizes of what is drawn
ANNOTATIONS = ("description", "title", "default", "examples", "$comment")


def bounded(schema: Any) -> Any:
    """A copy of ``schema`` to draw from, cheaper to draw: free mappings, arrays and strings
    kept small (the breaking variants still reach every bound of the real schema), no
    annotations, an ``anyOf`` of bare types as one type list, and ``oneOf`` read as ``anyOf``
    (an instance matching two alternatives is simply judged invalid by the verdict)."""
    if isinstance(schema, list):
        return [bounded(item) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    copy: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ANNOTATIONS:
            continue
        if key in ("properties", "patternProperties", "$defs") and isinstance(value, Mapping):
            copy[key] = {name: bounded(sub) for name, sub in value.items()}
        elif key in ("enum", "const", "required"):
            copy[key] = value
        else:
            copy["anyOf" if key == "oneOf" else key] = bounded(value)
    kinds = copy.get("type")
    kinds = {kinds} if isinstance(kinds, str) else set(kinds or ())
    for kind, key, floor in (
        ("array", "maxItems", "minItems"),
        ("string", "maxLength", "minLength"),
    ):
        if kind in kinds:
            copy[key] = min(copy.get(key, DRAWN[key]), max(DRAWN[key], copy.get(floor, 0)))
    if "object" in kinds and "properties" not in copy:
        copy["maxProperties"] = min(copy.get("maxProperties", DRAWN["maxProperties"]), 3)
    branches = copy.get("anyOf")
    if isinstance(branches, list) and all(
        set(b) <= {"type", *DRAWN} and isinstance(b.get("type"), str) for b in branches
    ):  # an anyOf of bare types: one type list, read once instead of at every draw
        del copy["anyOf"]
        copy["type"] = [b["type"] for b in branches]
        for branch in branches:
            copy.update({k: v for k, v in branch.items() if k != "type"})
    return copy


Siblings = Mapping[str, st.SearchStrategy[Any]]  # tool name -> its valid instances


def _calls(properties: Mapping[str, Any], siblings: Siblings) -> st.SearchStrategy[Any] | None:
    """For an object that names a tool (a string ``tool``) beside that tool's arguments (a
    free-form ``arguments`` object), calls of the profile's own tools with their valid
    arguments: a batch's operations. None for any other object."""
    tool, arguments = properties.get("tool"), properties.get("arguments")
    if not siblings or not isinstance(tool, Mapping) or not isinstance(arguments, Mapping):
        return None
    if "const" in tool or "enum" in tool or "properties" in arguments:
        return None
    if "string" not in (allowed_types(tool) or set()):
        return None
    return st.sampled_from(sorted(siblings)).flatmap(
        lambda name: st.fixed_dictionaries({"tool": st.just(name), "arguments": siblings[name]})
    )


def instances(schema: Any, siblings: Siblings | None = None) -> st.SearchStrategy[Any]:
    """Valid instances of ``schema``: objects, arrays and alternatives taken apart here and
    every other part drawn by ``from_schema``. (``from_schema`` builds the strategy of an
    object's properties and an array's items again at every draw, which made one batch
    tool's four draws take seconds.) With ``siblings``, an object naming a tool beside its
    arguments is, half the time, a call of one of them (``_calls``)."""
    siblings = siblings or {}
    if not isinstance(schema, Mapping):
        return from_schema(bool(schema))
    rest = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
    branches = schema.get("anyOf", schema.get("oneOf"))
    if isinstance(branches, list) and branches and all(isinstance(b, Mapping) for b in branches):
        return st.one_of([instances({**rest, **branch}, siblings) for branch in branches])
    kinds = schema.get("type")
    structured = set(schema) - {"type", "properties", "required", "additionalProperties",
                                "items", "minItems", "maxItems", "maxProperties"}  # fmt: skip
    if kinds == "object" and isinstance(schema.get("properties"), Mapping) and not structured:
        required = set(schema.get("required", []))
        properties = schema["properties"]
        plain = st.fixed_dictionaries(
            {k: instances(v, siblings) for k, v in properties.items() if k in required},
            optional={
                k: instances(v, siblings) for k, v in properties.items() if k not in required
            },
        )
        calls = _calls(properties, siblings)
        return plain if calls is None else st.one_of(plain, calls)
    if kinds == "array" and isinstance(schema.get("items"), Mapping) and not structured:
        return st.lists(
            instances(schema["items"], siblings),
            min_size=schema.get("minItems", 0),
            max_size=schema.get("maxItems", DRAWN["maxItems"]),
        )
    return from_schema(dict(schema))


def clean(value: Any) -> Any:
    """``value`` without NUL (hypothesis draws it in text; the breaking variants add it)."""
    if isinstance(value, str):
        return value.replace("\x00", "0")
    if isinstance(value, dict):
        return {clean(key): clean(item) for key, item in value.items()}
    if isinstance(value, list):
        return [clean(item) for item in value]
    return value


def _lazy(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    """Instances of ``schema``, built only when first drawn."""
    return st.deferred(lambda: instances(bounded(schema)))


def case_strategy(
    tool: str, schema: Mapping[str, Any], siblings: Mapping[str, Any] | None = None
) -> st.SearchStrategy[Case]:
    """Cases for ``tool``; ``siblings`` are the input schemas of the profile's tools (what a
    batch's operations may call)."""
    nested = {name: _lazy(sub) for name, sub in (siblings or {}).items() if name != tool}
    drawn = instances(bounded(schema), nested)

    @st.composite
    def build(draw: Callable[[st.SearchStrategy[Any]], Any]) -> Case:
        base = clean(draw(drawn))
        if not isinstance(base, dict):
            base = {}
        kind = draw(st.sampled_from(KINDS))
        live = draw(st.booleans())
        live_seed = draw(st.integers(0, 2**20))
        label, arguments, target, names = "valid", base, None, ()
        if kind == "broken":
            variants = broken_variants(schema, base)
            if variants:
                category = draw(st.sampled_from(sorted(variants)))
                label, arguments, target, names = draw(st.sampled_from(variants[category]))
                label = f"{category}: {label}"
        elif kind == "injected":
            injected = injected_variants(schema, base)
            if injected:
                label, arguments, target, names = draw(st.sampled_from(injected))
        if not isinstance(arguments, dict):
            arguments = {}
        return Case(tool, label, arguments, target, names, live, live_seed)

    return build()


def draw_cases(
    tool: str,
    schema: Mapping[str, Any],
    examples: int,
    run_seed: int,
    siblings: Mapping[str, Any] | None = None,
) -> list[Case]:
    """``examples`` cases for ``tool``, the same ones for the same seed and schemas."""
    drawn: list[Case] = []
    strategy = case_strategy(tool, schema, siblings)

    @seed(zlib.crc32(f"{run_seed}:{tool}".encode()))
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(case: Case) -> None:
        drawn.append(case)

    with warnings.catch_warnings():  # hypothesis-jsonschema's own use of hypothesis
        warnings.simplefilter("ignore", HypothesisDeprecationWarning)
        collect()
    return drawn
