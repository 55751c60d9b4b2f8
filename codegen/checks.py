"""Fail fast on a broken contract, before anything is generated from it."""

from __future__ import annotations

import string
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from codegen.contract_file import METADATA_KEY
from codegen.model import TOOLSETS, Profile, Tool
from codegen.model_rules import patterns
from tmux_contract_mcp.ecma import UnsupportedPattern, translate

DIALECTS = ("python", "rust")  # every engine a pattern must mean the same in

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
PROFILE_KEYS = {"$comment", "text_unwraps", "instructions"}
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
    if tool.metadata.get("toolset") not in TOOLSETS:
        raise ContractError(f"{where}: {METADATA_KEY}.toolset must be one of {TOOLSETS}")
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
            for dialect in DIALECTS:
                try:
                    translate(pattern, dialect)
                except UnsupportedPattern as exc:
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


def check_profile(profile: Profile) -> None:
    """The profile description (``<profile>-profile.json``) holds only what the runtime reads."""
    where = f"contracts/{profile.name}-profile.json"
    description = profile.description
    unknown = set(description) - PROFILE_KEYS
    if unknown:
        raise ContractError(f"{where}: unknown keys {sorted(unknown)}")
    unwraps = description.get("text_unwraps")
    if unwraps is not None and (not isinstance(unwraps, str) or not unwraps):
        raise ContractError(f"{where}: text_unwraps must be a property name")
    lines = description.get("instructions", [])
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        raise ContractError(f"{where}: instructions must be a list of strings")
    for line in lines:
        try:
            fields = [name for _, name, spec, conv in string.Formatter().parse(line)]
        except ValueError as exc:
            raise ContractError(f"{where}: instruction {line!r}: {exc}") from exc
        if any(name is not None and not name.isidentifier() for name in fields):
            raise ContractError(f"{where}: instruction {line!r}: placeholders are plain names")
