"""Resources and prompts: contracts loaded into small objects the templates read.

A resource contract is the resource (or resource template) object exactly as
advertised, plus under ``METADATA_KEY`` the JSON Schema of its URI variables,
the completion kind of each variable that has one, and for a JSON resource the
schema of its result. A prompt contract is the prompt object as advertised,
plus the JSON Schema of its argument values and their completion kinds.

A result schema may point into a tool contract with a relative ``$ref``
(``../get_pane_info.json#/outputSchema``), so a resource and the tool that
answers the same question cannot drift apart; the generator inlines those.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegen import naming
from codegen.contract_file import METADATA_KEY, advertised, read_contract
from codegen.model import Argument

JSON_MIME = "application/json"

# RFC 6570 expressions this server understands: {name} in the path, {?a,b} as the query.
EXPRESSION = re.compile(r"\{([?]?)([A-Za-z_][A-Za-z0-9_]*(?:,[A-Za-z_][A-Za-z0-9_]*)*)\}")


def template_variables(template: str) -> tuple[list[str], list[str]]:
    """(path variables, query variables) of a URI template, in order of appearance."""
    path: list[str] = []
    query: list[str] = []
    for operator, names in EXPRESSION.findall(template):
        (query if operator == "?" else path).extend(names.split(","))
    return path, query


def resolve_refs(schema: Any, base: Path, seen: tuple[Path, ...] = ()) -> Any:
    """``schema`` with every ``{"$ref": "<file>#<pointer>"}`` replaced by what it points at."""
    if isinstance(schema, list):
        return [resolve_refs(item, base, seen) for item in schema]
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str) and not ref.startswith("#"):
        if len(schema) != 1:
            raise ValueError(f"{ref}: a $ref into another contract must stand alone")
        target_file, _, pointer = ref.partition("#")
        path = (base / target_file).resolve()
        if path in seen:
            raise ValueError(f"{ref}: refers back to itself")
        target: Any = read_contract(path)
        for part in pointer.strip("/").split("/") if pointer.strip("/") else []:
            if not isinstance(target, dict) or part not in target:
                raise ValueError(f"{ref}: {path.name} has nothing at {pointer}")
            target = target[part]
        if _has_local_ref(target):
            raise ValueError(f"{ref}: the schema it points at uses local $refs")
        return resolve_refs(copy.deepcopy(target), path.parent, (*seen, path))
    return {key: resolve_refs(value, base, seen) for key, value in schema.items()}


def _has_local_ref(schema: Any) -> bool:
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            return True
        return any(_has_local_ref(value) for value in schema.values())
    if isinstance(schema, list):
        return any(_has_local_ref(item) for item in schema)
    return False


def _arguments(schema: dict[str, Any]) -> list[Argument]:
    """The properties of an object schema, in declaration order, as a page lists them."""
    required = set(schema.get("required", []))
    properties = schema.get("properties", {})
    return [Argument(name, properties[name], name in required, schema) for name in properties]


@dataclass(frozen=True)
class Resource:
    """One resource or resource template of a profile."""

    profile: str
    path: Path
    relpath: str
    contract: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.contract["name"])

    @property
    def advertised(self) -> dict[str, Any]:
        return advertised(self.contract)

    @property
    def metadata(self) -> dict[str, Any]:
        return dict(self.contract.get(METADATA_KEY, {}))

    @property
    def title(self) -> str | None:
        title = self.contract.get("title")
        return str(title) if title else None

    @property
    def description(self) -> str:
        return str(self.contract.get("description", ""))

    @property
    def mime_type(self) -> str:
        return str(self.contract["mimeType"])

    @property
    def is_template(self) -> bool:
        return "uriTemplate" in self.contract

    @property
    def uri(self) -> str:
        """The URI template, or the fixed URI of a resource without variables."""
        return str(self.contract["uriTemplate"] if self.is_template else self.contract["uri"])

    @property
    def is_json(self) -> bool:
        return self.mime_type == JSON_MIME

    @property
    def variables_schema(self) -> dict[str, Any]:
        return dict(
            self.metadata.get(
                "variables", {"type": "object", "properties": {}, "additionalProperties": False}
            )
        )

    @property
    def variables(self) -> list[Argument]:
        return _arguments(self.variables_schema)

    @property
    def complete(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in self.metadata.get("complete", {}).items()}

    @property
    def result_schema(self) -> dict[str, Any] | None:
        """The result's JSON Schema with references into tool contracts inlined."""
        if "result" not in self.metadata:
            return None
        resolved = resolve_refs(self.metadata["result"], self.path.parent)
        return dict(resolved)

    @property
    def method(self) -> str:
        return naming.resource_method(self.name)

    @property
    def updates(self) -> str | None:
        """When a subscriber is told the resource changed; None: it cannot be subscribed to."""
        updates = self.metadata.get("updates")
        return str(updates) if updates else None

    @property
    def watch_method(self) -> str | None:
        """The handler method that watches it for subscribers (None: not subscribable)."""
        return naming.resource_watch_method(self.name) if self.updates else None

    @property
    def module(self) -> str:
        return naming.resource_module(self.name)

    @property
    def models_module(self) -> str:
        return naming.models_module(self.profile, self.module)

    @property
    def variables_class(self) -> str:
        return naming.resource_variables_class(self.name)

    @property
    def result_class(self) -> str | None:
        return naming.resource_result_class(self.name) if self.is_json else None

    @property
    def returns(self) -> str:
        """The Python type the handler method answers with."""
        return self.result_class or "str"


