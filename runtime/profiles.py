"""A profile at run time: its generated registry, its contracts and its handlers.

Everything here is generic: profiles and their tools are looked up by the
names the generated code gives (``generated.PROFILES`` and each registry).
Contracts load and their schemas compile once, when the profile loads; models load on a
tool's first call.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from typing import TYPE_CHECKING, Any

from .contract_rules import cut_lists
from .generated import DEFAULT_PROFILE, PROFILES
from .handlers.compose import CompositionError
from .seam import HandlerSet
from .surfaces import Prompt, Resource
from .toolsets import Toolsets, visible
from .toolspec import EnvironmentEntry, ToolEntry
from .validation import Schema

if TYPE_CHECKING:
    import mcp.types as types

    from .dispatch import ServedRuntime
    from .guard import Guard

__all__ = ["DEFAULT_PROFILE", "PROFILES", "Profile", "ProfileUnavailable", "Tool", "load_profile"]


class ProfileUnavailable(RuntimeError):
    """The profile cannot be served (unknown, or a tool has no handler)."""


@dataclass(frozen=True)
class Checks:
    """A tool's input and output schemas, compiled once, when its profile loads."""

    input: Schema
    output: Schema

    @classmethod
    def of(cls, contract: Mapping[str, Any]) -> Checks:
        return cls(Schema(contract["inputSchema"]), Schema(contract["outputSchema"]))


@dataclass
class Tool:
    """One tool of the served profile: its entry, its contract, its compiled checks."""

    entry: ToolEntry
    contract: dict[str, Any]
    checks: Checks
    unwraps: str | None = None  # the profile's TEXT_UNWRAPS
    error_text: str = "message"  # the profile's ERROR_TEXT
    guard: Guard | None = None  # the configuration file's scope and audit log (runtime/guard.py)

    @cached_property
    def text_key(self) -> str | None:
        """The property whose value is the result's text: set when the profile unwraps one
        and the output schema is only that property, required; else None (the JSON)."""
        schema = self.contract.get("outputSchema") or {}
        key = self.unwraps
        if key is None or set(schema.get("properties", {})) != {key}:
            return None
        return key if key in schema.get("required", ()) else None

    def among(self, served: Collection[str]) -> Tool:
        """The tool when ``served`` are the tools served: each list of tool names its entry
        points at (``cut_to_served``) keeps only those; a tool without one is itself."""
        if not self.entry.cut_to_served:
            return self
        contract = cut_lists(self.contract, self.entry.cut_to_served, served)
        return dataclasses.replace(self, contract=contract)

    @cached_property
    def advertised(self) -> types.Tool:
        import mcp.types as types  # the SDK's types load slowly: --list-tools needs none

        contract = self.contract
        return types.Tool(
            name=contract["name"],
            title=contract.get("title"),
            description=contract.get("description"),
            input_schema=contract["inputSchema"],
            output_schema=contract.get("outputSchema"),
            annotations=types.ToolAnnotations.model_validate(contract["annotations"])
            if "annotations" in contract
            else None,
            _meta=contract.get("_meta"),
        )

    @cached_property
    def _models(self) -> Any:
        return importlib.import_module(self.entry.models_module)

    @property
    def input_model(self) -> Any:
        return getattr(self._models, self.entry.input_model)

    @property
    def output_model(self) -> Any:
        return getattr(self._models, self.entry.output_model)


