"""A short soak (scripts/soak.py) against the installed command: every kind of call, within its
bounds (the soak's own arithmetic: tests/scripts/test_soak.py)."""

from __future__ import annotations

import pytest

from scripts.soak import main


def test_a_short_soak_runs_every_kind_of_call_and_stays_within_its_bounds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--calls", "200", "--warmup", "40", "--profile", "python"]) == 0
    out = capsys.readouterr().out
    assert "python: 200 calls" in out, out
    for kind in ("batchs", "reads", "waits", "writes"):
        assert kind in out, out
    assert "within bounds" in out and "FAIL" not in out, out
    assert "after start  after warm-up     at the end" in out, out
    assert "% from warm-up to the end" in out, out
