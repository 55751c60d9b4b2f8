"""A profile's interface skeleton, and how an advertised tool is compared with it.

A skeleton (contracts/upstream/<profile>-profile-skeleton.json) records a
family's tools as its server lists them, with the descriptions (and, inside
schemas, the titles) taken out: everything else is the wire shape a profile
must match. This module removes the same keywords from our side and lists
every place where the two still differ, as JSON pointers.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM = ROOT / "contracts" / "upstream"
SKELETON_SUFFIX = "-profile-skeleton.json"

# Keywords a skeleton leaves out of schemas: documentation, not shape.
DOC_KEYWORDS = ("description", "title")
# Keywords whose value maps names to schemas (the names stay, even "title"), and
# keywords whose value is data rather than a schema (kept as they are).
NAMED_SCHEMAS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
VALUES = ("default", "const", "enum", "examples")
# What of a tool a skeleton fixes, as (its key, the advertised key).
COMPARED = (
    ("title", "title"),
    ("annotations", "annotations"),
    ("inputSchema", "inputSchema"),
    ("outputSchema", "outputSchema"),
    ("meta", "_meta"),
)


def skeleton_path(profile: str, upstream: Path = UPSTREAM) -> Path:
    return upstream / f"{profile}{SKELETON_SUFFIX}"


def load_skeleton(path: Path) -> dict[str, dict[str, Any]]:
    """The skeleton's tools by name."""
    document = json.loads(path.read_text(encoding="utf-8"))
    return {str(tool["name"]): dict(tool) for tool in document["tools"]}


def strip_docs(schema: Any) -> Any:
    """``schema`` without its ``description`` and ``title`` keywords, at any depth.

    A property named ``title`` or ``description`` is a name, not a keyword: it stays.
    """
    if isinstance(schema, list):
        return [strip_docs(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    stripped: dict[str, Any] = {}
    for key, value in schema.items():
        if key in DOC_KEYWORDS:
            continue
        if key in NAMED_SCHEMAS and isinstance(value, dict):
            stripped[key] = {name: strip_docs(sub) for name, sub in value.items()}
        elif key in VALUES:
            stripped[key] = value
        else:
            stripped[key] = strip_docs(value)
    return stripped


def differences(ours: Any, theirs: Any, at: str = "") -> Iterator[tuple[str, Any, Any]]:
    """Every (JSON pointer, our value, the skeleton's value) where two JSON values differ.

    Objects compare key by key (order aside). Arrays of the same length holding
    objects or arrays compare element by element; any other array differs as a
    whole (``required`` in another order is one difference, shown whole), since
    order is part of an array's value. A missing side is ``MISSING``.
    """
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in sorted(set(ours) | set(theirs)):
            where = f"{at}/{escape(key)}"
            if key not in ours:
                yield where, MISSING, theirs[key]
            elif key not in theirs:
                yield where, ours[key], MISSING
            else:
                yield from differences(ours[key], theirs[key], where)
    elif (
        isinstance(ours, list)
        and isinstance(theirs, list)
        and len(ours) == len(theirs)
        and all(isinstance(item, dict | list) for item in [*ours, *theirs])
    ):
        for index, (mine, other) in enumerate(zip(ours, theirs, strict=True)):
            yield from differences(mine, other, f"{at}/{index}")
    elif not same(ours, theirs):
        yield at, ours, theirs


def same(a: Any, b: Any) -> bool:
    """JSON equality: ``true`` is not ``1``, and ``1`` is ``1.0``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


def escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


class _Missing:
    def __repr__(self) -> str:
        return "(absent)"


MISSING: Any = _Missing()


@dataclass(frozen=True)
class Difference:
    """One place where an advertised tool is not what the skeleton records."""

    tool: str
    where: str  # e.g. "outputSchema/properties/createdAt/type"
    ours: Any
    skeleton: Any

    def __str__(self) -> str:
        return (
            f"{self.tool}: {self.where}: ours {shown(self.ours)}, skeleton {shown(self.skeleton)}"
        )


def shown(value: Any, limit: int = 160) -> str:
    if value is MISSING:
        return "(absent)"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def compare_tool(
    advertised: Mapping[str, Any], toolset: str | None, reference: Mapping[str, Any]
) -> list[Difference]:
    """Where ``advertised`` (a tool as tools/list gives it, descriptions and all) and its
    ``toolset`` differ from the skeleton's ``reference``.

    Only what the skeleton records is compared: a skeleton without titles, or
    without an output schema for a tool, fixes neither. ``meta`` is the
    exception: a tool the skeleton records without one has no ``_meta``.
    """
    name = str(advertised["name"])
    found: list[Difference] = []
    if "toolset" in reference and toolset is not None and toolset != reference["toolset"]:
        found.append(Difference(name, "toolset", toolset, reference["toolset"]))
    for theirs, ours in COMPARED:
        if theirs not in reference and theirs != "meta":
            continue
        expected = reference.get(theirs, MISSING)
        if expected is None and theirs == "outputSchema":
            continue  # the family declares none; ours is our own
        mine = advertised.get(ours, MISSING)
        if theirs in ("inputSchema", "outputSchema") and mine is not MISSING:
            mine = strip_docs(mine)
        if mine is MISSING or expected is MISSING:
            if mine is not expected:
                found.append(Difference(name, ours, mine, expected))
            continue
        found.extend(
            Difference(name, ours + where, a, b) for where, a, b in differences(mine, expected)
        )
    return found


@dataclass(frozen=True)
class Comparison:
    """A profile's advertised tools against its skeleton."""

    differences: tuple[Difference, ...]
    equal: tuple[str, ...]  # served and exactly the skeleton's
    unserved: tuple[str, ...]  # in the skeleton, not advertised
    extra: tuple[str, ...]  # advertised, not in the skeleton

    @property
    def served_match(self) -> bool:
        return not self.differences and not self.extra


def compare(
    advertised: Sequence[Mapping[str, Any]],
    toolsets: Mapping[str, str],
    skeleton: Mapping[str, Mapping[str, Any]],
) -> Comparison:
    """Every advertised tool against the skeleton (``toolsets``: tool name -> toolset)."""
    found: list[Difference] = []
    equal: list[str] = []
    names = set()
    for tool in sorted(advertised, key=lambda tool: str(tool["name"])):
        name = str(tool["name"])
        names.add(name)
        if name not in skeleton:
            continue
        mine = compare_tool(tool, toolsets.get(name), skeleton[name])
        found.extend(mine)
        if not mine:
            equal.append(name)
    return Comparison(
        tuple(found),
        tuple(equal),
        tuple(sorted(set(skeleton) - names)),
        tuple(sorted(names - set(skeleton))),
    )
