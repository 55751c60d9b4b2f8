"""``docs/conformance.md``'s two tables: the conformance scenarios and checks the test does not
judge, and the profiles each row holds for."""

from __future__ import annotations

import re
from dataclasses import dataclass

from scripts.lab.client import ROOT
from tests.helpers.readme import table_rows

DOC = (ROOT / "docs" / "conformance.md").read_text(encoding="utf-8")


def doc_section(title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", DOC, re.M | re.S)
    assert match, f"no '## {title}' section in docs/conformance.md"
    return match.group(1)


def _profiles(cell: str, every: tuple[str, ...]) -> frozenset[str]:
    return frozenset(every if cell == "all" else (name.strip() for name in cell.split(",")))


@dataclass(frozen=True)
class NotJudged:
    scenario: str
    check: str | None  # None: the whole scenario
    profiles: frozenset[str]


def not_judged(every: tuple[str, ...]) -> list[NotJudged]:
    rows = [
        NotJudged(row[0].strip("`"), None, _profiles(row[1], every))
        for row in table_rows(doc_section("Scenarios not judged"))
    ]
    rows += [
        NotJudged(row[0].strip("`"), row[1].strip("`"), _profiles(row[2], every))
        for row in table_rows(doc_section("Checks not judged"))
    ]
    return rows
