"""What the benchmark's report says: one Markdown table per group, with the ratios the issue
names, which peer mode ran, and every sample in the raw JSON. No time is measured here."""

from __future__ import annotations

import json
from pathlib import Path

from scripts.bench.calls import CALL_ROWS, PER_PANE_ROWS, SCALE_ROWS
from scripts.bench.layout import Scale
from scripts.bench.main import parse
from scripts.bench.measure import Cell, Results, RowId, cut_short
from scripts.bench.peer import PEER_QUIET
from scripts.bench.report import (
    CUT,
    FLOOR_PING,
    PEER_RATIO,
    SSH_PART,
    TMUX_PART,
    Run,
    call_table,
    header,
    notes,
    raw,
    report,
    scale_table,
    start_table,
)
from scripts.bench.rpc import Reply
from scripts.bench.servers import PROFILES, Server, make_columns
from scripts.bench.starting import Start
from scripts.bench.tmuxalone import TMUX_ALONE, TMUX_ALONE_LABEL
from scripts.lab.tmuxserver import TmuxServer

NOT_STARTED = TmuxServer(Path("/nonexistent"), "bench-report")  # only its paths are read
PEER = Path("/nonexistent/peer-venv/bin/libtmux-mcp")
SSH = ("127.0.0.1:2222", Path("/nonexistent/ssh_config"))
MS = 1_000_000
# p50 in ms of each column on every row: the peer 20, control 2, subprocess 8, ssh 2.5,
# the stub 1.5 (its ping 0.5)
P50 = {"peer": 20.0, "control": 2.0, "subprocess": 8.0, "ssh": 2.5, "stub": 1.5}


def cells(row: str, profile: str, keys: list[str]) -> dict[str, Cell]:
    found = {}
    for key in keys:
        if key in ("peer", "subprocess") and profile != "python":
            continue
        value = 0.5 if (key, row) == ("stub", "ping") else P50[key]
        found[key] = Cell(call=f"{profile}:{row}", samples=[int(value * MS)] * 3)
    return found


def fake_run(argv: list[str] | None = None) -> Run:
    args = parse(argv or [])
    columns = make_columns(NOT_STARTED, PEER, False, SSH)
    keys = [c.key for c in columns]
    results: Results = {}
    for row in CALL_ROWS:
        for profile in PROFILES:
            results[RowId(row, profile).key] = cells(row, profile, keys)
    scales = [Scale(10, 4, 4, "%4", "%5"), Scale(200, 52, 13, "%4", "%5")]
    for row in SCALE_ROWS:
        for profile in PROFILES:
            for scale in scales:
                rid = RowId(f"scale:{row}", profile, scale.panes)
                results[rid.key] = cells(row, profile, [k for k in keys if k != "subprocess"])
    control = next(c for c in columns if c.key == "control")
    starts = [Start(control, "python", Cell(samples=[700 * MS]), rss_kib=[80 * 1024])]
    held = Server(control, "python", rss_open_kib=80 * 1024, rss_end_kib=84 * 1024)
    imports = {control.python: Cell(samples=[600 * MS])}
    return Run(
        args, columns, list(PROFILES), results, [held], starts, imports, scales,
        {"cpu": "a test"}, {"tmux": "tmux 3.4"}, 12.0, "",
    )  # fmt: skip


def rows_of(table: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()]


def test_the_peer_runs_quiet_unless_asked_for_as_shipped() -> None:
    quiet = make_columns(NOT_STARTED, PEER, peer_as_shipped=False)[0]
    shipped = make_columns(NOT_STARTED, PEER, peer_as_shipped=True)[0]
    assert quiet.is_peer and shipped.is_peer and quiet.profiles == ("python",)
    assert quiet.env.items() >= PEER_QUIET.items()
    assert not set(PEER_QUIET) & set(shipped.env)