@dataclass
class Profile:
    name: str
    interface: type
    tools: dict[str, Tool] = field(default_factory=dict)
    catalog: dict[str, str] = field(default_factory=dict)  # every tool, shown or not -> toolset
    toolsets: Toolsets = field(default_factory=lambda: Toolsets((), ()))
    environment: tuple[EnvironmentEntry, ...] = ()  # what --help says it reads
    instructions: tuple[str, ...] = ()  # lines with {placeholders}, see ``instructions``
    resources: dict[str, Resource] = field(default_factory=dict)  # by name
    prompts: dict[str, Prompt] = field(default_factory=dict)
    error_text: str = "message"  # the registry's ERROR_TEXT: how a failure's text is written
    effects: Mapping[str, Any] | None = None  # the registry's EFFECTS: what tools do (scope)

    def shown(self, environ: Mapping[str, str]) -> Profile:
        """The profile as the environment's toolset choice shows it (see ``toolsets``).

        Toolsets choose tools only; resources and prompts stay. A tool that lists other
        tools (a batch's nested authority) lists only those shown too.
        """
        names = visible(self.catalog, self.toolsets, environ)
        served = names & self.tools.keys()
        tools = {name: tool.among(served) for name, tool in self.tools.items() if name in served}
        return Profile(
            self.name,
            self.interface,
            tools,
            self.catalog,
            self.toolsets,
            self.environment,
            self.instructions,
            self.resources,
            self.prompts,
            self.error_text,
            self.effects,
        )

    def with_default_toolsets(self, added: tuple[str, ...]) -> Profile:
        """The profile with ``added`` on by default too (in the profile's toolset order)."""
        unknown = sorted(set(added) - set(self.toolsets.names))
        if unknown:
            raise ProfileUnavailable(
                f"profile {self.name!r}: its handlers turn on unknown toolsets {unknown}"
            )
        on = set(self.toolsets.default) | set(added)
        default = tuple(name for name in self.toolsets.names if name in on)
        return dataclasses.replace(self, toolsets=Toolsets(self.toolsets.names, default))

    def tool(self, name: str) -> Tool | None:
        return self.tools.get(name)

    @cached_property
    def listed(self) -> list[types.Tool]:
        return [tool.advertised for tool in self.tools.values()]

    @cached_property
    def listed_resources(self) -> list[types.Resource]:
        import mcp.types as types

        return [
            r.advertised
            for r in self.resources.values()
            if isinstance(r.advertised, types.Resource)
        ]

    @cached_property
    def listed_templates(self) -> list[types.ResourceTemplate]:
        import mcp.types as types

        return [
            r.advertised
            for r in self.resources.values()
            if isinstance(r.advertised, types.ResourceTemplate)
        ]

    @cached_property
    def listed_prompts(self) -> list[types.Prompt]:
        return [prompt.advertised for prompt in self.prompts.values()]

    @property
    def completes(self) -> bool:
        """Whether any variable or argument completes to live values."""
        return any(r.entry.complete for r in self.resources.values()) or any(
            p.entry.complete for p in self.prompts.values()
        )


def _import_attr(spec: str) -> Any:
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr)


def _listing(package: str, file: str) -> dict[str, Any]:
    return dict(json.loads(resources.files(package).joinpath(file).read_text("utf-8")))


def load_profile(name: str) -> Profile:
    """The registry and contracts of a profile (no handlers, no models yet)."""
    if name not in PROFILES:  # the generated list: one per contracts/<name>-profile.json
        raise ProfileUnavailable(f"unknown profile {name!r}: choose one of {', '.join(PROFILES)}")
    package = f"{__package__}.generated.{name}"
    registry = importlib.import_module(f"{package}.registry")
    listing = _listing(package, "tools.json")
    by_name = {contract["name"]: contract for contract in listing["tools"]}
    unwraps = getattr(registry, "TEXT_UNWRAPS", None)
    error_text = getattr(registry, "ERROR_TEXT", "message")
    tools = {
        entry.name: Tool(
            entry, by_name[entry.name], Checks.of(by_name[entry.name]), unwraps, error_text
        )
        for entry in registry.TOOLS
    }
    toolsets = Toolsets(tuple(registry.TOOLSETS), tuple(registry.DEFAULT_TOOLSETS))
    environment = tuple(registry.ENVIRONMENT)
    instructions = tuple(registry.INSTRUCTIONS)
    found = _listing(package, "resources.json")
    contracts = {contract["name"]: contract for contract in found["resources"]}
    served = {
        entry.name: Resource(
            entry,
            contracts[entry.name],
            found["variables"][entry.name],
            found["results"].get(entry.name),
        )
        for entry in registry.RESOURCES
    }
    found = _listing(package, "prompts.json")
    contracts = {contract["name"]: contract for contract in found["prompts"]}
    prompts = {
        entry.name: Prompt(entry, contracts[entry.name], found["arguments"][entry.name])
        for entry in registry.PROMPTS
    }
    return Profile(
        name,
        _import_attr(registry.INTERFACE),
        tools,
        {entry.name: entry.toolset for entry in registry.TOOLS},
        toolsets,
        environment,
        instructions,
        served,
        prompts,
        error_text,
        getattr(registry, "EFFECTS", None),
    )


