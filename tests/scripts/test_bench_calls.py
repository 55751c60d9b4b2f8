"""The bench's rows in every profile's spelling: each is a call its contracts accept (the
peer makes python's calls, whose contracts copy its tools), and each profile has every row."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from scripts.bench.calls import (
    BATCH_SIZE,
    CALL_ROWS,
    PING,
    SCALE_ROWS,
    TOOLS_LIST,
    at_scale,
    per_call,
    wait_arguments,
)
from scripts.bench.layout import Layout, Scale
from scripts.lab.client import contracts

LAY = Layout(window="@1", panes=("%1", "%2", "%3", "%4"), wait_pane="%4", wait_tty="/dev/null")
SCALE = Scale(panes=200, windows=52, sessions=13, long_pane="%7", screen_pane="%8")
PROFILES = ("python", "rust", "swift")


def accepted(profile: str, tool: str, arguments: dict[str, object]) -> None:
    schema = contracts(profile)[tool]["inputSchema"]
    Draft202012Validator(schema).validate(arguments)


@pytest.mark.parametrize("profile", PROFILES)
def test_every_per_call_row_is_a_call_the_profile_accepts(profile: str) -> None:
    for row in CALL_ROWS:
        if row == "wait":
            tool, arguments = wait_arguments(profile, "%4", "BENCH1", 5)
            accepted(profile, tool, arguments)
            continue
        call = per_call(row, profile, LAY)
        assert call is not None, (profile, row)
        if row in (PING, TOOLS_LIST):
            assert call.method != "tools/call"
            continue
        for seq in range(LAY.cycle):
            arguments = call.build(seq)
            accepted(profile, call.tool, arguments)
            for op in arguments.get("operations", []):
                accepted(profile, op["tool"], op.get("arguments", {}))
        if row == "batch_16":
            assert len(call.build(0)["operations"]) == BATCH_SIZE


@pytest.mark.parametrize("profile", PROFILES)
def test_every_scale_row_is_a_call_the_profile_accepts(profile: str) -> None:
    for row in SCALE_ROWS:
        call = at_scale(row, profile, SCALE)
        assert call is not None, (profile, row)
        accepted(profile, call.tool, call.build(0))


def test_the_scale_rows_read_the_panes_the_layout_made() -> None:
    for profile in PROFILES:
        long = at_scale("capture_long", profile, SCALE)
        snapshot = at_scale("snapshot_pane", profile, SCALE)
        assert long is not None and snapshot is not None
        assert "%7" in long.build(0).values() and "%8" in snapshot.build(0).values()


def test_consecutive_seqs_select_different_panes_and_cover_every_corner() -> None:
    for profile in PROFILES:
        select = per_call("select_pane", profile, LAY)
        corner = per_call("find_pane_by_position", profile, LAY)
        assert select is not None and corner is not None
        panes = [next(iter(select.build(seq).values())) for seq in range(LAY.cycle)]
        assert len(set(panes)) == LAY.cycle
        assert len({corner.build(seq)["corner"] for seq in range(LAY.cycle)}) == 4
