"""The benchmark's call order is fair: no column always follows the same one."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest

from scripts.bench.measure import rotation
from scripts.bench.servers import Column


def columns(count: int) -> list[Column]:
    return [Column(f"c{n}", f"c{n}", "cmd", {}, ("python",), "python") for n in range(count)]


@pytest.mark.parametrize("count", [2, 3, 4, 5])
def test_each_column_follows_each_other_column_equally_often(count: int) -> None:
    cols = columns(count)
    cycle = math.factorial(count)  # every order once
    follows: Counter[tuple[str, str]] = Counter()
    first: Counter[str] = Counter()
    for i in range(cycle):
        order = rotation(cols, i)
        assert sorted(c.key for c in order) == sorted(c.key for c in cols)
        first[order[0].key] += 1
        follows.update((a.key, b.key) for a, b in itertools.pairwise(order))
    pairs = {(a.key, b.key) for a in cols for b in cols if a is not b}
    assert set(follows) == pairs
    assert len(set(follows.values())) == 1
    assert len(set(first.values())) == 1 and set(first) == {c.key for c in cols}


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6, 7])
def test_a_few_iterations_already_balance_the_order(count: int) -> None:
    """Within 2n iterations (n columns), not n!: a row of 200 iterations stays fair."""
    cols = columns(count)
    follows: Counter[tuple[str, str]] = Counter()
    first: Counter[str] = Counter()
    for i in range(2 * count):
        order = rotation(cols, i)
        first[order[0].key] += 1
        follows.update((a.key, b.key) for a, b in itertools.pairwise(order))
    assert len(follows) == count * (count - 1) and len(set(follows.values())) == 1
    assert len(set(first.values())) == 1 and len(first) == count
