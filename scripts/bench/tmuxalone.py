"""The "tmux alone" cells of the scale table: each profile's list_panes listing, as the
server sends it, through one bare control client and nothing else.

tmux expands every field of every pane for a listing, so at 200 panes its own time is
most of a list_panes call. This times exactly that part: ``list-panes -a -F`` with the
fields the profile's list_panes asks for (the handlers' own tuples, which
``tests/profiles/test_listing_fields.py`` holds to what each profile's rows read), written
to a ``tmux -C`` client's stdin and read back to its ``%end`` line. What a server adds
on top (JSON-RPC, checks, shaping, serialising, its own transport) is the rest of its cell.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Sequence

from scripts.bench.measure import Cell, Results, RowId
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


class BareControlClient:
    """``tmux -C attach``: one command line in, its reply read up to ``%end``/``%error``."""

    def __init__(self, tmux: TmuxServer) -> None:
        env = {**os.environ, **tmux.env}
        env.pop("TMUX", None)
        self.process = subprocess.Popen(
            [TMUX, "-S", tmux.socket_path, "-C", "attach"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        self._reply()  # the attach's own reply
        self.command("refresh-client -f no-output")

    def _reply(self) -> list[bytes]:
        """The lines between ``%begin`` and its ``%end``; notifications around it are read past."""
        assert self.process.stdout is not None
        lines: list[bytes] | None = None
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("the control client closed its output")
            if lines is None:
                if line.startswith(b"%begin"):
                    lines = []
            elif line.startswith((b"%end", b"%error")):
                if line.startswith(b"%error"):
                    raise RuntimeError(b"".join(lines).decode(errors="replace"))
                return lines
            else:
                lines.append(line)

    def command(self, line: str) -> list[bytes]:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()
        return self._reply()

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=10)


def listing(fields: Sequence[str]) -> str:
    """The command line: the format quoted for tmux's parser (names are ours: no quote)."""
    return f"list-panes -a -F '{format_of(fields)}'"


def time_tmux_alone(
    tmux: TmuxServer, profiles: Sequence[str], panes: int, iterations: int, results: Results
) -> None:
    """One cell per profile on the list_panes scale row at ``panes``, in turn."""
    client = BareControlClient(tmux)
    try:
        lines = {p: listing(LIST_PANES_FIELDS[p]) for p in profiles if p in LIST_PANES_FIELDS}
        cells = {}
        for profile, line in lines.items():
            rid = RowId(f"scale:{ROW}", profile, panes)
            cells[profile] = results.setdefault(rid.key, {}).setdefault(TMUX_ALONE, Cell())
            cells[profile].call = line
            for _ in range(WARM_UPS):
                client.command(line)
        for _ in range(iterations):
            for profile, line in lines.items():
                started = time.perf_counter_ns()
                client.command(line)
                cells[profile].samples.append(time.perf_counter_ns() - started)
    finally:
        client.close()
