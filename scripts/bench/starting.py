"""The start rows: a fresh server answering tools/list, and the bare SDK import as a floor."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client

from scripts.bench.measure import Results, progress, rotation
from scripts.bench.servers import OUT, Column, describe, log_tail, params


async def cold_once(column: Column, log: TextIO) -> int:
    """Spawn → initialize → tools/list answered; shutting down is not timed."""
    profile = "peer" if column.is_peer else "python"
    elapsed = 0
    with anyio.fail_after(120):
        start = time.perf_counter_ns()
        async with (
            stdio_client(params(column, profile), errlog=log) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.list_tools()
            elapsed = time.perf_counter_ns() - start
    return elapsed


async def import_once(python: str) -> int:
    start = time.perf_counter_ns()
    await anyio.run_process([python, "-c", "import mcp.server.lowlevel"], check=True)
    return time.perf_counter_ns() - start


async def bench_cold(
    columns: Sequence[Column], rows: Sequence[str], iterations: int, results: Results
) -> None:
    """Fresh processes, alternating: each server's start, and the bare SDK import as a floor.

    The import runs once per interpreter and iteration; both of our columns share it.
    """
    cold = "cold_start" in rows
    for column in columns:
        if column.is_stub:  # the stub replaces answers from tmux, not the start
            why = "not measured: the stub replaces tmux answers, not the start"
        elif not column.measures("cold_start"):
            why = "not measured on this row"
        else:
            continue
        for row in ("cold_start", "import_mcp"):
            if row in results:
                results[row][column.key].status, results[row][column.key].note = "n/a", why
    columns = [c for c in columns if not c.is_stub and c.measures("cold_start")]
    pythons = {c.python for c in columns} if "import_mcp" in rows else set()
    for column in columns:
        profile = "peer" if column.is_peer else "python"
        if cold:
            results["cold_start"][column.key].call = f"{profile}:initialize+tools/list"
        if pythons:
            venv = Path(column.python).parent.parent.name
            results["import_mcp"][column.key].call = f"{venv} python"
    progress("cold start / import", columns)
    path = OUT / "logs" / "cold.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as log:
        for i in range(iterations):
            imported: set[str] = set()
            for column in rotation(columns, i):
                cell = results["cold_start"][column.key] if cold else None
                if cell is not None and cell.status == "ok":
                    try:
                        cell.samples.append(await cold_once(column, log))
                    except Exception as exc:
                        log.flush()
                        cell.fail(f"{describe(exc)} (stderr: {log_tail(path)})")
                if column.python not in pythons or column.python in imported:
                    continue
                imported.add(column.python)
                cells = [results["import_mcp"][c.key] for c in columns if c.python == column.python]
                try:
                    elapsed = await import_once(column.python)
                except Exception as exc:
                    for each in cells:
                        each.fail(describe(exc))
                    continue
                for each in cells:
                    if each.status == "ok":
                        each.samples.append(elapsed)
