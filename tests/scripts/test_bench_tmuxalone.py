"""The "tmux alone" cells time each profile's list_panes listing through a bare control
client, on a real tmux server, and read back every pane it lists."""

from __future__ import annotations

from scripts.bench.measure import Results, RowId
from scripts.bench.tmuxalone import (
    LIST_PANES_FIELDS,
    TMUX_ALONE,
    bare_client,
    command,
    listing,
    time_tmux_alone,
)
from scripts.lab.tmuxserver import TmuxServer
from tmux_contract_mcp.handlers.tmux.transport.formats import SEP


def test_the_bare_client_reads_one_row_per_pane_with_every_field_asked(tmux: TmuxServer) -> None:
    tmux.tmux("split-window", "-d")
    panes = set(tmux.lines("list-panes", "-a", "-F", "#{pane_id}"))
    client = bare_client(tmux)
    try:
        for fields in LIST_PANES_FIELDS.values():
            lines = command(client, listing(fields))
            assert {line.split(SEP)[0] for line in lines} == panes
            assert {line.count(SEP) for line in lines} == {len(fields) - 1}
    finally:
        client.close()


def test_tmux_alone_times_each_profile_on_the_list_panes_row_and_leaves_no_client(
    tmux: TmuxServer,
) -> None:
    results: Results = {}
    time_tmux_alone(tmux, ["python", "rust", "swift"], 1, 3, results)
    for profile in ("python", "rust", "swift"):
        cell = results[RowId("scale:list_panes", profile, 1).key][TMUX_ALONE]
        assert len(cell.samples) == 3 and all(s > 0 for s in cell.samples)
        assert cell.call.startswith("list-panes -a -F ")
    assert tmux.lines("list-clients", "-F", "#{client_name}") == []
