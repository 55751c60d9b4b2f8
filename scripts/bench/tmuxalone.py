"""The "tmux alone" cells of the scale table: each profile's list_panes listing, as the
server sends it, through one bare control client and nothing else.

tmux expands every field of every pane for a listing, so at 200 panes its own time is
most of a list_panes call. This times exactly that part: ``list-panes -a -F`` with the
fields the profile's list_panes asks for (the handlers' own tuples, which
``tests/profiles/test_listing_fields.py`` holds to what each profile's rows read), written
to a ``tmux -C`` client's stdin (``scripts.lab.controlmode``) and read back to its
``%end`` line. What a server adds
on top (JSON-RPC, checks, shaping, serialising, its own transport) is the rest of its cell.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

from scripts.bench.measure import Cell, Results, RowId
from scripts.lab.controlmode import ControlMode
from scripts.lab.tmuxserver import TMUX, TmuxServer
from tmux_contract_mcp.handlers.python.rows import ROW_FIELDS
from tmux_contract_mcp.handlers.rust.rows import PANE_FIELDS as RUST_FIELDS
from tmux_contract_mcp.handlers.swift.rows import PANE_ROW_FIELDS
from tmux_contract_mcp.handlers.tmux.transport.formats import format_of

TMUX_ALONE = "tmux"
TMUX_ALONE_LABEL = "tmux alone"
ROW = "list_panes"
WARM_UPS = 2

LIST_PANES_FIELDS: dict[str, tuple[str, ...]] = {
    "python": ROW_FIELDS,
    "rust": RUST_FIELDS,
    "swift": PANE_ROW_FIELDS,
}
"""What each profile's list_panes of every pane asks tmux for."""


def bare_client(tmux: TmuxServer) -> ControlMode:
    """One control client of ``tmux``'s server and nothing else (no output notifications)."""
    env = {**os.environ, **tmux.env}
    env.pop("TMUX", None)
    argv = [TMUX, "-S", tmux.socket_path, "-C", "attach-session", "-f", "ignore-size,no-output"]
    return ControlMode(argv, env)


def command(client: ControlMode, line: str) -> list[str]:
    """The reply to one command line; a failure or a gone tmux raises."""
    blocks = client.run([line])
    if blocks is None:
        raise RuntimeError("the control client's tmux went away")
    (reply,) = blocks
    if reply and reply[0].startswith("!"):
        raise RuntimeError(f"{line}: {reply[0][1:]}")
    return reply


def listing(fields: Sequence[str]) -> str:
    """The command line: the format quoted for tmux's parser (names are ours: no quote)."""
    return f"list-panes -a -F '{format_of(fields)}'"


def time_tmux_alone(
    tmux: TmuxServer, profiles: Sequence[str], panes: int, iterations: int, results: Results
) -> None:
    """One cell per profile on the list_panes scale row at ``panes``, in turn."""
    client = bare_client(tmux)
    try:
        lines = {p: listing(LIST_PANES_FIELDS[p]) for p in profiles if p in LIST_PANES_FIELDS}
        cells = {}
        for profile, line in lines.items():
            rid = RowId(f"scale:{ROW}", profile, panes)
            cells[profile] = results.setdefault(rid.key, {}).setdefault(TMUX_ALONE, Cell())
            cells[profile].call = line
            for _ in range(WARM_UPS):
                command(client, line)
        for _ in range(iterations):
            for profile, line in lines.items():
                started = time.perf_counter_ns()
                command(client, line)
                cells[profile].samples.append(time.perf_counter_ns() - started)
    finally:
        client.close()
