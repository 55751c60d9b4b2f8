"""The recording pass behind the "no tmux, no transport" column.

Before anything is timed, a recording server (ours over the control transport,
started by ``scripts.bench.stubbed --record``) makes every call the stubbed
column will make, with every argument it will use, so each tmux command it
sends and tmux's answer are written down. The stubbed column then replays them.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import anyio

from scripts.bench.calls import Layout, choose
from scripts.bench.measure import call_tool
from scripts.bench.servers import Column, Conn, conn_for, describe, open_all


async def record(column: Column, lay: Layout, rows: Sequence[str]) -> None:
    """Run each row's call with every seq the timing will use (they repeat every ``lay.cycle``)."""
    conns = [Conn(column, profile) for profile in column.profiles]
    stop = anyio.Event()
    async with anyio.create_task_group() as tg:
        await open_all(conns, stop, tg)
        try:
            for row in rows:
                call, _ = choose(row, column, conns, lay)
                conn = conn_for(conns, column, call.profile) if call else None
                if call is None or conn is None or conn.session is None:
                    continue  # the stubbed column reports the row n/a for the same reason
                for seq in range(lay.cycle):
                    try:
                        _, error = await call_tool(conn.session, call, seq)
                    except Exception as exc:
                        error = describe(exc)
                    if error:
                        print(f"  recording {row} ({call.label}): {error}", file=sys.stderr)
                        break
        finally:
            stop.set()
