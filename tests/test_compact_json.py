"""compact_json writes what json.dumps writes, whichever encoder does the work."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tmux_contract_mcp.reply import compact_json

VALUES: list[Any] = [
    {"result": [{"pane_id": "%1", "pane_left": 0, "pane_at_top": True, "is_caller": None}]},
    {"title": 'ü ☃ \U0001f600 \u2028 \x00\x1f\x7f tab\t nl\n quote" back\\'},
    [1.5, -0.0, 1e16, 1e300, 5e-324, 2**63, -(2**70), 0.1 + 0.2],
    {"nested": {"a": [], "b": {}, "c": [[None]]}, "": ""},
]


@pytest.mark.parametrize("value", VALUES, ids=["rows", "text", "numbers", "nesting"])
def test_compact_json_writes_what_json_dumps_writes(value: Any) -> None:
    assert compact_json(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_text_with_a_lone_surrogate_is_written_as_json_dumps_writes_it() -> None:
    value = {"title": "bad \udcff byte"}
    assert compact_json(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_a_small_exponent_is_the_same_number_without_the_leading_zero() -> None:
    assert compact_json([1e-7, 2.5e-9]) == "[1e-7,2.5e-9]"
    assert json.loads(compact_json([1e-7, 2.5e-9])) == [1e-7, 2.5e-9]