def test_the_header_says_which_peer_mode_ran_and_on_what_machine() -> None:
    run = fake_run()
    assert header(run)[0] == "machine: cpu a test"
    assert any("ran quiet (FASTMCP_LOG_LEVEL=WARNING" in line for line in header(run))
    shipped = fake_run(["--peer-as-shipped"])
    assert any("ran as shipped" in line for line in header(shipped))


def test_ours_gets_its_transport_as_a_flag_the_stub_replays_and_profiles_narrow() -> None:
    columns = {c.key: c for c in make_columns(NOT_STARTED, PEER, False)}
    assert columns["control"].args("rust")[-4:] == ["--profile", "rust", "--transport", "control"]
    assert columns["control"].profiles == PROFILES
    assert columns["subprocess"].profiles == ("python",)
    assert columns["subprocess"].args("python")[-2:] == ["--transport", "subprocess"]
    stub = columns["stub"]
    assert stub.is_stub and stub.label == "no tmux, no transport"
    assert stub.args("swift")[:3] == ["-m", "scripts.bench.stubbed", "--replay"]
    assert not stub.measures("wait") and not stub.measures("cold_start")
    assert not columns["subprocess"].measures("scale:list_panes")
    narrowed = {c.key: c for c in make_columns(NOT_STARTED, PEER, False, None, ["swift"])}
    assert "subprocess" not in narrowed and narrowed["control"].profiles == ("swift",)


def test_the_per_call_table_has_a_row_per_profile_and_the_ratios_the_issue_names() -> None:
    rows = rows_of(call_table(fake_run()))
    head = rows[0]
    assert head[:2] == ["row (ms: p50 / p95)", "profile"]
    assert head[-4:] == [PEER_RATIO, FLOOR_PING, TMUX_PART, SSH_PART]
    assert set("".join(rows[1])) == {"-"}
    body = {(r[0], r[1]): dict(zip(head, r, strict=True)) for r in rows[2:]}
    assert len(body) == len(CALL_ROWS) * len(PROFILES)
    python = body[("list_panes", "python")]
    assert python["libtmux-mcp"] == "20.00 / 20.00" and python["ours/control"] == "2.00 / 2.00"
    assert python[PEER_RATIO] == "10.0x"
    assert python[FLOOR_PING] == "1.00 ms"  # the stub's read 1.5 less its ping 0.5
    assert python[TMUX_PART] == "0.50 ms" and python[SSH_PART] == "0.50 ms"
    rust = body[("list_panes", "rust")]
    assert rust["libtmux-mcp"] == "" and rust["ours/subprocess"] == ""
    assert rust[PEER_RATIO] == "10.0x"  # against the peer's python call
    ping = body[("ping (no-op floor)", "swift")]
    assert ping[FLOOR_PING] == ping[TMUX_PART] == ping[SSH_PART] == ""
    assert body[("tools/list", "python")][TMUX_PART] == ""
    wait = body[("wait reaction (print→result)", "python")]
    assert wait[FLOOR_PING] == wait[TMUX_PART] == "" and wait[SSH_PART] == "0.50 ms"


def test_the_scale_table_prints_a_cost_per_pane_where_it_grows_with_the_panes() -> None:
    rows = rows_of(scale_table(fake_run()))
    head = rows[0]
    assert head[:3] == ["row (ms: p50 / p95)", "profile", "panes"]
    assert "ours/subprocess" not in head
    assert head[-3:] == [
        "ms/pane: libtmux-mcp",
        "ms/pane: ours/control",
        "ms/pane: no tmux, no transport",
    ]
    body = [dict(zip(head, r, strict=True)) for r in rows[2:]]
    assert len(body) == len(SCALE_ROWS) * len(PROFILES) * 2
    first = body[0]
    assert first["profile"] == "python" and first["panes"] == "10"
    assert first["ms/pane: ours/control"] == "0.200" and first[PEER_RATIO] == "10.0x"
    at_200 = body[1]
    assert at_200["panes"] == "200" and at_200["ms/pane: libtmux-mcp"] == "0.100"
    for line in body:
        grows = any(line["row (ms: p50 / p95)"].startswith(r) for r in PER_PANE_ROWS)
        assert (line["ms/pane: ours/control"] != "") == grows, line


