"""What a batch answers (python's rows, swift's envelopes) and the panes with long histories the batch tests read."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from scripts.lab.client import contracts
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.tmux import wait_for

BATCH = SWIFT_BATCH = "call_read_tools_batch"  # the tool of every profile that has one


SWIFT_ROW_KEYS = {"index", "tool", "success", "error", "result", "resultTruncated"}


def operation(tool: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    """One operation; ``arguments`` left out entirely when None."""
    return {"tool": tool} | ({"arguments": arguments} if arguments is not None else {})


def swift_failure(message: str) -> dict[str, Any]:
    return {
        "content": [{"type": "text", "text": message}],
        "structuredContent": None,
        "isError": True,
    }


def check_swift_answer(
    structured: dict[str, Any], operations: list[dict[str, Any]], text: str
) -> None:
    """What every batch answer must satisfy, whatever ran and whatever was elided."""
    Draft202012Validator(contracts("swift")[SWIFT_BATCH]["outputSchema"]).validate(structured)
    rows = structured["results"]
    assert len(rows) <= len(operations)
    assert structured["succeeded"] + structured["failed"] == len(rows)
    assert structured["succeeded"] == sum(1 for row in rows if row["success"])
    for index, row in enumerate(rows):
        assert set(row) == SWIFT_ROW_KEYS, row.keys()
        assert row["index"] == index
        assert row["tool"] == operations[index]["tool"]
        assert row["success"] is (row["error"] is None), row
        assert row["resultTruncated"] is (row["result"] is None), row
        if row["result"] is not None:
            assert row["result"]["isError"] is (not row["success"])
            if not row["success"]:
                assert row["result"] == swift_failure(row["error"])
    assert structured["truncated"] is any(row["result"] is None for row in rows)
    if not structured["truncated"]:
        assert structured["truncatedBytes"] == 0
    # The batch's own text is a one-line summary, not the structured value as JSON.
    assert text.strip() and "\n" not in text, text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)


HISTORY_LINES = 2000


HISTORY_WIDTH = 400  # characters; the panes are 200 wide, so every line wraps once


def history_line(number: int) -> str:
    """400 characters, some of them two or three bytes in UTF-8."""
    return (f"{number:05d}:é€ab" * 40)[:HISTORY_WIDTH]


def long_histories(tmux: TmuxServer, count: int = 4) -> list[str]:
    """``count`` panes, each with 2000 lines of 400 characters in its history."""
    tmux.tmux("set-option", "-g", "history-limit", "10000")
    text = tmux.tmpdir / "history.txt"
    lines = [history_line(n) for n in range(HISTORY_LINES)]
    text.write_text("\n".join(lines) + "\nDONE\n", encoding="utf-8")
    new_window = ("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:")
    panes = [tmux.tmux(*new_window, f"cat {text}; exec sleep 100000").strip() for _ in range(count)]
    for pane in panes:
        wait_for(tmux, pane, "DONE")
    return panes


LONG_VALUE = "y" * 190


ROW_KEYS = {
    "index",
    "tool",
    "success",
    "error",
    "content",
    "structured_content",
    "meta",
    "elapsed_seconds",
}


ELIDED_META = {"result_truncated": True}


def is_elided(row: dict[str, Any]) -> bool:
    return bool(row["meta"] == ELIDED_META)


def check_python_batch_answer(
    answer: dict[str, Any], operations: list[dict[str, Any]], wall: float | None = None
) -> None:
    """What every accepted batch answer satisfies, whatever ran and whatever was elided.

    ``wall``: the seconds the client waited for the answer, if measured.
    """
    Draft202012Validator(contracts("python")[BATCH]["outputSchema"]).validate(answer)
    rows = answer["results"]
    if wall is not None:
        # The rows run one after another inside the call (rounded to microseconds).
        assert sum(row["elapsed_seconds"] for row in rows) <= wall + 1e-6 * len(rows)
    assert len(rows) <= len(operations)
    assert answer["succeeded"] + answer["failed"] == len(rows)
    assert answer["succeeded"] == sum(1 for row in rows if row["success"])
    for index, row in enumerate(rows):
        assert set(row) == ROW_KEYS, sorted(row)
        assert row["index"] == index
        assert row["tool"] == operations[index]["tool"]
        assert row["success"] is (row["error"] is None), row
        if is_elided(row):
            assert row["content"] == [] and row["structured_content"] is None, row["index"]
            continue
        assert row["meta"] is None  # no tool of the profile answers with a _meta
        if row["success"]:
            assert row["structured_content"] is not None
            assert row["content"] and all(block["type"] == "text" for block in row["content"])
        else:
            assert row["error"]
            assert row["content"] == [{"type": "text", "text": row["error"]}]
            assert row["structured_content"] is None
    assert answer["response_truncated"] is any(is_elided(row) for row in rows)
    if answer["response_truncated"]:
        assert answer["response_truncated_bytes"] > 0
    else:
        assert answer["response_truncated_bytes"] == 0
    if answer["stopped_at"] is not None:
        assert answer["stopped_at"] == len(rows) - 1
        assert rows[-1]["success"] is False