def create_handlers(
    profile: Profile, environ: Mapping[str, str], runtime: ServedRuntime | None = None
) -> HandlerSet:
    """The profile's handler object, refusing a profile with an unimplemented tool.

    The profile module's ``create_handlers(environ, runtime)`` builds it; ``runtime``
    (by default one over the profile as ``environ`` shows it) is what nested calls
    go through, bound here to the object built.
    """
    names = ", ".join(sorted(profile.tools))
    try:
        module = importlib.import_module(f"{__package__}.handlers.{profile.name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__package__}.handlers.{profile.name}":
            raise
        raise ProfileUnavailable(
            f"profile {profile.name!r} has no handlers yet; not implemented: {names}"
        ) from None
    factory = getattr(module, "create_handlers", None)
    if factory is None:
        raise ProfileUnavailable(
            f"profile {profile.name!r} has no handlers yet; not implemented: {names}"
        )
    if runtime is None:
        from .dispatch import ServedRuntime

        runtime = ServedRuntime(profile.shown(environ))
    try:
        handlers = factory(environ, runtime)
    except CompositionError as exc:
        if not exc.missing:
            raise ProfileUnavailable(f"profile {profile.name!r}: {exc}") from None
        _refuse_missing(profile, set(exc.missing))
        raise
    _check_implemented(profile, type(handlers))
    if not isinstance(handlers, HandlerSet):  # _check_implemented proved it; for the types
        raise ProfileUnavailable(f"profile {profile.name!r}: its handlers are no HandlerSet")
    runtime.serve(handlers)
    return handlers


def served_after_startup(
    profile: Profile, environ: Mapping[str, str], handlers: HandlerSet, runtime: ServedRuntime
) -> Profile:
    """The profile as served once the handlers have started (their ``startup_toolsets``,
    asked once, join the default toolsets); ``runtime`` serves the same from then on."""
    added = tuple(handlers.startup_toolsets())
    if not added:
        return runtime.served
    served = profile.with_default_toolsets(added).shown(environ)
    runtime.show(served)
    return served


def _check_implemented(profile: Profile, cls: type) -> None:
    if not issubclass(cls, profile.interface):
        raise ProfileUnavailable(
            f"profile {profile.name!r}: {cls.__name__} does not implement "
            f"{profile.interface.__name__}"
        )
    _refuse_missing(profile, set(getattr(cls, "__abstractmethods__", ())))


def _refuse_missing(profile: Profile, abstract: set[str]) -> None:
    """Refuse naming each unimplemented method by what it serves (a tool, resource, prompt)."""
    named = [
        *((tool.entry.method, tool.entry.name) for tool in profile.tools.values()),
        *((r.entry.method, f"resource {r.entry.uri}") for r in profile.resources.values()),
        *((p.entry.method, f"prompt {p.entry.name}") for p in profile.prompts.values()),
    ]
    missing = sorted(label for method, label in named if method in abstract)
    missing += sorted(abstract - {method for method, _ in named})  # e.g. complete_argument
    if missing:
        raise ProfileUnavailable(f"profile {profile.name!r}: no handler for {', '.join(missing)}")
