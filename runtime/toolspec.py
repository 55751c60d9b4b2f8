"""The shape of one registry entry; generated registries are lists of these."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class ToolEntry:
    name: str
    toolset: str
    method: str
    models_module: str
    input_model: str
    output_model: str
    contract: str
    tags: tuple[str, ...] = ()  # e.g. "self-bounded": waits on its own clock
    # JSON pointers into the advertised tool, each at a list of tool names: only the
    # names of tools served stay (a batch's nested authority follows the selection)
    cut_to_served: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ResourceEntry:
    name: str
    uri: str  # the URI template, or the fixed URI of a resource without variables
    mime_type: str
    method: str
    models_module: str
    variables_model: str
    result_model: str | None  # None: the method answers with the text itself
    contract: str
    complete: Mapping[str, str] = field(default_factory=dict)  # variable -> completion kind
    watch_method: str | None = None  # None: the resource cannot be subscribed to


@dataclass(frozen=True, slots=True)
class PromptEntry:
    name: str
    method: str
    models_module: str
    arguments_model: str
    contract: str
    complete: Mapping[str, str] = field(default_factory=dict)  # argument -> completion kind


@dataclass(frozen=True, slots=True)
class EnvironmentEntry:
    """A variable the profile reads, as --help describes it."""

    name: str
    meaning: str
    default: str | None  # in words; None when the profile's data gives it (the toolsets)