@dataclass(frozen=True)
class Prompt:
    """One prompt of a profile."""

    profile: str
    path: Path
    relpath: str
    contract: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.contract["name"])

    @property
    def advertised(self) -> dict[str, Any]:
        return advertised(self.contract)

    @property
    def metadata(self) -> dict[str, Any]:
        return dict(self.contract.get(METADATA_KEY, {}))

    @property
    def title(self) -> str | None:
        title = self.contract.get("title")
        return str(title) if title else None

    @property
    def description(self) -> str:
        return str(self.contract.get("description", ""))

    @property
    def arguments(self) -> list[dict[str, Any]]:
        """The advertised arguments: name, description, required."""
        return [dict(argument) for argument in self.contract.get("arguments", [])]

    @property
    def arguments_schema(self) -> dict[str, Any]:
        return dict(self.metadata["arguments"])

    @property
    def values(self) -> list[Argument]:
        """Each argument with the schema its value must meet, in advertised order."""
        schema = self.arguments_schema
        described = {a["name"]: a.get("description", "") for a in self.arguments}
        return [
            Argument(
                argument.name,
                {**argument.schema, "description": described.get(argument.name, "")},
                argument.required,
                schema,
            )
            for argument in _arguments(schema)
        ]

    @property
    def complete(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in self.metadata.get("complete", {}).items()}

    @property
    def method(self) -> str:
        return naming.prompt_method(self.name)

    @property
    def module(self) -> str:
        return naming.prompt_module(self.name)

    @property
    def models_module(self) -> str:
        return naming.models_module(self.profile, self.module)

    @property
    def arguments_class(self) -> str:
        return naming.prompt_arguments_class(self.name)


def load_resources(contracts_root: Path, profile: str, base: Path) -> tuple[Resource, ...]:
    found = [
        Resource(profile, path, path.relative_to(base).as_posix(), read_contract(path))
        for path in sorted((contracts_root / profile / "resources").glob("*.json"))
    ]
    return tuple(sorted(found, key=lambda resource: resource.name))


def load_prompts(contracts_root: Path, profile: str, base: Path) -> tuple[Prompt, ...]:
    found = [
        Prompt(profile, path, path.relative_to(base).as_posix(), read_contract(path))
        for path in sorted((contracts_root / profile / "prompts").glob("*.json"))
    ]
    return tuple(sorted(found, key=lambda prompt: prompt.name))
