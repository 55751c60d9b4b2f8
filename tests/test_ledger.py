"""The input ledger: reservations end with their block, echoes age out."""

from __future__ import annotations

import pytest

from tmux_contract_mcp.handlers.tmux.policy.ledger import ECHO_WINDOW, Ledger


def test_a_reservation_holds_the_pane_until_its_block_ends_even_on_error() -> None:
    ledger = Ledger()
    with pytest.raises(KeyError), ledger.reserve("%1", "run_shell_command"):
        assert ledger.holder("%1") == "run_shell_command"
        assert ledger.holder("%2") is None
        raise KeyError("boom")
    assert ledger.holder("%1") is None


def test_a_pane_cannot_be_reserved_twice() -> None:
    ledger = Ledger()
    with (
        ledger.reserve("%1", "run_shell_command"),
        pytest.raises(RuntimeError, match="%1"),
        ledger.reserve("%1", "run_shell_command"),
    ):
        pass


def test_submitted_lines_count_as_recent_only_within_the_echo_window() -> None:
    now = [100.0]
    ledger = Ledger(clock=lambda: now[0])
    ledger.submitted("%1", ["make", ""])
    assert ledger.recent("%1") == ["make"] and ledger.recent("%2") == []
    now[0] += ECHO_WINDOW / 2
    ledger.submitted("%1", ["ls"])
    assert ledger.recent("%1") == ["make", "ls"]
    now[0] += ECHO_WINDOW / 2 + 0.01
    assert ledger.recent("%1") == ["ls"]
