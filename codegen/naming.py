"""Every name the generator writes comes from here.

Module, method and package names are made here and read by the templates. The
class names of the generated models are made by the model generator
(datamodel-code-generator) from what this module gives it, in two ways:

- Names of our own are keys of the ``$defs`` of the one JSON Schema document the
  generator reads for a module (``models_document``); the generator names a
  ``$defs`` entry by its key. They are:

  1. each root: a tool's input and output (``SelectPaneInput``), a resource's
     variables and result, a prompt's arguments;
  2. each entry of a root's ``$defs``, for its key without a ``Schema`` suffix
     (``SelectPaneDirectionSchema`` -> ``SelectPaneDirection``); a key that two
     roots of the module both define keeps its root in front, one name each
     (``SendKeysBatchInputOnError``, ``SendKeysBatchOutputOnError``);
  3. each batch alternative (a ``oneOf``/``anyOf`` branch whose ``tool`` property
     is a const), for the tool it calls: ``CapturePaneOperation``;
  4. the items of an array that is itself named here, when they are an object
     with properties: ``<name>Item`` (``GetSessionsResourceResultItem``);
  5. an object with a byte-limited property of its own (``UTF8_KEYWORD``) that no
     rule above names: the part it sits in, then the properties on the way in
     PascalCase, ``Item`` for an array's items (``SearchPanesOperationArguments``),
     so that the validator ``model_rules`` gives it can name its class. (Where the
     generator would have named the object by a singular, as items of ``matches``
     -> ``Match``, this name says ``MatchesItem``; no contract limits such an object
     today.)

- Every other class is named by the generator's own full-path strategy
  (``NAMING_STRATEGY``): the name of the class it sits in, then the property's
  name in PascalCase, an array's items by the singular (``ListPanesOutput`` >
  ``panes`` > items -> ``ListPanesOutputPane``). So what sits in a part named
  here is named after it: ``CapturePaneOperationArguments``.

What the generator's options cannot say, and the one step taken for it: its
hooks name a class by a string alone (``custom_class_name_generator`` sees the
name the strategy composed, not where the schema sits) or by a ``$ref`` target or
a name it generated (``model_name_map``; the path it keeps for an inline
subschema is an encoding of its own, not a JSON pointer, and a generated name is
what we would have to predict), and ``class_name`` names only the document's
root. So rules 3 to 5,
which name a part by where it sits, move that part into ``$defs`` under its name
and leave a ``$ref`` where it was (rules 1 and 2 are ``$defs`` entries anyway, as
the generator's own MCP reader makes them). That step is on the generator's
input, before it runs; nothing renames its output.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable, Mapping
from typing import Any

from tmux_contract_mcp.contract_rules import UTF8_KEYWORD

PACKAGE = "tmux_contract_mcp"
NAMING_STRATEGY = "full-path"  # datamodel-code-generator's NamingStrategy.FullPath
VALUE_KEYWORDS = frozenset({"const", "enum", "default", "examples"})  # values, not schemas
SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "dependentSchemas"})


def pascal(name: str) -> str:
    """``find_pane_by_position`` -> ``FindPaneByPosition``."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^0-9A-Za-z]+", name) if part)


def identifier(name: str) -> str:
    """A Python identifier for a tool name (the handler method's name)."""
    ident = re.sub(r"\W", "_", name)
    if ident[:1].isdigit() or keyword.iskeyword(ident):
        ident = f"tool_{ident}"
    return ident


def module_name(tool: str) -> str:
    return identifier(tool)


def input_class(tool: str) -> str:
    return f"{pascal(tool)}Input"


def output_class(tool: str) -> str:
    return f"{pascal(tool)}Output"


def interface_class(profile: str) -> str:
    return f"{pascal(profile)}ProfileHandlers"


def profile_package(profile: str) -> str:
    return f"{PACKAGE}.generated.{profile}"


def models_module(profile: str, tool: str) -> str:
    return f"{profile_package(profile)}.models.{module_name(tool)}"


def resource_method(resource: str) -> str:
    """The handler method that reads a resource: ``get_pane`` -> ``resource_get_pane``."""
    return f"resource_{identifier(resource)}"


def resource_watch_method(resource: str) -> str:
    """The handler method that watches a resource for subscribers:
    ``get_pane`` -> ``watch_resource_get_pane``."""
    return f"watch_{resource_method(resource)}"


def resource_module(resource: str) -> str:
    return f"resource_{identifier(resource)}"


def resource_variables_class(resource: str) -> str:
    return f"{pascal(resource)}ResourceVariables"


def resource_result_class(resource: str) -> str:
    return f"{pascal(resource)}ResourceResult"


def prompt_method(prompt: str) -> str:
    """The handler method that renders a prompt: ``run_and_wait`` -> ``prompt_run_and_wait``."""
    return f"prompt_{identifier(prompt)}"


def prompt_module(prompt: str) -> str:
    return f"prompt_{identifier(prompt)}"


def prompt_arguments_class(prompt: str) -> str:
    return f"{pascal(prompt)}PromptArguments"


def limits_module(profile: str) -> str:
    """The generated module of the byte-limit checks the profile's models call."""
    return f"{profile_package(profile)}.limits"


def limit_function(limit: int) -> str:
    return f"at_most_{limit}_utf8_bytes"


