"""The in-between model: contracts loaded into small objects the templates read."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codegen import naming
from codegen.contract_file import METADATA_KEY, advertised, read_contract

if TYPE_CHECKING:
    from codegen.surfaces import Prompt, Resource

PROFILE_SUFFIX = "-profile.json"


@dataclass(frozen=True)
class Argument:
    """One top-level input property, as a reference page lists it."""

    name: str
    schema: dict[str, Any]
    required: bool
    root: dict[str, Any]

    @property
    def description(self) -> str:
        return " ".join(str(self.schema.get("description", "")).split())

    @property
    def type_label(self) -> str:
        return type_label(self.schema, self.root)

    @property
    def default_label(self) -> str | None:
        if "default" not in self.schema:
            return None
        return json.dumps(self.schema["default"], ensure_ascii=False)


def type_label(schema: dict[str, Any], root: dict[str, Any] | None = None) -> str:
    """A short human label for a schema: ``string | null``, ``"up" | "down"``."""
    root = root if root is not None else schema
    if "const" in schema:
        return json.dumps(schema["const"], ensure_ascii=False)
    if "enum" in schema:
        return " | ".join(json.dumps(value, ensure_ascii=False) for value in schema["enum"])
    for combinator in ("anyOf", "oneOf"):
        if combinator in schema:
            return " | ".join(type_label(option, root) for option in schema[combinator])
    if "$ref" in schema:
        ref = str(schema["$ref"])
        target: Any = root
        for part in ref.removeprefix("#/").split("/"):
            target = target.get(part) if isinstance(target, dict) else None
        return type_label(target, root) if isinstance(target, dict) else ref.rsplit("/", 1)[-1]
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"array of {type_label(schema['items'], root)}"
    return str(kind) if kind else "any"


@dataclass(frozen=True)
class Tool:
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
    def toolset(self) -> str:
        return str(self.metadata["toolset"])

    @property
    def tags(self) -> tuple[str, ...]:
        """Project tags, e.g. ``self-bounded``: the tool waits on its own clock."""
        return tuple(str(tag) for tag in self.metadata.get("tags", []))

    @property
    def sources(self) -> list[str]:
        return list(self.metadata.get("source", []))

    @property
    def cut_to_served(self) -> tuple[str, ...]:
        """JSON pointers into the advertised tool, each at a list of tool names that the
        runtime cuts down to the tools served (e.g. a batch's nested authority)."""
        return tuple(str(pointer) for pointer in self.metadata.get("cut_to_served", []))

    @property
    def title(self) -> str | None:
        title = self.contract.get("title") or self.contract.get("annotations", {}).get("title")
        return str(title) if title else None

    @property
    def description(self) -> str:
        return str(self.contract["description"])

    @property
    def summary(self) -> str:
        return self.description.split("\n\n", 1)[0].replace("\n", " ")

    @property
    def notes(self) -> tuple[str, ...]:
        """Paragraphs for people, shown on the reference page and never advertised: what
        the description leaves out so that the model reads few words."""
        return tuple(str(note) for note in self.metadata.get("notes", []))

    @property
    def input_schema(self) -> dict[str, Any]:
        return dict(self.contract["inputSchema"])

    @property
    def output_schema(self) -> dict[str, Any]:
        return dict(self.contract["outputSchema"])

    @property
    def annotations(self) -> dict[str, Any]:
        return dict(self.contract.get("annotations", {}))

    @property
    def arguments(self) -> list[Argument]:
        required = set(self.input_schema.get("required", []))
        properties = self.input_schema.get("properties", {})
        schema = self.input_schema
        return [
            Argument(name, properties[name], name in required, schema)
            for name in sorted(properties)
        ]

    @property
    def method(self) -> str:
        return naming.identifier(self.name)

    @property
    def module(self) -> str:
        return naming.module_name(self.name)

    @property
    def models_module(self) -> str:
        return naming.models_module(self.profile, self.name)

    @property
    def input_class(self) -> str:
        return naming.input_class(self.name)

    @property
    def output_class(self) -> str:
        return naming.output_class(self.name)


@dataclass(frozen=True)
class EnvironmentVariable:
    """One variable a profile reads, as --help and the docs describe it."""

    name: str
    meaning: str
    default: str | None


@dataclass(frozen=True)
class Profile:
    name: str
    tools: tuple[Tool, ...] = field(default=())
    description: dict[str, Any] = field(default_factory=dict)  # <name>-profile.json
    resources: tuple[Resource, ...] = field(default=())
    prompts: tuple[Prompt, ...] = field(default=())

    @property
    def description_relpath(self) -> str:
        return f"contracts/{self.name}{PROFILE_SUFFIX}"

    @property
    def is_default(self) -> bool:
        """Whether this profile is served when none is chosen."""
        return bool(self.description.get("default", False))

    @property
    def toolsets(self) -> tuple[str, ...]:
        """Every toolset of the family, in the order messages list them."""
        return tuple(str(each["name"]) for each in self.description.get("toolsets", ()))

    @property
    def default_toolsets(self) -> tuple[str, ...]:
        """The toolsets on when the environment chooses none."""
        return tuple(
            str(each["name"]) for each in self.description.get("toolsets", ()) if each["default"]
        )

    @property
    def environment(self) -> tuple[EnvironmentVariable, ...]:
        return tuple(
            EnvironmentVariable(str(each["name"]), str(each["meaning"]), each.get("default"))
            for each in self.description.get("environment", ())
        )

    @property
    def text_unwraps(self) -> str | None:
        """The wrapper property whose value a result's text is (see ``<profile>-profile.json``)."""
        value = self.description.get("text_unwraps")
        return str(value) if value is not None else None

    @property
    def error_text(self) -> str:
        """What a failed call's text is: ``message`` or ``envelope`` (``<profile>-profile.json``)."""
        return str(self.description.get("error_text", "message"))

    @property
    def effects(self) -> dict[str, Any] | None:
        """What the tools do, for a configuration's scope (``<profile>-profile.json``)."""
        value = self.description.get("effects")
        return dict(value) if value is not None else None

    @property
    def instructions(self) -> tuple[str, ...]:
        """The server instructions' lines, ``{placeholders}`` unfilled."""
        return tuple(str(line) for line in self.description.get("instructions", ()))

    @property
    def reference(self) -> tuple[str, ...]:
        """Paragraphs for people on the profile's reference index: the conventions the
        instructions state in few words (targets, sockets), said at length once."""
        return tuple(str(line) for line in self.description.get("reference", ()))

    @property
    def package(self) -> str:
        return naming.profile_package(self.name)

    @property
    def interface_class(self) -> str:
        return naming.interface_class(self.name)

    @cached_property
    def sources(self) -> list[str]:
        return [
            *(tool.relpath for tool in self.tools),
            *(resource.relpath for resource in self.resources),
            *(prompt.relpath for prompt in self.prompts),
        ]

    @property
    def templates(self) -> tuple[Resource, ...]:
        return tuple(resource for resource in self.resources if resource.is_template)

    @property
    def watched_resources(self) -> tuple[Resource, ...]:
        """The resources a client can subscribe to (their contracts say ``updates``)."""
        return tuple(resource for resource in self.resources if resource.updates)

    @property
    def fixed_resources(self) -> tuple[Resource, ...]:
        return tuple(resource for resource in self.resources if not resource.is_template)

    @property
    def completion_kinds(self) -> list[str]:
        """Every kind of value the profile's variables and arguments complete to, sorted."""
        kinds = {kind for item in self.resources for kind in item.complete.values()}
        kinds |= {kind for item in self.prompts for kind in item.complete.values()}
        return sorted(kinds)


def profile_names(contracts_root: Path) -> list[str]:
    """Every profile, found by its description ``<name>-profile.json``, sorted by name."""
    return sorted(
        path.name.removesuffix(PROFILE_SUFFIX) for path in contracts_root.glob(f"*{PROFILE_SUFFIX}")
    )


def tool_contract_paths(contracts_root: Path, profile: str) -> list[Path]:
    """Every tool contract of ``profile``: its folder's, then those of each folder of tools
    authored here that its description lists under ``authored`` (contracts/<profile>/<name>/)."""
    folder = contracts_root / profile
    description_path = contracts_root / f"{profile}{PROFILE_SUFFIX}"
    description = json.loads(description_path.read_text(encoding="utf-8"))
    paths = sorted(folder.glob("*.json"))
    for name in description.get("authored", []):
        paths += sorted((folder / str(name)).glob("*.json"))
    return paths


def load_profile(contracts_root: Path, profile: str, base: Path) -> Profile:
    """One profile's description and every contract of it: tools, resources and prompts,
    each sorted by name."""
    from codegen.surfaces import load_prompts, load_resources

    tools = []
    for path in tool_contract_paths(contracts_root, profile):
        contract = read_contract(path)
        tools.append(Tool(profile, path, path.relative_to(base).as_posix(), contract))
    tools.sort(key=lambda tool: tool.name)
    description_path = contracts_root / f"{profile}{PROFILE_SUFFIX}"
    description = dict(json.loads(description_path.read_text(encoding="utf-8")))
    return Profile(
        profile,
        tuple(tools),
        description,
        load_resources(contracts_root, profile, base),
        load_prompts(contracts_root, profile, base),
    )
