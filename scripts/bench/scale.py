"""The scale rows: the same tmux server grown to each pane count in turn, every row timed on
every server at each size.

The servers held open for the per-call rows stay open (they hold no state a size could
change); the stubbed column is recorded anew at each size and restarted on that recording,
since it answers only what it was shown.
"""

from __future__ import annotations

from collections.abc import Sequence

from scripts.bench.calls import Call, at_scale
from scripts.bench.layout import Fixed, Scale, grow_to, prepare_fixed
from scripts.bench.measure import Cell, Results, RowId, prepare, progress, time_units
from scripts.bench.record import record
from scripts.bench.servers import (
    STUB_ANSWERS,
    Column,
    Server,
    close_servers,
    open_servers,
    replaying,
    servers_for,
)
from scripts.bench.tmuxalone import ROW, time_tmux_alone
from scripts.lab.tmuxserver import TmuxServer

SCALE_WARM_UPS = 2  # the checked first answer and one more: a peer's call can take a second


def scale_row_ids(rows: Sequence[str], profiles: Sequence[str], panes: int) -> list[RowId]:
    return [RowId(f"scale:{row}", profile, panes) for row in rows for profile in profiles]


def bench_scale(
    tmux: TmuxServer,
    live: Sequence[Server],
    stub: Column | None,
    rows: Sequence[str],
    sizes: Sequence[int],
    profiles: Sequence[str],
    iterations: int,
    results: Results,
) -> list[Scale]:
    """Grow ``tmux`` to each size, time every row on ``live`` and on the stub recorded
    there; the sizes as they were built."""
    fixed: Fixed = prepare_fixed(tmux)
    built = []
    for size in sizes:
        scale = grow_to(tmux, fixed, size)
        built.append(scale)
        progress(f"scale: {scale.label}", len(rows))
        stubs: list[Server] = []
        if stub is not None:
            answers = STUB_ANSWERS / f"scale-{size}"
            recorded = [
                (row, lambda profile, row=row, at=scale: at_scale(row, profile, at)) for row in rows
            ]
            record(stub, answers, recorded, 1)
            stubs = open_servers(servers_for([replaying(stub, answers)]))
        try:
            for row in rows:

                def choose(
                    server: Server, row: str = row, at: Scale = scale
                ) -> tuple[Call | None, str]:
                    call = at_scale(row, server.profile, at)
                    return call, "" if call else f"{server.profile}: no equivalent"

                def cell_of(server: Server, row: str = row, size: int = size) -> Cell:
                    rid = RowId(f"scale:{row}", server.profile, size)
                    return results.setdefault(rid.key, {}).setdefault(server.column.key, Cell())

                servers = [s for s in [*live, *stubs] if s.profile in profiles]
                units = prepare(f"scale:{row}", servers, choose, cell_of, SCALE_WARM_UPS)
                progress(f"scale: {row} at {size} panes", len(units))
                time_units(units, iterations)
            if ROW in rows:
                time_tmux_alone(tmux, profiles, size, iterations, results)
        finally:
            close_servers(stubs)
    return built