def definition_class(root: str, key: str, shared: bool) -> str:
    """A ``$defs`` entry of ``root``'s schema; ``shared`` when another root of the module
    defines the same key."""
    return f"{root if shared else ''}{pascal(key.removesuffix('Schema'))}"


def operation_class(tool: str) -> str:
    """A batch alternative, for the tool it calls: ``capture_pane`` -> ``CapturePaneOperation``."""
    return f"{pascal(tool)}Operation"


def item_class(array: str) -> str:
    """The items of an array named ``array``."""
    return f"{array}Item"


def _operation(branch: Any) -> str | None:
    """The tool a batch alternative calls: its ``tool`` property's const."""
    tool = branch.get("properties", {}).get("tool") if isinstance(branch, dict) else None
    const = tool.get("const") if isinstance(tool, dict) else None
    return const if isinstance(const, str) else None


def limited(schema: Any) -> int | None:
    """The byte limit a model checks on a property of this schema: the string's own, or
    that of each item of an array."""
    if not isinstance(schema, dict):
        return None
    items = schema.get("items")
    limit = schema.get(UTF8_KEYWORD, items.get(UTF8_KEYWORD) if isinstance(items, dict) else None)
    return limit if isinstance(limit, int) else None


def holds_byte_limit(node: Any) -> bool:
    """An object schema with a byte-limited property of its own."""
    properties = node.get("properties") if isinstance(node, dict) else None
    return isinstance(properties, dict) and any(limited(s) is not None for s in properties.values())


def models_document(roots: Mapping[str, Mapping[str, Any]], where: str) -> dict[str, Any]:
    """The JSON Schema document the model generator reads for one module: ``roots`` (class
    name -> object schema) and every part named here (see the module's docstring) as
    ``$defs`` entries keyed by their class names, each ``$ref`` rewritten to match."""
    keys = [key for schema in roots.values() for key in schema.get("$defs", {})]
    shared = {key for key in keys if keys.count(key) > 1}
    entries: dict[str, Any] = {}
    taken: set[str] = set()

    def add(name: str, schema: Any) -> str:
        if not name.isidentifier() or keyword.iskeyword(name):
            raise RuntimeError(f"{where}: {name!r} cannot name a class")
        if name in taken:
            raise RuntimeError(f"{where}: two models would be named {name}")
        taken.add(name)
        entries[name] = _parts(schema, name, add)  # after the parts named inside it
        return f"#/$defs/{name}"

    for root, schema in roots.items():
        names = {key: definition_class(root, key, key in shared) for key in schema.get("$defs", {})}
        for key, definition in schema.get("$defs", {}).items():
            # Titled with its name, as the generator's own MCP reader titles a definition it
            # lifts out of a tool: a field typed by it says so in its ``Field(title=...)``.
            add(names[key], {**_references(definition, names, where), "title": names[key]})
        add(root, _references({k: v for k, v in schema.items() if k != "$defs"}, names, where))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {},
        "$defs": entries,
    }


def _references(node: Any, names: Mapping[str, str], where: str) -> Any:
    """``node`` with each ``#/$defs/<key>`` pointing at the entry ``names`` gives the key."""
    if isinstance(node, list):
        return [_references(item, names, where) for item in node]
    if not isinstance(node, dict):
        return node
    copy: dict[str, Any] = {}
    for key, value in node.items():
        if key in VALUE_KEYWORDS:
            copy[key] = value
        elif key in SCHEMA_MAPS and isinstance(value, dict):
            copy[key] = {name: _references(sub, names, where) for name, sub in value.items()}
        elif key == "$ref":
            target = str(value).removeprefix("#/$defs/")
            if target not in names:
                raise RuntimeError(f"{where}: $ref {value!r}: a model follows only a key of $defs")
            copy[key] = f"#/$defs/{names[target]}"
        else:
            copy[key] = _references(value, names, where)
    return copy


def _parts(entry: Any, name: str, add: Callable[[str, Any], str]) -> Any:
    """``entry`` (named ``name``) with each part that rules 3 to 5 name moved out through
    ``add`` and referred to where it was."""

    def part(node: Any, words: tuple[str, ...], branch: bool = False) -> Any:
        if not isinstance(node, dict):
            return node
        tool = _operation(node) if branch else None
        if tool is not None:
            return {"$ref": add(operation_class(tool), node)}
        if words and holds_byte_limit(node):
            return {"$ref": add(name + "".join(words), node)}
        return inside(node, words)

    def inside(node: dict[str, Any], words: tuple[str, ...]) -> dict[str, Any]:
        copy: dict[str, Any] = {}
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                copy[key] = {p: part(sub, (*words, pascal(p))) for p, sub in value.items()}
            elif key == "patternProperties" and isinstance(value, dict):
                copy[key] = {p: part(sub, words) for p, sub in value.items()}
            elif key == "items" and isinstance(value, dict):
                if not words and "properties" in value:
                    copy[key] = {"$ref": add(item_class(name), value)}
                else:
                    copy[key] = part(value, (*words, "Item"))
            elif key == "additionalProperties" and isinstance(value, dict):
                copy[key] = part(value, words)
            elif key in ("oneOf", "anyOf") and isinstance(value, list):
                copy[key] = [part(branch, words, branch=True) for branch in value]
            elif key == "prefixItems" and isinstance(value, list):
                copy[key] = [part(item, words) for item in value]
            else:
                copy[key] = value
        return copy

    return inside(entry, ()) if isinstance(entry, dict) else entry
