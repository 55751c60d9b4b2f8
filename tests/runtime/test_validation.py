"""The contract validator: the UTF-8 byte limit and error lines that name field, rule and fix."""

from __future__ import annotations

from collections import deque
from typing import Any

import pytest

from tmux_contract_mcp.contract_rules import UTF8_KEYWORD
from tmux_contract_mcp.validation import Schema, json_path

PATTERN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"pattern": {"type": "string", UTF8_KEYWORD: 4096}},
    "additionalProperties": False,
}

# A batch of operations, each a tool name plus arguments: paths go several levels deep.
BATCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "operations": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "tool": {"type": "string"},
                    "arguments": {
                        "type": "object",
                        "properties": {
                            "maxLines": {"type": "integer", "minimum": 1, "maximum": 100},
                            "mode": {
                                "anyOf": [{"enum": ["plain", "ansi"]}, {"type": "null"}],
                                "default": None,
                            },
                        },
                        "additionalProperties": False,
                    },
                },
                "required": ["tool"],
                "additionalProperties": False,
            },
        },
        "corner": {"enum": ["top-left", "top-right", "bottom-left", "bottom-right"]},
    },
    "required": ["operations"],
    "additionalProperties": False,
}


def pattern_errors(pattern: str) -> list[str]:
    return Schema(PATTERN_SCHEMA).problems({"pattern": pattern})


def batch_errors(arguments: dict[str, Any]) -> list[str]:
    return Schema(BATCH_SCHEMA).problems(arguments)


def only(errors: list[str]) -> str:
    assert len(errors) == 1, errors
    return errors[0]


def test_utf8_limit_allows_exactly_the_limit_in_ascii_bytes() -> None:
    assert pattern_errors("a" * 4096) == []


def test_utf8_limit_rejects_one_ascii_byte_over() -> None:
    message = only(pattern_errors("a" * 4097))
    assert "`pattern`" in message
    assert "4097 bytes" in message
    assert f"rule: {UTF8_KEYWORD} 4096" in message


def test_utf8_limit_counts_bytes_not_code_points() -> None:
    # 1366 code points is far under 4096, but '€' is 3 bytes in UTF-8: 4098 bytes.
    message = only(pattern_errors("€" * 1366))
    assert "`pattern`" in message
    assert "4098 bytes" in message
    assert UTF8_KEYWORD in message
    assert pattern_errors("€" * 1365) == []  # 4095 bytes


def test_utf8_limit_counts_an_emoji_as_four_bytes() -> None:
    assert len("😀".encode()) == 4
    assert pattern_errors("😀" * 1024) == []  # 4096 bytes
    assert "4097 bytes" in only(pattern_errors("a" * 4093 + "😀"))
    assert "4100 bytes" in only(pattern_errors("😀" * 1025))


def test_utf8_limit_ignores_non_strings() -> None:
    schema = {"type": "object", "properties": {"n": {UTF8_KEYWORD: 1}}}
    assert Schema(schema).problems({"n": 123456}) == []


def test_error_names_the_nested_path_and_the_rule() -> None:
    operations: list[dict[str, Any]] = [{"tool": "a"}, {"tool": "b"}, {"tool": "c"}]
    operations.append({"tool": "d", "arguments": {"maxLines": 500}})
    message = only(batch_errors({"operations": operations}))
    assert message.startswith("`operations[3].arguments.maxLines`"), message
    assert "500" in message
    assert "rule: maximum 100" in message


def test_missing_required_field_is_named_with_its_path() -> None:
    assert only(batch_errors({})) == "`operations` is missing (rule: required)"
    nested = only(batch_errors({"operations": [{"tool": "a"}, {"arguments": {}}]}))
    assert nested == "`operations[1].tool` is missing (rule: required)"


def test_each_missing_required_field_is_named_once() -> None:
    schema = {
        "type": "object",
        "properties": {"corner": {}, "pane_id": {}, "window_id": {}},
        "required": ["corner", "pane_id", "window_id"],
    }
    errors = Schema(schema).problems({"pane_id": "%1"})
    assert len(errors) == len(set(errors)), errors
    for field in ("corner", "window_id"):
        assert sum(f"`{field}`" in line for line in errors) == 1, (field, errors)
    assert all("rule: required" in line for line in errors), errors
    assert not any("pane_id" in line for line in errors), errors


