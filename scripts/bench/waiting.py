"""The wait row: how soon a waiting call answers once the pane prints what it waits for."""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Sequence

from scripts.bench.calls import Call, wait_arguments
from scripts.bench.layout import Layout
from scripts.bench.measure import CALL_TIMEOUT, Cell, progress, rotation
from scripts.bench.rpc import Reply
from scripts.bench.servers import Server, describe

WAIT_SECONDS = 5
PRINT_DELAY = 0.3


def print_marker(tty: str, marker: str) -> None:
    """Write straight to the pane's terminal: output appears at once, nothing is typed."""
    fd = os.open(tty, os.O_WRONLY | os.O_NOCTTY)
    try:
        os.write(fd, f"{marker}\n".encode())
    finally:
        os.close(fd)


def wait_once(server: Server, lay: Layout, marker: str) -> int:
    """Start the wait, print the marker 0.3 s later, time print → the answer's last byte."""
    client = server.client
    assert client is not None
    tool, arguments = wait_arguments(server.profile, lay.wait_pane, marker, WAIT_SECONDS)
    ident = client.send("tools/call", {"name": tool, "arguments": arguments})
    time.sleep(PRINT_DELAY)
    printed = time.perf_counter_ns()
    print_marker(lay.wait_tty, marker)
    stamp, raw, message = client.receive(ident, CALL_TIMEOUT)
    reply = Reply(stamp - printed, raw, message)
    error = reply.error()
    if error:
        raise RuntimeError(error)
    data = reply.structured if isinstance(reply.structured, dict) else {}
    if data.get("outcome") != "matched":
        raise RuntimeError(f"wait ended with outcome {data.get('outcome')!r}")
    return reply.elapsed_ns


def wait_call(server: Server, lay: Layout) -> tuple[Call | None, str]:
    tool, _ = wait_arguments(server.profile, lay.wait_pane, "", WAIT_SECONDS)
    if tool not in server.tools:
        return None, f"{server.profile}: no {tool}"
    return Call(server.profile, tool, lambda seq: {}), ""


def bench_wait(
    servers: Sequence[Server], lay: Layout, iterations: int, cells: dict[str, Cell]
) -> None:
    """``cells``: by server key. Iteration -1 is an untimed check of every server."""
    waiting: list[tuple[Server, Cell]] = []
    for server in servers:
        if not server.column.measures("wait"):
            continue  # the stub: a wait needs tmux to print
        cell = cells[server.key]
        if server.client is None:
            cell.skip(f"server unavailable: {server.error}")
            continue
        call, why = wait_call(server, lay)
        if call is None:
            cell.skip(why)
            continue
        tool, arguments = wait_arguments(server.profile, "PANE", "MARKER", WAIT_SECONDS)
        cell.call = f"{tool} ({', '.join(f'{k}={v!r}' for k, v in arguments.items())})"
        waiting.append((server, cell))
    progress("wait", len(waiting))
    token = uuid.uuid4().hex[:6]
    for i in range(-1, iterations):
        for n, (server, cell) in enumerate(rotation(waiting, max(i, 0))):
            if cell.status != "ok":
                continue
            marker = f"BENCH{token}N{n}I{i + 1:04d}{server.key.replace('/', '')}"
            try:
                elapsed = wait_once(server, lay, marker)
            except Exception as exc:
                cell.fail(f"iteration {i}: {describe(exc)}")
                print(f"  wait / {server.label} FAILED: {cell.note}", file=sys.stderr)
                continue
            if i >= 0:
                cell.samples.append(elapsed)
