"""Fail fast on a broken contract, before anything is generated from it."""

from __future__ import annotations

import json
import string
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from codegen.contract_file import METADATA_KEY
from codegen.model import Profile, Tool
from codegen.model_rules import patterns
from codegen.patterns import PatternDiffers, check_pattern
from tmux_contract_mcp.contract_rules import PointerError, resolve, steps

ALLOWED_KEYS = {
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "_meta",
    METADATA_KEY,
}
PROFILE_SCHEMA = Path(__file__).resolve().parent / "schemas" / "profile.schema.json"
ANNOTATION_KEYS = {"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}


class ContractError(ValueError):
    """A contract that cannot be served as it stands."""


def _defaults(schema: Any, path: str) -> list[tuple[str, Any, dict[str, Any]]]:
    """Every (path, default, schema) in a schema tree, so defaults get checked too."""
    found: list[tuple[str, Any, dict[str, Any]]] = []
    if isinstance(schema, dict):
        if "default" in schema:
            found.append((path, schema["default"], schema))
        for key, value in schema.items():
            found.extend(_defaults(value, f"{path}/{key}"))
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            found.extend(_defaults(value, f"{path}/{index}"))
    return found


def check_tool(tool: Tool) -> None:
    where = tool.relpath
    contract = tool.contract
    unknown = set(contract) - ALLOWED_KEYS
    if unknown:
        raise ContractError(f"{where}: unknown keys {sorted(unknown)}")
    for key in ("name", "description", "inputSchema", "outputSchema", "annotations"):
        if key not in contract:
            raise ContractError(f"{where}: no {key!r}")
    if tool.path.stem != tool.name:
        raise ContractError(
            f"{where}: the file is named for {tool.path.stem!r}, the tool is {tool.name!r}"
        )
    if not isinstance(tool.metadata.get("toolset"), str):
        raise ContractError(f"{where}: {METADATA_KEY}.toolset must name one of its toolsets")
    for key in ("inputSchema", "outputSchema"):
        schema = contract[key]
        if not isinstance(schema, dict) or schema.get("type") != "object":
            raise ContractError(f"{where}: {key} must be an object schema")
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as exc:
            raise ContractError(
                f"{where}: {key} is not valid JSON Schema 2020-12: {exc.message}"
            ) from exc
        for pattern in patterns(schema):
            try:
                check_pattern(pattern)
            except PatternDiffers as exc:
                raise ContractError(f"{where}: {key}: {exc}") from None
        for path, default, subschema in _defaults(schema, key):
            if path.endswith("/properties/default"):
                continue  # a property named "default", not a default value
            local = {k: v for k, v in subschema.items() if k != "default"}
            if "$defs" in schema:
                local = {**local, "$defs": schema["$defs"]}
            errors = list(Draft202012Validator(local).iter_errors(default))
            if errors:
                raise ContractError(
                    f"{where}: default at {path} breaks its own schema: {errors[0].message}"
                )
    unknown_annotations = set(contract["annotations"]) - ANNOTATION_KEYS
    if unknown_annotations:
        raise ContractError(f"{where}: unknown annotations {sorted(unknown_annotations)}")
    _check_cut_to_served(tool)
    notes = tool.metadata.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) and n.strip() for n in notes):
        raise ContractError(f"{where}: {METADATA_KEY}.notes must be a list of paragraphs")


def _check_cut_to_served(tool: Tool) -> None:
    """Each pointer leads, inside ``_meta``, to a list of tool names: only ``_meta`` may be
    cut, since schemas and models are generated once for every selection."""
    pointers = tool.metadata.get("cut_to_served", [])
    where = f"{tool.relpath}: {METADATA_KEY}.cut_to_served"
    if not isinstance(pointers, list) or not all(isinstance(p, str) for p in pointers):
        raise ContractError(f"{where} must be a list of JSON pointers")
    for pointer in pointers:
        try:
            if steps(pointer)[0] != "_meta":
                raise PointerError(f"{pointer!r} is outside _meta")
            resolve(tool.advertised, pointer)
        except PointerError as exc:
            raise ContractError(f"{where}: {exc}") from None


@cache
def profile_schema() -> dict[str, Any]:
    value = json.loads(PROFILE_SCHEMA.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(value)
    return dict(value)


def _unique(where: str, what: str, names: Sequence[str]) -> None:
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ContractError(f"{where}: {what} {', '.join(twice)} listed more than once")


def check_profile(profile: Profile) -> None:
    """The profile description (``<profile>-profile.json``) against its schema
    (codegen/schemas/profile.schema.json), and its tools against its toolsets."""
    where = profile.description_relpath
    description = profile.description
    errors = sorted(
        Draft202012Validator(profile_schema()).iter_errors(description),
        key=lambda e: list(e.absolute_path),
    )
    if errors:
        at = "/".join(str(part) for part in errors[0].absolute_path) or "(the description)"
        raise ContractError(f"{where}: {at}: {errors[0].message}")
    _unique(where, "toolsets", profile.toolsets)
    _unique(where, "environment variables", [each.name for each in profile.environment])
    for line in description["instructions"]:
        try:
            fields = [name for _, name, spec, conv in string.Formatter().parse(line)]
        except ValueError as exc:
            raise ContractError(f"{where}: instruction {line!r}: {exc}") from exc
        if any(name is not None and not name.isidentifier() for name in fields):
            raise ContractError(f"{where}: instruction {line!r}: placeholders are plain names")
    check_effects(profile)
    names = {tool.name for tool in profile.tools}
    for tool in profile.tools:
        if tool.toolset not in profile.toolsets:
            raise ContractError(
                f"{tool.relpath}: {METADATA_KEY}.toolset {tool.toolset!r} is not a toolset of "
                f"{where}: {', '.join(profile.toolsets)}"
            )
        for pointer in tool.cut_to_served:
            strangers = sorted(set(resolve(tool.advertised, pointer)) - names)
            if strangers:
                raise ContractError(
                    f"{tool.relpath}: {pointer} names {', '.join(strangers)}, not tools of "
                    f"profile {profile.name!r}: a name the profile never serves would always be cut"
                )


def check_effects(profile: Profile) -> None:
    """Every tool the profile's ``effects`` names is a tool of the profile."""
    effects = profile.effects
    if effects is None:
        return
    names = {tool.name for tool in profile.tools}
    named = [*effects["read_only"], *effects["forceful"], *effects["whole_server"]]
    named += [rule["tool"] for rule in effects["unscopable"]]
    strangers = sorted(set(named) - names)
    if strangers:
        raise ContractError(
            f"{profile.description_relpath}: effects name {', '.join(strangers)}, "
            f"not tools of profile {profile.name!r}"
        )


def check_profiles(profiles: Sequence[Profile]) -> None:
    """Exactly one profile is the default."""
    defaults = [profile.name for profile in profiles if profile.is_default]
    if len(defaults) != 1:
        raise ContractError(
            f'exactly one profile description must say "default": true; '
            f"found {len(defaults)}: {', '.join(defaults) or 'none'}"
        )
