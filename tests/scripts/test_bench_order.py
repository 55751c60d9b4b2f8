"""The benchmark's call order is fair: no server always follows the same one."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from scripts.bench.measure import period, rotation


@pytest.mark.parametrize("count", range(2, 12))
def test_each_server_follows_each_other_server_equally_often(count: int) -> None:
    """Up to eleven servers take turns in a row (three profiles over four columns and the
    peer): over every ``period`` iterations, each comes first equally often and follows
    each other one equally often."""
    servers = [f"s{n}" for n in range(count)]
    follows: Counter[tuple[str, str]] = Counter()
    first: Counter[str] = Counter()
    for i in range(3 * period(count)):
        order = rotation(servers, i)
        assert sorted(order) == sorted(servers)
        first[order[0]] += 1
        follows.update(itertools.pairwise(order))
    pairs = {(a, b) for a in servers for b in servers if a != b}
    assert set(follows) == pairs
    assert len(set(follows.values())) == 1
    assert len(set(first.values())) == 1 and set(first) == set(servers)


def test_the_period_is_the_count_when_even_and_twice_it_when_odd() -> None:
    assert [period(n) for n in (1, 2, 3, 4, 5, 11)] == [2, 2, 6, 4, 10, 22]
    assert rotation(["only"], 7) == ["only"]


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6, 7])
def test_a_few_iterations_already_balance_the_order(count: int) -> None:
    """Within 2n iterations (n columns), not n!: a row of 200 iterations stays fair."""
    cols = [f"c{n}" for n in range(count)]
    follows: Counter[tuple[str, str]] = Counter()
    first: Counter[str] = Counter()
    for i in range(2 * count):
        order = rotation(cols, i)
        first[order[0]] += 1
        follows.update(itertools.pairwise(order))
    assert len(follows) == count * (count - 1) and len(set(follows.values())) == 1
    assert len(set(first.values())) == 1 and len(first) == count
