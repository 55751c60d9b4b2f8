"""The text rule: no NUL and no lone surrogate in any string or key of a call."""

from __future__ import annotations

from typing import Any

import pytest

from tmux_contract_mcp.text_rule import RULE, text_problems


def only(problems: list[str]) -> str:
    assert len(problems) == 1, problems
    return problems[0]


@pytest.mark.parametrize(
    ("value", "where", "what"),
    [
        ({"pattern": "ab\ud800"}, "`pattern`", "a lone surrogate (U+D800) at character 2"),
        ({"pattern": "\udfff"}, "`pattern`", "a lone surrogate (U+DFFF) at character 0"),
        ({"keys": ["x", "a\x00b"]}, "`keys[1]`", "a NUL character (U+0000) at character 1"),
        ({"text": "\u00e9\x00"}, "`text`", "a NUL character (U+0000) at character 1"),
        (
            {"operations": [{"arguments": {"paneId": "%1\ud83d"}}]},
            "`operations[0].arguments.paneId`",
            "a lone surrogate (U+D83D)",
        ),
    ],
)
def test_a_string_breaking_the_rule_is_named_by_its_path_and_the_rule(
    value: dict[str, Any], where: str, what: str
) -> None:
    line = only(text_problems(value))
    assert line.startswith(where), line
    assert what in line
    assert f"(rule: {RULE})" in line


def test_a_key_breaking_the_rule_is_named_with_where_it_sits() -> None:
    line = only(text_problems({"operations": [{"arguments": {"pane\ud800": 1}}]}))
    assert line.startswith("the key 'pane\\ud800' in `operations[0].arguments`"), line
    assert f"(rule: {RULE})" in line


def test_a_batch_operation_is_named_under_its_prefix() -> None:
    line = only(text_problems({"paneId": "\x00"}, ("operations", 2, "arguments")))
    assert line.startswith("`operations[2].arguments.paneId`"), line


def test_every_breaking_string_gets_its_own_line() -> None:
    assert len(text_problems({"a": "\x00", "b": ["\ud800", "fine"], "c\x00": "d"})) == 3


def test_a_message_can_be_sent_as_json_whatever_it_names() -> None:
    # A lone surrogate cannot be encoded as UTF-8, so the message must not carry one.
    for line in text_problems({"\ud800": "\udc00", "a": {"b\ud800": 1}}):
        line.encode("utf-8")


@pytest.mark.parametrize(
    "value",
    [{}, {"a": "plain"}, {"a": "\u00e9\U0001f600\ud7ff\ue000"}, {"n": [1, 2.5, None, True]}, "x"],
)
def test_text_without_nul_or_lone_surrogates_passes(value: Any) -> None:
    assert text_problems(value) == []
