"""The sizes part of make bench: what it counts, and the server it grows."""

from __future__ import annotations

from scripts.bench.sizes import Table, grow, report
from scripts.lab.tmuxserver import TmuxServer
from scripts.lab.wiresize import Size, answer_sizes, tokens


def test_an_answer_is_counted_as_its_text_and_its_structured_content_apart() -> None:
    result = {
        "content": [{"type": "text", "text": "é%1"}],
        "structuredContent": {"result": "é%1"},
        "isError": False,
    }
    text, structured = answer_sizes(result)
    assert text == Size(len("é%1".encode()), tokens("é%1"))
    assert structured.bytes == len('{"result":"é%1"}'.encode())


def test_a_result_without_structured_content_counts_none() -> None:
    _, structured = answer_sizes({"content": [{"type": "text", "text": "x"}]})
    assert structured == Size(0, 0)


def test_grow_fills_the_server_to_the_pane_count(tmux: TmuxServer) -> None:
    grow(tmux, 27)
    rows = tmux.lines("list-panes", "-a", "-F", "#{session_name} #{window_id}")
    assert len(rows) == 27
    windows = {row.split()[1] for row in rows if row.startswith("g")}
    sessions = {row.split()[0] for row in rows if row.startswith("g")}
    assert (len(sessions), len(windows)) == (2, 7)  # 26 grown panes: 5+2 windows of 4


def test_the_report_gives_every_surface_a_column_and_a_missing_tool_n_a() -> None:
    size = Size(1234, 56)
    table = Table(
        ["ours", "peer"],
        {"tools/list, default toolsets": {"ours": size, "peer": size}},
        {"list_windows, 200 panes": {"ours": (size, size), "peer": None}},
    )
    text = report(table)
    assert "| | ours | peer |" in text
    assert "| tools/list, default toolsets | 1,234 B / 56 tok | 1,234 B / 56 tok |" in text
    assert "| list_windows, 200 panes | 1,234 B / 56 tok · 1,234 B / 56 tok | n/a |" in text
