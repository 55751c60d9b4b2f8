"""The results of fuzz runs as a Markdown table, and each finding on a line."""

from __future__ import annotations

from collections.abc import Sequence

from scripts.fuzz.engine import Report

COLUMNS = (
    ("calls", None),
    ("crashes", "crash"),
    ("internal errors", "internal error"),
    ("hangs", "hang"),
    ("JSON-RPC errors", "json-rpc error"),
    ("changes on invalid input", "changed on invalid input"),
    ("invalid accepted", "invalid accepted"),
    ("results breaking the output schema", "breaks output schema"),
    ("injections", "injection"),
    ("leaks", "leak"),
)


def table(reports: Sequence[Report]) -> str:
    head = "| server | " + " | ".join(name for name, _ in COLUMNS) + " |"
    rule = "|---" * (len(COLUMNS) + 1) + "|"
    rows = []
    for report in reports:
        cells = [str(report.calls if kind is None else report.count(kind)) for _, kind in COLUMNS]
        rows.append(f"| {report.label} | " + " | ".join(cells) + " |")
    return "\n".join([head, rule, *rows])


def summary(report: Report) -> str:
    invalid = report.calls - report.valid
    return (
        f"{report.label}: {report.calls} calls ({report.valid} valid, {invalid} invalid) to "
        f"{len(report.tools)} tools in {report.seconds:.1f} s; {report.succeeded} succeeded, "
        f"{report.refused} answered isError; {report.ran_by_design} marker(s) from tools that "
        f"run commands by design; lab rebuilt {report.rebuilds} time(s), server restarted "
        f"{report.restarts} time(s); {len(report.findings)} finding(s)"
    )


def findings(report: Report, limit: int = 5) -> list[str]:
    """Up to ``limit`` findings of each kind."""
    lines: list[str] = []
    shown: dict[str, int] = {}
    for finding in report.findings:
        shown[finding.kind] = shown.get(finding.kind, 0) + 1
        if shown[finding.kind] <= limit:
            lines.append(f"  {finding}")
    for kind, count in shown.items():
        if count > limit:
            lines.append(f"  ... and {count - limit} more {kind} finding(s)")
    return lines
