"""The swift batch's answers and the panes with long histories the batch tests read."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from scripts.lab.client import contracts
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.tmux import wait_for

SWIFT_BATCH = "call_read_tools_batch"


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
