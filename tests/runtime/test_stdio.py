"""The wire: pipes are driven by the event loop, anything else by the SDK's own reader; a
line over the limit is skipped as it arrives and answered."""

from __future__ import annotations

import asyncio
import json
import subprocess
import tracemalloc
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp.shared.message import SessionMessage

from scripts.lab.client import COMMAND
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.wire import INITIALIZE, INITIALIZED, read_line
from tmux_contract_mcp.profiles import load_profile
from tmux_contract_mcp.stdio import HEAD_LIMIT, MessageReader


def conversation(*messages: dict[str, object]) -> str:
    return "".join(json.dumps(message) + "\n" for message in messages)


@pytest.mark.e2e
def test_a_server_reading_a_regular_file_falls_back_to_the_sdk_reader(
    tmux: TmuxServer, tmp_path: Path
) -> None:
    # A regular file cannot be watched by the event loop; the SDK's reader takes it. The
    # file ends at once, and the SDK stops at end of input, so only initialize is sure
    # to be answered.
    requests = tmp_path / "requests.jsonl"
    requests.write_text(conversation(INITIALIZE))
    answers = tmp_path / "answers.jsonl"
    with requests.open("rb") as stdin, answers.open("wb") as stdout:
        done = subprocess.run(
            [COMMAND, "--profile", "swift"],
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            env=tmux.server_env(),
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in answers.read_text().splitlines()]
    assert [reply["id"] for reply in replies] == [1]
    assert replies[0]["result"]["serverInfo"]["name"] == "tmux-contract-mcp"


def exchange(tmux: TmuxServer, wire: str, answers: int) -> list[dict[str, Any]]:
    """Write ``wire`` to a swift server's stdin at once, then read ``answers`` replies."""
    server = subprocess.Popen(
        [COMMAND, "--profile", "swift"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=tmux.server_env(),
        bufsize=0,  # unbuffered, so select() sees every line still to be read
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write(wire.encode())
        server.stdin.flush()
        return [json.loads(read_line(server.stdout)) for _ in range(answers)]
    finally:
        server.stdin.close()
        server.wait(timeout=30)


@pytest.mark.e2e
def test_a_request_line_far_over_the_default_stream_limit_is_read(tmux: TmuxServer) -> None:
    long_id = "i" * 300_000  # asyncio's stream reader refuses lines over 64 KiB by default
    listing: dict[str, object] = {"jsonrpc": "2.0", "id": long_id, "method": "tools/list"}
    replies = exchange(tmux, conversation(INITIALIZE, INITIALIZED, listing), 2)
    assert [reply["id"] for reply in replies] == [1, long_id]
    served = load_profile("swift").shown(tmux.server_env()).tools
    assert [tool["name"] for tool in replies[1]["result"]["tools"]] == list(served)


@pytest.mark.e2e
def test_hundreds_of_requests_written_at_once_are_all_answered(tmux: TmuxServer) -> None:
    # More lines than the reader queues before it pauses reading the pipe: pausing
    # and resuming must lose none, and a line that is not JSON stops nothing (it is
    # answered with a parse error).
    pings: list[dict[str, object]] = [
        {"jsonrpc": "2.0", "id": n, "method": "ping"} for n in range(2, 302)
    ]
    wire = conversation(INITIALIZE, INITIALIZED) + "this is not json\n" + conversation(*pings)
    replies = exchange(tmux, wire, 2 + len(pings))
    errors = [reply for reply in replies if reply["id"] is None]
    assert [error["error"]["code"] for error in errors] == [-32700]
    answered = sorted(reply["id"] for reply in replies if reply["id"] is not None)
    assert answered == list(range(1, 302))
    assert all(reply["result"] == {} for reply in replies if reply["id"] not in (None, 1))


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
