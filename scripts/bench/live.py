"""The live row: how soon ``notifications/resources/updated`` follows a subscribed pane's
print (issue 27), python profile.

Each of our local servers gets a client of its own (``scripts.lab.updates``: the SDK's
``ClientSession`` with a message handler that stamps every update) subscribed to the
wait pane's ``tmux://panes/{pane_id}/content``. A sample writes a line straight to the
pane's terminal and times print → update. Samples are spaced past the coalescing
interval, so each is the first print after a quiet spell, the one sent at once; a flood's
later updates are held to one per interval by design and are not latency. The peer
advertises no ``resources.subscribe``, and replayed answers hear no tmux: n/a. Its cells are
the row ``live`` of the python profile (``RowId("live", "python")``), beside the per-call
rows. The update is heard by the SDK's client (a notification is not an answer the raw
client waits for): the same client for every column, so the columns compare.
"""

from __future__ import annotations

import sys
import time
import uuid
from collections.abc import Sequence

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from scripts.bench.calls import LIVE
from scripts.bench.layout import Layout
from scripts.bench.measure import CALL_TIMEOUT, Cell, Results, RowId, progress
from scripts.bench.servers import Column, describe
from scripts.bench.waiting import print_marker
from scripts.lab.updates import Updates, Watching

ROW = LIVE  # its title: calls.ROW_TITLES
PROFILE = "python"
SPACING = 0.25  # seconds between samples: past the 100 ms interval


async def sample(client: Watching, uri: str, lay: Layout, marker: str) -> int:
    """Print ``marker`` into the wait pane; nanoseconds until ``uri``'s next update."""
    since = len(client.updates.seen)
    printed = time.monotonic()
    print_marker(lay.wait_tty, marker)
    update = await client.updates.wait_for(uri, since, timeout=CALL_TIMEOUT)
    return int((update.at - printed) * 1e9)


async def measure(column: Column, lay: Layout, iterations: int, cell: Cell) -> None:
    cell.call = "resources/subscribe tmux://panes/{pane_id}/content"
    uri = f"tmux://panes/{lay.wait_pane}/content"
    updates = Updates()
    params = StdioServerParameters(
        command=column.command, args=column.args("python"), env=column.env, cwd=column.cwd
    )
    token = uuid.uuid4().hex[:6]
    with anyio.fail_after(CALL_TIMEOUT + iterations * (SPACING + CALL_TIMEOUT)):
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write, message_handler=updates) as session,
        ):
            client = Watching(session, "python")
            client.updates = updates
            await session.initialize()
            await client.subscribe(uri)
            await anyio.sleep(SPACING)
            for i in range(-1, iterations):  # -1: the untimed check
                elapsed = await sample(client, uri, lay, f"LIVE{token}{i + 1:04d}")
                if i >= 0:
                    cell.samples.append(elapsed)
                await anyio.sleep(SPACING)
            await client.unsubscribe(uri)


async def bench_live(
    columns: Sequence[Column], lay: Layout, iterations: int, results: Results
) -> None:
    cells = results.setdefault(RowId(ROW, PROFILE).key, {})
    measured = []
    for column in columns:
        if not column.measures(ROW) or PROFILE not in column.profiles:
            continue  # no cell: a blank in the table
        cell = cells.setdefault(column.key, Cell())
        if column.is_peer:
            cell.status, cell.note = "n/a", "advertises no resources.subscribe"
        elif column.is_stub:
            cell.status, cell.note = "n/a", "replayed answers hear no tmux"
        else:
            measured.append(column)
    progress(ROW, len(measured))
    for column in measured:
        try:
            await measure(column, lay, iterations, cells[column.key])
        except Exception as exc:
            cells[column.key].fail(describe(exc))
            print(f"  live / {column.label} FAILED: {describe(exc)}", file=sys.stderr)
