"""The pieces both profiles' handlers share: one rule each, held here by its own tests.

The end-to-end suites of each profile prove the tools; these pin the shared
rules directly, with the cases where the profiles would otherwise drift.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tmux_contract_mcp.handlers.tmux.errors import NoServer, no_server
from tmux_contract_mcp.handlers.tmux.objects import search, settings
from tmux_contract_mcp.handlers.tmux.objects.rows import (
    LinkRow,
    PaneRow,
    SessionRow,
    each_pane_once,
)
from tmux_contract_mcp.handlers.tmux.objects.targets import is_session_id, session_named


def pane(pane_id: str, session_id: str) -> PaneRow:
    return PaneRow({"pane_id": pane_id, "session_id": session_id, "window_id": "@1"})


def test_each_pane_once_keeps_the_first_row_of_a_pane_in_order() -> None:
    rows = [pane("%1", "$1"), pane("%2", "$1"), pane("%1", "$2"), pane("%3", "$2")]
    kept = each_pane_once(rows)
    assert [(row.pane_id, row.session_id) for row in kept] == [
        ("%1", "$1"),
        ("%2", "$1"),
        ("%3", "$2"),
    ]


@pytest.mark.parametrize(
    ("value", "is_id"),
    [("$0", True), ("$12", True), ("$", False), ("$1a", False), ("1", False), ("main", False)],
)
def test_a_dollar_and_digits_is_a_session_id_anything_else_a_name(value: str, is_id: bool) -> None:
    assert is_session_id(value) is is_id


def test_session_named_prefers_the_id_and_falls_back_to_a_name_shaped_like_one() -> None:
    sessions = [
        SessionRow({"session_id": "$1", "session_name": "$2"}),
        SessionRow({"session_id": "$2", "session_name": "work"}),
    ]
    assert session_named(sessions, "$2") == sessions[1]  # the id wins
    assert session_named(sessions, "work") == sessions[1]
    only_named = sessions[:1]
    assert session_named(only_named, "$2") == sessions[0]  # no such id: the name
    assert session_named(sessions, "$9") is None


def test_session_named_reads_window_links_by_the_same_rule() -> None:
    links = [
        LinkRow({"session_id": "$1", "session_name": "$3", "window_id": "@1"}),
        LinkRow({"session_id": "$3", "session_name": "other", "window_id": "@2"}),
    ]
    found = session_named(links, "$3")
    assert found is not None and found.session_id == "$3"
    found = session_named(links[:1], "$3")
    assert found is not None and found.session_id == "$1"


def test_scope_flags_name_each_scope_and_leave_an_unset_one_to_tmux() -> None:
    assert settings.scope_flags(None) == ()
    assert settings.scope_flags("server") == ("-s",)
    assert settings.scope_flags("session") == ()
    assert settings.scope_flags("window") == ("-w",)
    assert settings.scope_flags("pane") == ("-p",)
    assert settings.scope_flags("global_window") == ("-gw",)


def test_no_server_names_the_socket_and_what_to_do() -> None:
    error = no_server("/tmp/tmux-1/default")
    assert isinstance(error, NoServer)
    assert error.message.startswith("no tmux server is running on /tmp/tmux-1/default;")
    assert "LIBTMUX_SOCKET" in error.message


def contains(word: str) -> Callable[[str], bool]:
    return lambda line: word in line


def test_scan_stops_a_pane_at_its_cap_and_says_so() -> None:
    hits, cut = search.scan(["a1", "b", "a2", "a3"], contains("a"), 2, search.Budget())
    assert hits == [(0, "a1"), (2, "a2")]
    assert cut == "per_pane"


def test_scan_counts_matches_and_bytes_across_panes() -> None:
    budget = search.Budget(max_bytes=100, max_matches=3)
    first, cut = search.scan(["a", "a"], contains("a"), 10, budget)
    assert (first, cut) == ([(0, "a"), (1, "a")], None)
    second, cut = search.scan(["a", "a"], contains("a"), 10, budget)
    assert (second, cut) == ([(0, "a")], "matches")
    tight = search.Budget(max_bytes=5, max_matches=None)
    hits, cut = search.scan(["aaa", "aaa"], contains("a"), 10, tight)
    assert (hits, cut) == ([(0, "aaa")], "bytes")


def test_scan_keeps_a_long_line_cut_only_when_the_budget_says() -> None:
    line = "a" * (search.MAX_LINE_CHARS + 5)
    (kept,), _ = search.scan([line], contains("a"), 1, search.Budget())
    assert kept[1] == "a" * search.MAX_LINE_CHARS
    (whole,), _ = search.scan([line], contains("a"), 1, search.Budget(line_chars=None))
    assert whole[1] == line


def test_scan_reports_a_spent_time_budget_with_what_it_found() -> None:
    def test(line: str) -> bool:
        if line == "slow":
            raise search.TimeBudgetSpent
        return True

    hits, cut = search.scan(["x", "slow", "y"], test, 10, search.Budget())
    assert (hits, cut) == ([(0, "x")], "time")
