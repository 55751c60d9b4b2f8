"""Fail fast on a broken resource or prompt contract, before anything is generated from it.

Each file is checked against its meta-schema (codegen/schemas/), then for what
a meta-schema cannot say: the schemas inside are valid JSON Schema 2020-12 with
defaults that meet them, the URI template's variables are exactly the declared
ones, the advertised prompt arguments agree with the schema of their values.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from codegen.checks import ContractError, _defaults
from codegen.model_rules import patterns
from codegen.patterns import PatternDiffers, check_pattern
from codegen.surfaces import Prompt, Resource, template_variables

SCHEMAS = Path(__file__).resolve().parent / "schemas"


@cache
def meta_schema(kind: str) -> dict[str, Any]:
    value = json.loads((SCHEMAS / f"{kind}.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(value)
    return dict(value)


def _against_meta_schema(kind: str, where: str, contract: dict[str, Any]) -> None:
    validator = Draft202012Validator(meta_schema(kind))
    errors = sorted(validator.iter_errors(contract), key=lambda e: list(e.absolute_path))
    if errors:
        error = errors[0]
        at = "/".join(str(part) for part in error.absolute_path) or "(the contract)"
        raise ContractError(f"{where}: {at}: {error.message}")


def _schema(where: str, label: str, schema: Any) -> None:
    """A valid 2020-12 object schema whose defaults meet it, accepting nothing undeclared."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise ContractError(f"{where}: {label} must be an object schema")
    if schema.get("additionalProperties") is not False:
        raise ContractError(f"{where}: {label} must set additionalProperties to false")
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise ContractError(
            f"{where}: {label} is not valid JSON Schema 2020-12: {exc.message}"
        ) from exc
    for pattern in patterns(schema):
        try:
            check_pattern(pattern)
        except PatternDiffers as exc:
            raise ContractError(f"{where}: {label}: {exc}") from None
    for path, default, subschema in _defaults(schema, label):
        local = {k: v for k, v in subschema.items() if k != "default"}
        errors = list(Draft202012Validator(local).iter_errors(default))
        if errors:
            raise ContractError(
                f"{where}: default at {path} breaks its own schema: {errors[0].message}"
            )


def _completions(where: str, complete: dict[str, str], names: list[str]) -> None:
    unknown = sorted(set(complete) - set(names))
    if unknown:
        raise ContractError(f"{where}: completion for undeclared {', '.join(unknown)}")


def _admits_string(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    return "string" in kinds


def check_resource(resource: Resource) -> None:
    where = resource.relpath
    _against_meta_schema("resource", where, resource.contract)
    if resource.path.stem != resource.name:
        raise ContractError(
            f"{where}: the file is named for {resource.path.stem!r}, "
            f"the resource is {resource.name!r}"
        )
    variables = resource.variables_schema
    _schema(where, "variables", variables)
    path_vars, query_vars = template_variables(resource.uri)
    declared = list(variables.get("properties", {}))
    if sorted(path_vars + query_vars) != sorted(declared):
        raise ContractError(
            f"{where}: the URI names {sorted(path_vars + query_vars)}, "
            f"the variables schema declares {sorted(declared)}"
        )
    required = set(variables.get("required", []))
    if required != set(path_vars):
        raise ContractError(
            f"{where}: exactly the path variables {sorted(path_vars)} must be required "
            f"(query variables are optional); required is {sorted(required)}"
        )
    for name, schema in variables.get("properties", {}).items():
        if not _admits_string(schema):
            raise ContractError(
                f"{where}: variable {name!r} must be a string (it comes from a URI)"
            )
    _completions(where, resource.complete, declared)
    if resource.is_json != ("result" in resource.metadata):
        raise ContractError(
            f"{where}: a result schema is required for, and only for, application/json"
        )
    if resource.is_json:
        try:
            result = resource.result_schema
            Draft202012Validator.check_schema(result)
        except (ValueError, OSError) as exc:
            raise ContractError(f"{where}: result: {exc}") from exc
        except SchemaError as exc:
            raise ContractError(
                f"{where}: result is not valid JSON Schema 2020-12: {exc.message}"
            ) from exc


def check_prompt(prompt: Prompt) -> None:
    where = prompt.relpath
    _against_meta_schema("prompt", where, prompt.contract)
    if prompt.path.stem != prompt.name:
        raise ContractError(
            f"{where}: the file is named for {prompt.path.stem!r}, the prompt is {prompt.name!r}"
        )
    schema = prompt.arguments_schema
    _schema(where, "arguments schema", schema)
    advertised = [argument["name"] for argument in prompt.arguments]
    declared = list(schema.get("properties", {}))
    if advertised != declared:
        raise ContractError(
            f"{where}: the arguments {advertised} and their schema's properties {declared} "
            "must be the same, in the same order"
        )
    required = set(schema.get("required", []))
    for argument in prompt.arguments:
        if argument["required"] != (argument["name"] in required):
            raise ContractError(
                f"{where}: argument {argument['name']!r} is advertised with required "
                f"{argument['required']}, its schema disagrees"
            )
    _completions(where, prompt.complete, declared)
