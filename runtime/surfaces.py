"""A profile's resources and prompts at run time: registry entry, contract, compiled checks.

Like tools, they are looked up by the names and URIs the generated registry
gives; nothing here knows any of them.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from .toolspec import PromptEntry, ResourceEntry
from .uritemplate import UriTemplate
from .validation import Schema

if TYPE_CHECKING:
    import mcp.types as types

    from .guard import Guard


def _admits_string(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return "string" in (kind if isinstance(kind, list) else [kind])


@dataclass
class Resource:
    """One resource or resource template of the served profile."""

    entry: ResourceEntry
    contract: dict[str, Any]  # as advertised
    variables_schema: dict[str, Any]
    result_schema: dict[str, Any] | None
    guard: Guard | None = None  # the configuration file's scope (runtime/guard.py)

    @property
    def is_template(self) -> bool:
        return "uriTemplate" in self.contract

    @cached_property
    def advertised(self) -> types.Resource | types.ResourceTemplate:
        import mcp.types as types  # loaded when served, not for --list-tools

        if self.is_template:
            return types.ResourceTemplate.model_validate(self.contract)
        return types.Resource.model_validate(self.contract)

    @cached_property
    def template(self) -> UriTemplate:
        return UriTemplate.parse(self.entry.uri)

    def __post_init__(self) -> None:
        properties = self.variables_schema.get("properties", {})
        # One check per variable, so a bare ``%`` can be told from an escape.
        self.variable_checks = {name: Schema(schema) for name, schema in properties.items()}
        self.variables = Schema(self.variables_schema)
        self.result = Schema(self.result_schema or {})

    def accepts(self, name: str, value: str) -> bool:
        check = self.variable_checks.get(name)
        return check is not None and check.accepts(value)

    @cached_property
    def _models(self) -> Any:
        return importlib.import_module(self.entry.models_module)

    @property
    def variables_model(self) -> Any:
        return getattr(self._models, self.entry.variables_model)

    @property
    def result_model(self) -> Any:
        if self.entry.result_model is None:
            return None
        return getattr(self._models, self.entry.result_model)


@dataclass
class Prompt:
    """One prompt of the served profile."""

    entry: PromptEntry
    contract: dict[str, Any]  # as advertised
    arguments_schema: dict[str, Any]

    @cached_property
    def advertised(self) -> types.Prompt:
        import mcp.types as types

        return types.Prompt.model_validate(self.contract)

    @cached_property
    def json_encoded(self) -> frozenset[str]:
        """Arguments whose values are not strings, so arrive JSON-encoded."""
        properties = self.arguments_schema.get("properties", {})
        return frozenset(name for name, schema in properties.items() if not _admits_string(schema))

    def __post_init__(self) -> None:
        self.arguments = Schema(self.arguments_schema)

    @property
    def arguments_model(self) -> Any:
        module = importlib.import_module(self.entry.models_module)
        return getattr(module, self.entry.arguments_model)
