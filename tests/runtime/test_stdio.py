"""The wire: pipes are driven by the event loop, anything else by the SDK's own reader; a
line over the limit is skipped as it arrives and answered."""

from __future__ import annotations

import asyncio
import json
import tracemalloc
from typing import Any

import mcp.types as types
from mcp.shared.message import SessionMessage

from tmux_contract_mcp.stdio import HEAD_LIMIT, MessageReader

# --- the line limit, on a reader in this process with a small limit -----------------------------


class Reader:
    """A reader fed by hand: the errors it answers, and what it passes to the server."""

    def __init__(self, limit: int) -> None:
        self.answers: list[types.JSONRPCError] = []
        self.reader = MessageReader(self.answers.append, line_limit=limit)

    def feed(self, *chunks: bytes) -> None:
        for chunk in chunks:
            self.reader.data_received(chunk)

    def passed_on(self) -> list[SessionMessage | Exception]:
        async def drain() -> list[SessionMessage | Exception]:
            self.reader.eof_received()
            return [item async for item in self.reader]

        return asyncio.run(drain())

    def answered(self) -> list[tuple[Any, int, str]]:
        return [(a.id, a.error.code, a.error.message) for a in self.answers]


def ping(rid: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "ping"}).encode()


def ids(items: list[SessionMessage | Exception]) -> list[object]:
    return [getattr(item.message, "id", None) for item in items if isinstance(item, SessionMessage)]


def test_a_line_over_the_limit_is_answered_with_the_id_at_its_start_and_reading_goes_on() -> None:
    wire = Reader(limit=100)
    start = b'{"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"pad": "'
    wire.feed(start + b"x" * 20, b"x" * 5000, b'"}}\n' + ping(4) + b"\n")
    (answer,) = wire.answered()
    assert answer[:2] == (3, -32600)
    assert "longer than 100 bytes" in answer[2]
    assert ids(wire.passed_on()) == [4]


def test_a_line_at_the_limit_is_read_and_one_byte_more_is_not() -> None:
    exact = ping(5)
    wire = Reader(limit=len(exact))
    wire.feed(exact + b"\n", exact + b" \n", exact[:10], exact[10:] + b"\n")
    assert [(rid, code) for rid, code, _ in wire.answered()] == [(5, -32600)]
    assert ids(wire.passed_on()) == [5, 5]


def test_an_over_long_line_shows_its_id_only_in_its_head_and_a_response_is_not_answered() -> None:
    wire = Reader(limit=64)
    pad = b"x" * HEAD_LIMIT
    late_id = b'{"jsonrpc": "2.0", "method": "ping", "params": {"pad": "' + pad + b'"}, "id": 6}'
    response = b'{"jsonrpc": "2.0", "id": 7, "result": {"pad": "' + pad + b'"}}'
    wire.feed(late_id + b"\n", response + b"\n", b"[" * 100 + b"\n")
    wire.feed(ping(8))  # the last line has no newline
    assert [(rid, code) for rid, code, _ in wire.answered()] == [(None, -32600), (None, -32600)]
    items = wire.passed_on()
    assert ids(items) == [8]
    assert [str(item) for item in items if isinstance(item, Exception)] == [
        "the line is longer than 64 bytes, the most this server reads"
    ]


def test_an_over_long_line_cut_off_by_the_end_of_input_is_answered() -> None:
    wire = Reader(limit=32)
    wire.feed(b'{"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {}}')
    assert wire.passed_on() == []
    assert [(rid, code) for rid, code, _ in wire.answered()] == [(9, -32600)]


def test_a_line_over_the_limit_is_dropped_as_it_arrives_not_held() -> None:
    wire = Reader(limit=1 << 16)
    chunk = b"x" * (1 << 20)
    tracemalloc.start()
    try:
        wire.feed(b'{"jsonrpc": "2.0", "id": 10, "method": "ping", "params": "')
        for _ in range(64):  # 64 MiB in all, a thousand times the limit
            wire.feed(chunk)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    wire.feed(b'"\n')
    assert peak < 4 << 20, f"{peak} bytes held while an over-long line arrived"
    assert [(rid, code) for rid, code, _ in wire.answered()] == [(10, -32600)]