def test_the_start_table_sets_each_start_beside_its_interpreters_import_and_memory() -> None:
    rows = rows_of(start_table(fake_run()))
    assert rows[0][:4] == [
        "server (ms: p50 / p95)",
        "cold start to tools/list",
        "import mcp.server.lowlevel (to imported)",
        "start − import",
    ]
    assert rows[2] == [
        "ours/control [python]",
        "700.00 / 700.00",
        "600.00 / 600.00",
        "100.00 ms",
        "80.0",
        "80.0 → 84.0 (+5.0 %)",
    ]


def test_the_printed_report_and_the_raw_samples_hold_every_group() -> None:
    run = fake_run()
    printed = report(run)
    for part in ("## Per call", "## Scale", "## Start and memory", call_table(run)):
        assert part in printed
    assert "sizes: 10 panes (4 windows, 4 sessions); 200 panes (52 windows, 13 sessions)" in printed
    assert printed.splitlines()[-1] == f"{run.versions}; 12 s; raw samples: {run.args.out}"
    saved = json.loads(json.dumps(raw(run)))
    assert saved["header"] == header(run)
    assert saved["iterations"]["per_call"] == 200
    assert saved["rows"]["ping/python"]["stub"]["samples_ns"] == [500_000] * 3
    assert set(saved["rows"]) == set(run.results)
    assert saved["scales"][1]["panes"] == 200
    assert set(saved["columns"]) == {c.key for c in run.columns}


def test_an_answer_a_bound_cut_short_is_marked_and_the_notes_say_which_bound() -> None:
    capped = {"result": {"structuredContent": {"matches": [], "capped": True}}}
    assert cut_short(Reply(1, b"", capped)) == "capped=True"
    by = {"result": {"structuredContent": {"truncated": False, "truncated_by": ["limit"]}}}
    assert cut_short(Reply(1, b"", by)) == "truncated_by=['limit']"
    assert cut_short(Reply(1, b"", {"result": {"structuredContent": {"truncated": False}}})) == ""
    run = fake_run()
    rid = RowId("scale:search_panes", "rust", 200)
    run.results[rid.key]["control"].cut_short = "capped=True"
    line = next(
        r for r in rows_of(scale_table(run)) if r[1:3] == ["rust", "200"] and "search" in r[0]
    )
    assert line[4] == f"2.00 / 2.00 {CUT}"
    assert f"- {rid.key} / ours/control: {CUT} cut short: capped=True" in notes(run)


def test_the_scale_table_sets_tmux_alone_beside_the_servers_on_list_panes() -> None:
    run = fake_run()
    for profile in PROFILES:
        rid = RowId("scale:list_panes", profile, 200)
        run.results[rid.key][TMUX_ALONE] = Cell(call="list-panes -a", samples=[6 * MS] * 3)
    rows = rows_of(scale_table(run))
    head = rows[0]
    assert TMUX_ALONE_LABEL in head and f"ms/pane: {TMUX_ALONE_LABEL}" in head
    body = [dict(zip(head, r, strict=True)) for r in rows[2:]]
    listed = [
        r for r in body if r["panes"] == "200" and r["row (ms: p50 / p95)"].startswith("list_panes")
    ]
    assert [r[TMUX_ALONE_LABEL] for r in listed] == ["6.00 / 6.00"] * len(PROFILES)
    assert {r[f"ms/pane: {TMUX_ALONE_LABEL}"] for r in listed} == {"0.030"}
    assert any(TMUX_ALONE_LABEL in line for line in header(run))


def test_the_scale_table_has_no_tmux_alone_column_when_it_was_not_timed() -> None:
    assert TMUX_ALONE_LABEL not in rows_of(scale_table(fake_run()))[0]
