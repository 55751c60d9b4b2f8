"""Integral floats become ints, as JSON Schema counts them; nothing else changes."""

from __future__ import annotations

from typing import Any

import pytest

from tmux_contract_mcp.integral import integral


@pytest.mark.parametrize(
    ("value", "expected"),
    [(5.0, 5), (-0.0, 0), (1e2, 100), (2.0**70, 2**70)],
)
def test_a_float_with_no_fractional_part_becomes_the_int_it_equals(
    value: float, expected: int
) -> None:
    result = integral(value)
    assert type(result) is int and result == expected


@pytest.mark.parametrize("value", [2.5, -0.5, float("inf"), True, False, 5, "5.0", None])
def test_anything_else_is_left_as_it_is(value: Any) -> None:
    assert integral(value) is value


def test_nested_floats_are_converted_in_a_copy_and_the_original_is_left_alone() -> None:
    value: dict[str, Any] = {"a": [1.0, {"b": 2.0}], "c": "x", "d": 2.5}
    result = integral(value)
    assert repr(result) == repr({"a": [1, {"b": 2}], "c": "x", "d": 2.5})
    assert repr(value) == repr({"a": [1.0, {"b": 2.0}], "c": "x", "d": 2.5})


def test_a_value_with_nothing_to_convert_is_returned_itself() -> None:
    value: dict[str, Any] = {"a": [1, {"b": 2}], "c": "x", "d": 2.5}
    assert integral(value) is value
