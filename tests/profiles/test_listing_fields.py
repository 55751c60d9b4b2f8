"""A listing of every pane asks tmux only for what its rows read, and its rows come out
the same as from a listing that asks for every field.

tmux spends most of a large ``list-panes`` expanding each field of each pane, so
list_panes in each profile asks for a short tuple of fields. These tests read real rows
from a real tmux server through the shaper each profile uses, watching every field the
shaper reads: a field it reads and the listing did not ask for fails here, not as a
missing key (or, for a field read with a default, a wrong answer) in front of a client.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import pytest

from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.family import make_dead_pane
from tmux_contract_mcp.handlers.python.rows import ROW_FIELDS, pane_fields
from tmux_contract_mcp.handlers.rust.rows import PANE_FIELDS as RUST_FIELDS
from tmux_contract_mcp.handlers.rust.rows import pane_view
from tmux_contract_mcp.handlers.swift import rows as swift_rows
from tmux_contract_mcp.handlers.tmux.objects.deadpanes import dead_notes
from tmux_contract_mcp.handlers.tmux.objects.refs import Refs
from tmux_contract_mcp.handlers.tmux.objects.rows import PANE_FIELDS, PaneRow
from tmux_contract_mcp.handlers.tmux.objects.server import Server, Tmux

pytestmark = pytest.mark.anyio

REFS = Refs(b"k" * 32)


class Watched(dict[str, str]):
    """A row's raw fields that remember every name read from them, however it is read."""

    def __init__(self, raw: dict[str, str]) -> None:
        super().__init__(raw)
        self.read: set[str] = set()

    def __getitem__(self, key: str) -> str:
        self.read.add(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)


Shaper = Callable[[Server, PaneRow], Any]

PROFILES: dict[str, tuple[Sequence[str], Shaper]] = {
    "python": (ROW_FIELDS, lambda server, row: (pane_fields(server, row), dead_notes([row]))),
    "rust": (RUST_FIELDS, lambda server, row: (pane_view(server, row), dead_notes([row]))),
    "swift": (
        swift_rows.PANE_ROW_FIELDS,
        lambda server, row: (swift_rows.pane(REFS, row), dead_notes([row])),
    ),
}


@pytest.fixture(scope="module")
async def server(shared: TmuxServer) -> AsyncIterator[Server]:
    """The module's tmux server with a split window and a dead pane kept on screen."""
    shared.tmux("split-window", "-d", "-t", "main:")
    make_dead_pane(shared)
    tmux = Tmux(shared.server_env())
    try:
        yield tmux.server()
    finally:
        await tmux.aclose()


@pytest.mark.parametrize("profile", sorted(PROFILES))
async def test_list_panes_reads_only_the_fields_it_asks_tmux_for(
    profile: str, server: Server
) -> None:
    fields, shape = PROFILES[profile]
    rows = await server.list_panes("-a", fields=fields)
    assert len(rows) >= 3
    for row in rows:
        watched = Watched(row.raw)
        shape(server, PaneRow(watched))
        assert watched.read - set(fields) == set(), row.pane_id


@pytest.mark.parametrize("profile", sorted(PROFILES))
async def test_list_panes_rows_match_the_rows_of_every_field(profile: str, server: Server) -> None:
    fields, shape = PROFILES[profile]
    every = (*PANE_FIELDS, *(name for name in fields if name not in PANE_FIELDS))
    asked = await server.list_panes("-a", fields=fields)
    full = await server.list_panes("-a", fields=every)
    assert [shape(server, row) for row in asked] == [shape(server, row) for row in full]
    assert any(notes for _, notes in (shape(server, row) for row in asked))  # a dead pane shows