def test_extra_keys_are_listed_with_the_accepted_ones() -> None:
    top = only(batch_errors({"operations": [], "bogus": 1}))
    assert "`bogus`" in top
    assert "rule: additionalProperties false" in top
    assert "accepted arguments: corner, operations" in top

    nested = only(batch_errors({"operations": [{"tool": "a", "zeta": 1, "alpha": 2}]}))
    assert "`alpha`, `zeta`" in nested
    assert "in `operations[0]`" in nested
    assert "accepted arguments: arguments, tool" in nested


def test_enum_error_lists_the_allowed_values() -> None:
    message = only(batch_errors({"operations": [], "corner": "middle"}))
    assert message.startswith("`corner`"), message
    assert "'middle'" in message
    assert "'top-left', 'top-right', 'bottom-left', 'bottom-right'" in message
    assert "rule: enum" in message


MODE = {"enum": ["plain", "ansi"]}
TYPED_MODE = {"type": "string", "enum": ["plain", "ansi"]}
NULL = {"type": "null"}


def nullable(*branches: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"mode": {"anyOf": list(branches), "default": None}},
        "additionalProperties": False,
    }


@pytest.mark.parametrize(
    "schema",
    [
        nullable(MODE, NULL),
        nullable(NULL, MODE),
        nullable(TYPED_MODE, NULL),
        nullable(NULL, TYPED_MODE),
    ],
    ids=["enum-then-null", "null-then-enum", "typed-enum-then-null", "null-then-typed-enum"],
)
def test_nullable_enum_error_is_about_the_enum_not_about_null(schema: dict[str, Any]) -> None:
    validator = Schema(schema)
    message = only(validator.problems({"mode": "rainbow"}))
    assert message == "`mode`: 'rainbow' is not one of 'plain', 'ansi' (rule: enum)"
    assert validator.problems({"mode": None}) == []
    assert validator.problems({"mode": "ansi"}) == []


def test_nullable_enum_wrong_type_is_not_blamed_on_null() -> None:
    validator = Schema(nullable(NULL, TYPED_MODE))
    message = only(validator.problems({"mode": 7}))
    assert message == "`mode`: 7 is not of type 'string' (rule: type)"


def test_nested_nullable_enum_error_names_the_full_path() -> None:
    message = only(batch_errors({"operations": [{"tool": "a", "arguments": {"mode": "x"}}]}))
    assert (
        message == "`operations[0].arguments.mode`: 'x' is not one of 'plain', 'ansi' (rule: enum)"
    )


def test_type_error_names_field_and_expected_type() -> None:
    message = only(batch_errors({"operations": [{"tool": 5}]}))
    assert message == "`operations[0].tool`: 5 is not of type 'string' (rule: type)"


def test_every_violation_gets_a_line_sorted_by_path() -> None:
    arguments = {
        "operations": [
            {"tool": "a", "extra": True},
            {"tool": 1},
            {"tool": "b", "arguments": {"maxLines": 0}},
        ],
        "corner": "middle",
    }
    errors = batch_errors(arguments)
    assert len(errors) == 4, errors
    assert errors[0].startswith("`corner`")
    assert "`extra` in `operations[0]`" in errors[1]
    assert errors[2].startswith("`operations[1].tool`")
    assert errors[3].startswith("`operations[2].arguments.maxLines`")
    assert "rule: minimum 1" in errors[3]


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        ([], ""),
        (["pattern"], "pattern"),
        (["operations", 3, "arguments", "maxLines"], "operations[3].arguments.maxLines"),
        ([0], "[0]"),
        ([0, "tool"], "[0].tool"),
        (["grid", 1, 2, "cell"], "grid[1][2].cell"),
        (deque(["a", 0, "b"]), "a[0].b"),
    ],
)
def test_json_path_formats_keys_and_indexes(parts: Any, expected: str) -> None:
    assert json_path(parts) == expected
