"""The start rows: a fresh server answering tools/list (and its resident memory then), and
the bare SDK import as a floor."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from scripts.bench.measure import Cell, progress, rotation
from scripts.bench.rpc import RawClient
from scripts.bench.servers import OUT, Column, describe, log_tail, rss_kib

IMPORT = "import mcp.server.lowlevel"


@dataclass
class Start:
    """One server's starts: the time of each, and its resident memory once it answered."""

    column: Column
    profile: str
    cell: Cell
    rss_kib: list[int] = field(default_factory=list)


def cold_once(column: Column, profile: str, log: IO[Any]) -> tuple[int, int | None]:
    """Spawn → initialize → tools/list answered (ns), and the RSS then; closing is not timed."""
    start = time.perf_counter_ns()
    client = RawClient(column.argv(profile), column.env, column.cwd, log)
    try:
        client.initialize(120)
        listed = client.list_tools(120)
        elapsed = time.perf_counter_ns() - start
        if listed.error() or not listed.result.get("tools"):
            raise RuntimeError(f"tools/list: {listed.error() or 'no tools'}")
        return elapsed, rss_kib(client.pid)
    finally:
        client.close()


def import_once(python: str) -> int:
    """Spawn → ``mcp.server.lowlevel`` imported (a line on stdout says so), as the cold start
    is spawn → answered: the interpreter's exit is timed in neither."""
    start = time.perf_counter_ns()
    with subprocess.Popen(
        [python, "-c", f"{IMPORT}; print('imported', flush=True)"], stdout=subprocess.PIPE
    ) as process:
        assert process.stdout is not None
        line = process.stdout.readline()
        elapsed = time.perf_counter_ns() - start
        process.stdout.read()
    if process.returncode != 0 or line.strip() != b"imported":
        raise RuntimeError(f"{python} -c '{IMPORT}' failed (exit {process.returncode})")
    return elapsed


def bench_cold(starts: Sequence[Start], imports: dict[str, Cell], iterations: int) -> None:
    """Fresh processes, alternating: each server's start, and each interpreter's bare SDK
    import (``imports``: by interpreter) as its floor."""
    for start in starts:
        start.cell.call = f"{start.profile}: initialize + tools/list"
    for python, cell in imports.items():
        cell.call = f"{Path(python).parent.parent.name} python -c '{IMPORT}' (to imported)"
    progress("cold start / import", len(starts) + len(imports))
    path = OUT / "logs" / "cold.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    units: list[Start | str] = [*starts, *imports]
    with path.open("w") as log:
        for i in range(iterations):
            for unit in rotation(units, i):
                cell = imports[unit] if isinstance(unit, str) else unit.cell
                if cell.status != "ok":
                    continue
                try:
                    if isinstance(unit, str):
                        cell.samples.append(import_once(unit))
                        continue
                    elapsed, rss = cold_once(unit.column, unit.profile, log)
                except Exception as exc:
                    log.flush()
                    cell.fail(f"{describe(exc)} (stderr: {log_tail(path)})")
                    continue
                cell.samples.append(elapsed)
                if rss is not None:
                    unit.rss_kib.append(rss)
