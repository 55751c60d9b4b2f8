"""The python profile's contracts against the libtmux-mcp 0.1.0a22 interface skeleton.

The skeleton (a verbatim copy of the shared reference, kept in the repo so a clean
clone can run these tests) fixes every tool's toolset, annotations, ``_meta`` and
the shape of its input and output schemas; this project adds only titles and
descriptions. Where the skeleton has no output schema, the contract defines a
closed one.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from codegen.contract_file import METADATA_KEY, read_contract
from scripts.lab.client import ROOT

PYTHON = ROOT / "contracts" / "python"
SKELETON_RELPATH = "contracts/upstream/python-profile-skeleton.json"
SKELETON_FILE = ROOT / SKELETON_RELPATH
SHARED_SKELETON = ROOT.parent / "shared" / "reference" / "python-profile-skeleton.json"
# sha256 of the skeleton as copied; used when ../shared/reference is absent.
SKELETON_SHA256 = "86feaf022e98002acfd26f48b5b694c3bae09aa626ce6158425cb0edcf5dad8d"

SKELETON: dict[str, dict[str, Any]] = {
    tool["name"]: tool for tool in json.loads(SKELETON_FILE.read_text(encoding="utf-8"))["tools"]
}

# Vendored from the seeds (contracts/upstream/003, 004): same values as the
# skeleton, but the seeds list schema keys in another order.
VENDORED = {"select_pane", "find_pane_by_position"}
CONTRACT_NAMES = sorted(path.stem for path in PYTHON.glob("*.json"))
AUTHORED_OUTPUT = sorted(
    name for name in CONTRACT_NAMES if SKELETON[name].get("outputSchema") is None
)
DOC_KEYS = ("description", "title")
# Keywords whose value maps names to schemas, or is a value rather than a schema.
NAMED_SCHEMAS = ("properties", "$defs", "patternProperties", "dependentSchemas")
VALUES = ("default", "const", "enum", "examples")


# Removing titles from the skeleton also removed set_pane_title's property named ``title``,
# which its ``required`` list still names: copied as it is, no call could be valid. The
# contract restores it, first, as the package's own signature has it.
SKELETON_LOST_PROPERTIES: dict[str, dict[str, Any]] = {
    "set_pane_title": {"title": {"type": "string"}},
}


def strip_docs(schema: Any) -> Any:
    """``schema`` without its description and title keywords, at any depth.

    Property names are kept: a property called ``title`` is not a keyword.
    """
    if isinstance(schema, list):
        return [strip_docs(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    stripped: dict[str, Any] = {}
    for key, value in schema.items():
        if key in DOC_KEYS:
            continue
        if key in NAMED_SCHEMAS:
            stripped[key] = {name: strip_docs(sub) for name, sub in value.items()}
        elif key in VALUES:
            stripped[key] = value
        else:
            stripped[key] = strip_docs(value)
    return stripped


def properties(schema: Any, path: str) -> list[tuple[str, dict[str, Any]]]:
    """Every (path, schema) of a named property, walking properties, items and anyOf."""
    if not isinstance(schema, dict):
        return []
    found: list[tuple[str, dict[str, Any]]] = []
    for name, sub in schema.get("properties", {}).items():
        found.append((f"{path}/{name}", sub))
        found.extend(properties(sub, f"{path}/{name}"))
    found.extend(properties(schema.get("items"), f"{path}/items"))
    for index, option in enumerate(schema.get("anyOf", [])):
        found.extend(properties(option, f"{path}/anyOf/{index}"))
    return found


def object_schemas(schema: Any, path: str) -> list[tuple[str, dict[str, Any]]]:
    """Every schema with ``type: object``, walking properties, items and anyOf."""
    if not isinstance(schema, dict):
        return []
    found = [(path, schema)] if schema.get("type") == "object" else []
    for name, sub in schema.get("properties", {}).items():
        found.extend(object_schemas(sub, f"{path}/properties/{name}"))
    found.extend(object_schemas(schema.get("items"), f"{path}/items"))
    for index, option in enumerate(schema.get("anyOf", [])):
        found.extend(object_schemas(option, f"{path}/anyOf/{index}"))
    return found


def contract(name: str) -> dict[str, Any]:
    return read_contract(PYTHON / f"{name}.json")


def test_the_skeleton_copy_is_verbatim() -> None:
    data = SKELETON_FILE.read_bytes()
    if SHARED_SKELETON.is_file():
        assert data == SHARED_SKELETON.read_bytes()
    assert hashlib.sha256(data).hexdigest() == SKELETON_SHA256


def test_every_skeleton_tool_has_a_contract_and_no_other_tool_does() -> None:
    assert sorted(SKELETON) == CONTRACT_NAMES
    assert set(CONTRACT_NAMES) >= VENDORED
    assert len(CONTRACT_NAMES) == 54


@pytest.mark.parametrize("name", CONTRACT_NAMES)
def test_contract_toolset_is_the_skeletons(name: str) -> None:
    assert contract(name)[METADATA_KEY]["toolset"] == SKELETON[name]["toolset"]


@pytest.mark.parametrize("name", CONTRACT_NAMES)
def test_input_schema_is_the_skeletons_plus_descriptions(name: str) -> None:
    actual = strip_docs(contract(name)["inputSchema"])
    expected = SKELETON[name]["inputSchema"]
    restored = SKELETON_LOST_PROPERTIES.get(name)
    if restored is not None:
        expected = {**expected, "properties": {**restored, **expected["properties"]}}
    assert actual == expected
    if name not in VENDORED:
        assert json.dumps(actual) == json.dumps(expected), "key order differs"


@pytest.mark.parametrize("name", [name for name in CONTRACT_NAMES if name not in AUTHORED_OUTPUT])
def test_output_schema_is_the_skeletons_plus_descriptions(name: str) -> None:
    actual = strip_docs(contract(name)["outputSchema"])
    expected = SKELETON[name]["outputSchema"]
    assert actual == expected
    if name not in VENDORED:
        assert json.dumps(actual) == json.dumps(expected), "key order differs"


@pytest.mark.parametrize("name", CONTRACT_NAMES)
def test_annotations_meta_and_tags_are_the_skeletons(name: str) -> None:
    tool = contract(name)
    reference = SKELETON[name]
    assert tool["annotations"] == reference["annotations"]
    assert tool.get("_meta") == reference.get("meta")
    assert ("_meta" in tool) == ("meta" in reference)
    assert tool[METADATA_KEY].get("tags") == reference.get("tags")


# A property's description is a few words, or none where its name and schema say it all:
# the rules every tool shares (how targets resolve, socket_name) are said once, in the
# server instructions, and longer explanations go to the reference pages (notes).
FEW_WORDS = 100  # characters


def long_or_blank(schema: dict[str, Any], path: str) -> list[str]:
    """The properties whose description, when present, is blank or longer than FEW_WORDS."""
    return [
        f"{where}: {sub['description']!r}"
        for where, sub in properties(schema, path)
        if "description" in sub and not (0 < len(str(sub["description"]).strip()) <= FEW_WORDS)
    ]


@pytest.mark.parametrize("name", sorted(set(CONTRACT_NAMES) - VENDORED))
def test_an_input_property_has_a_few_words_or_no_description(name: str) -> None:
    schema = contract(name)["inputSchema"]
    assert properties(schema, "inputSchema")
    assert long_or_blank(schema, "inputSchema") == []


@pytest.mark.parametrize("name", CONTRACT_NAMES)
def test_every_contract_declares_an_output_object(name: str) -> None:
    output_schema = contract(name).get("outputSchema")
    assert isinstance(output_schema, dict)
    assert output_schema.get("type") == "object"
    assert output_schema.get("properties")


@pytest.mark.parametrize("name", sorted(set(CONTRACT_NAMES) - VENDORED))
def test_contract_is_titled_described_and_names_the_skeleton(name: str) -> None:
    tool = contract(name)
    assert list(tool) == [
        key
        for key in (
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
            "_meta",
            METADATA_KEY,
        )
        if key in tool
    ]
    assert tool["name"] == name
    assert tool["title"].strip()
    assert "title" not in tool["annotations"]
    assert tool["description"].strip()
    assert tool[METADATA_KEY]["source"] == [SKELETON_RELPATH]
    # An output field is described only where its name does not explain it.
    assert long_or_blank(tool["outputSchema"], "outputSchema") == []


def test_the_authored_output_schemas_are_the_five_the_skeleton_lacks() -> None:
    assert AUTHORED_OUTPUT == [
        "capture_pane",
        "capture_since",
        "search_panes",
        "show_buffer",
        "snapshot_pane",
    ]


@pytest.mark.parametrize("name", AUTHORED_OUTPUT)
def test_authored_output_objects_are_closed_and_require_every_property(name: str) -> None:
    problems = []
    for where, schema in object_schemas(contract(name)["outputSchema"], "outputSchema"):
        if schema.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties is not false")
        if sorted(schema.get("required", [])) != sorted(schema.get("properties", {})):
            problems.append(f"{where}: does not require every property")
        if any("default" in sub for sub in schema.get("properties", {}).values()):
            problems.append(f"{where}: a required property with a default")
    assert problems == []


def test_capture_pane_returns_its_text_wrapped_in_result() -> None:
    output_schema = contract("capture_pane")["outputSchema"]
    assert strip_docs(output_schema) == {
        "properties": {"result": {"type": "string"}},
        "required": ["result"],
        "type": "object",
        "additionalProperties": False,
        "x-fastmcp-wrap-result": True,
    }


def test_strip_docs_keeps_a_property_named_like_a_keyword() -> None:
    schema = {
        "type": "object",
        "description": "gone",
        "properties": {"title": {"type": "string", "title": "gone", "default": "kept"}},
    }
    assert strip_docs(schema) == {
        "type": "object",
        "properties": {"title": {"type": "string", "default": "kept"}},
    }
