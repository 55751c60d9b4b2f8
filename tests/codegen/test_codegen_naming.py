"""Class names reach the model generator as its own input: ``$defs`` keys naming.py gives.

``naming.models_document`` writes each name of ours as a key of the ``$defs`` of the one
document the generator reads, and the generator names every other class after the one
it sits in. These tests hand it small schemas and read the classes it wrote.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from codegen import naming
from codegen.generate import models


def classes(code: str) -> list[str]:
    return re.findall(r"^class (\w+)\(", code, re.MULTILINE)


def alternative(tool: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    properties: dict[str, Any] = {"tool": {"const": tool}}
    if arguments is not None:
        properties["arguments"] = {
            "type": "object",
            "properties": arguments,
            "additionalProperties": False,
        }
    return {"type": "object", "properties": properties, "required": ["tool"]}


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "additionalProperties": False}


NESTED_BATCH = obj(
    plan=obj(
        steps={
            "type": "array",
            "items": {
                "oneOf": [
                    alternative("capture_pane", {"paneId": {"type": "string"}}),
                    alternative("list_sessions"),
                ]
            },
        }
    )
)


def test_a_nested_batch_alternative_gets_the_name_naming_gives_it() -> None:
    document = naming.models_document({"RunPlanInput": NESTED_BATCH}, "here")
    entries = document["$defs"]
    assert {"CapturePaneOperation", "ListSessionsOperation", "RunPlanInput"} <= set(entries)
    steps = entries["RunPlanInput"]["properties"]["plan"]["properties"]["steps"]
    assert steps["items"]["oneOf"] == [
        {"$ref": "#/$defs/CapturePaneOperation"},
        {"$ref": "#/$defs/ListSessionsOperation"},
    ]
    code, _ = models({"RunPlanInput": NESTED_BATCH}, "swift", "A test module.", "here")
    written = classes(code)
    assert naming.operation_class("capture_pane") == "CapturePaneOperation"
    assert {
        "CapturePaneOperation",
        "CapturePaneOperationArguments",
        "ListSessionsOperation",
    } <= set(written)
    # What the generator names itself still follows the class it sits in.
    assert "RunPlanInputPlan" in written
    assert not [name for name in written if "RunPlanInput" in name and "Operation" in name]


def test_defs_are_named_for_their_key_and_a_shared_key_keeps_its_root() -> None:
    direction = {"enum": ["up", "down"]}
    on_error = {"enum": ["stop", "continue"]}
    roots = {
        "MoveInput": {
            **obj(way={"$ref": "#/$defs/WayDirectionSchema"}, onError={"$ref": "#/$defs/OnError"}),
            "$defs": {"WayDirectionSchema": direction, "OnError": on_error},
        },
        "MoveOutput": {**obj(onError={"$ref": "#/$defs/OnError"}), "$defs": {"OnError": on_error}},
    }
    code, _ = models(roots, "rust", "A test module.", "here")
    assert set(classes(code)) == {
        "WayDirection",
        "MoveInputOnError",
        "MoveOutputOnError",
        "MoveInput",
        "MoveOutput",
    }
    assert "way: WayDirection" in code
    assert "onError: MoveOutputOnError" in code


def test_the_items_of_a_named_array_are_its_name_and_item() -> None:
    roots = {
        "SessionsResourceVariables": obj(),
        "SessionsResourceResult": {"type": "array", "items": obj(name={"type": "string"})},
    }
    code, _ = models(roots, "python", "A test module.", "here")
    assert "SessionsResourceResultItem" in classes(code)
    assert "SessionsResourceResultSessionsResourceResultItem" not in code


def test_two_parts_of_one_name_stop_generation() -> None:
    twice = obj(
        first={"oneOf": [alternative("capture_pane")]},
        second={"oneOf": [alternative("capture_pane")]},
    )
    with pytest.raises(RuntimeError, match="here: two models would be named CapturePaneOperation"):
        naming.models_document({"TwiceInput": twice}, "here")


def test_a_reference_the_models_cannot_follow_stops_generation() -> None:
    schema = obj(a={"type": "string"}, b={"$ref": "#/properties/a"})
    with pytest.raises(RuntimeError, match="a model follows only a key of \\$defs"):
        naming.models_document({"RefInput": schema}, "here")
