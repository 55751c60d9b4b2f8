"""The recording pass behind the "no tmux, no transport" column.

Before anything is timed, a recording server per profile (ours over the control transport,
started by ``scripts.bench.stubbed --record``) makes every call the stubbed column will
make, with every argument it will use, so each tmux command it sends and tmux's answer are
written down. The stubbed column is then started on that recording and replays it.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from scripts.bench.calls import Call
from scripts.bench.measure import invoke, reply_error
from scripts.bench.servers import (
    Column,
    close_servers,
    describe,
    open_servers,
    recorder,
    servers_for,
)

# A row's name, and its call on a profile's surface (None: no such call there).
Recorded = tuple[str, Callable[[str], Call | None]]


def record(stub: Column, answers: Path, rows: Sequence[Recorded], seqs: int) -> None:
    """Run each row's call with every seq the timing will use (its arguments repeat every
    ``seqs``), writing tmux's answers to ``answers``."""
    shutil.rmtree(answers, ignore_errors=True)
    answers.mkdir(parents=True)
    servers = open_servers(servers_for([recorder(stub, answers)]))
    try:
        for server in servers:
            if server.client is None:
                continue  # the stubbed column reports the rows unavailable for the same reason
            for row, choose in rows:
                call = choose(server.profile)
                if call is None or call.method != "tools/call" or call.tool not in server.tools:
                    continue
                for seq in range(seqs):
                    try:
                        error = reply_error(invoke(server, call, seq), call)
                    except Exception as exc:
                        error = describe(exc)
                    if error:
                        print(f"  recording {row} ({server.label}): {error}", file=sys.stderr)
                        break
    finally:
        close_servers(servers)
