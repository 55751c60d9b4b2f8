"""make soak: a short real run stays within its bounds, every bound can fail, and each
profile's mix is still made of calls its contracts accept."""

from __future__ import annotations

import dataclasses

import pytest
from jsonschema import Draft202012Validator

from scripts.lab.client import contracts
from scripts.soak import MIXES, Bounds, Layout, Snapshot, growth_pct, problems

BASE = Snapshot(rss_kib=80 * 1024, fds=13, threads=2, children=("tmux: client",), tmux_clients=1)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"rss_kib": BASE.rss_kib + 5 * 1024}, "resident memory grew 5.0 MiB (bound 4 MiB)"),
        ({"rss_kib": BASE.rss_kib + 5 * 1024}, "resident memory grew 6.2 % (bound 5 %)"),
        ({"fds": 14}, "open file descriptors grew 13 -> 14"),
        ({"threads": 3}, "threads grew 2 -> 3"),
        ({"children": ("sh", "tmux: client")}, "child processes grew"),
        ({"tmux_clients": 2}, "tmux clients grew 1 -> 2"),
    ],
)
def test_each_figure_that_grows_past_its_bound_fails_the_soak(
    change: dict[str, object], says: str
) -> None:
    end = dataclasses.replace(BASE, **change)  # type: ignore[arg-type]
    assert [says in found for found in problems(BASE, end, Bounds())].count(True) == 1


def test_resident_memory_has_a_bound_in_mib_and_one_in_percent() -> None:
    grew = dataclasses.replace(BASE, rss_kib=BASE.rss_kib + 5 * 1024)  # +6.25 %
    assert len(problems(BASE, grew, Bounds())) == 2
    assert problems(BASE, grew, Bounds(rss_growth_mib=6, rss_growth_pct=7)) == []
    assert ["6.2 %" in p for p in problems(BASE, grew, Bounds(rss_growth_mib=6))] == [True]
    assert growth_pct(80 * 1024, 84 * 1024) == 5.0


def test_figures_within_their_bounds_pass_and_shrinking_is_no_failure() -> None:
    assert problems(BASE, BASE, Bounds()) == []
    grew_a_little = dataclasses.replace(BASE, rss_kib=BASE.rss_kib + 3 * 1024)  # +3.75 %
    assert problems(BASE, grew_a_little, Bounds()) == []
    smaller = Snapshot(rss_kib=70 * 1024, fds=11, threads=1, children=(), tmux_clients=0)
    assert problems(BASE, smaller, Bounds()) == []


@pytest.mark.parametrize("profile", sorted(MIXES))
def test_every_call_of_a_profiles_mix_is_one_its_contracts_accept(profile: str) -> None:
    known = contracts(profile)
    lay = Layout(window="@1", panes=["%1", "%2", "%3"], cursors={"%2": "c1"})
    for step in MIXES[profile]():
        assert step.tool in known, f"{profile} has no tool {step.tool}"
        schema = known[step.tool]["inputSchema"]
        for seq in range(6):
            Draft202012Validator(schema).validate(step.build(lay, seq))
