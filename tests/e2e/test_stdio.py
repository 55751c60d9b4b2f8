"""The command reads its standard input as a real process gets it: from a regular file, one very
long line, hundreds of requests at once (the line reader itself: tests/runtime/test_stdio.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from scripts.lab.client import COMMAND
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.wire import INITIALIZE, INITIALIZED, read_line
from tmux_contract_mcp.profiles import load_profile


def conversation(*messages: dict[str, object]) -> str:
    return "".join(json.dumps(message) + "\n" for message in messages)


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


def test_a_request_line_far_over_the_default_stream_limit_is_read(tmux: TmuxServer) -> None:
    long_id = "i" * 300_000  # asyncio's stream reader refuses lines over 64 KiB by default
    listing: dict[str, object] = {"jsonrpc": "2.0", "id": long_id, "method": "tools/list"}
    replies = exchange(tmux, conversation(INITIALIZE, INITIALIZED, listing), 2)
    assert [reply["id"] for reply in replies] == [1, long_id]
    served = load_profile("swift").shown(tmux.server_env()).tools
    assert [tool["name"] for tool in replies[1]["result"]["tools"]] == list(served)


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
