"""The batch skips measuring its exact response line only when a bound proves it fits."""

from __future__ import annotations

import random

import mcp.types as types
import pytest

from tmux_contract_mcp.dispatch import ServedRuntime, success_result
from tmux_contract_mcp.handlers.batch import Answer, Flavour, Row
from tmux_contract_mcp.handlers.python.batch import PythonRows
from tmux_contract_mcp.handlers.swift.batch import SwiftRows
from tmux_contract_mcp.profiles import load_profile
from tmux_contract_mcp.reply import compact_json
from tmux_contract_mcp.seam import Answering
from tmux_contract_mcp.wire import LINE_CAP

# The runtime's measure of the wire, as the batch is given it.
WIRE = ServedRuntime(load_profile("python"))

# Characters that JSON spends the most on: control bytes cost six, quotes and
# backslashes two, and multi-byte UTF-8 one per byte.
NASTY = '\x01\x1f"\\é😀 plain text'


def text_of(rng: random.Random, size: int, alphabet: str = NASTY) -> str:
    return "".join(rng.choice(alphabet) for _ in range(size))


def answer_of(
    rng: random.Random,
    flavour: Flavour,
    rows: int,
    size: int,
    alphabet: str = NASTY,
    answering: Answering | None = None,
) -> Answer:
    made: list[Row] = []
    for index in range(rows):
        if rng.random() < 0.2:
            error = text_of(rng, rng.randint(0, 4096), alphabet)
            result = types.CallToolResult(
                content=[types.TextContent(type="text", text=error)], is_error=True
            )
            made.append(Row(index, "get_pane_info", error, result, rng.random()))
            continue
        structured = {"lines": [text_of(rng, size // 4, alphabet) for _ in range(4)], "n": index}
        result = success_result(structured)
        made.append(Row(index, "capture_pane", None, result, rng.random()))
    answer = Answer(made, "continue", None, flavour, WIRE, answering or Answering())
    for row in made:
        row.size = len(compact_json(flavour.result_part(row)).encode())
    return answer


@pytest.mark.parametrize("flavour", [PythonRows(), SwiftRows()], ids=["python", "swift"])
@pytest.mark.parametrize("request_id", [7, "r" * 20_000, "\x01" * 5_000])
@pytest.mark.parametrize("protocol_version", [None, "2025-06-18", "2026-07-28"])
def test_the_bound_is_never_below_the_exact_line(
    flavour: Flavour, request_id: str | int, protocol_version: str | None
) -> None:
    rng = random.Random(f"{type(flavour).__name__}{request_id!r:.10}{protocol_version}")
    server_info = {"name": "tmux-contract-mcp", "version": "0.1.0"}
    answering = Answering(request_id, protocol_version, server_info)
    for _ in range(12):
        size = rng.choice([10, 1000, 6000])
        answer = answer_of(rng, flavour, rng.randint(1, 16), size, answering=answering)
        assert answer.line_bytes_bound() >= answer.line_bytes()


def test_sixteen_ordinary_reads_are_known_to_fit_without_measuring() -> None:
    rng = random.Random(1)
    answer = answer_of(rng, PythonRows(), 16, 2000, alphabet="abc ./-_%$@0123456789")
    assert answer.line_bytes_bound() <= LINE_CAP


def test_an_answer_near_the_cap_is_measured_exactly() -> None:
    rng = random.Random(2)
    answer = answer_of(rng, PythonRows(), 16, 20_000)
    assert answer.line_bytes_bound() > LINE_CAP  # close enough that only the exact size tells
    assert answer.line_bytes() < answer.line_bytes_bound()
