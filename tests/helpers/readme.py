"""The README, read by the tests that hold it to the code."""

from __future__ import annotations

import re

from scripts.lab.client import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(title: str, level: str = "##") -> str:
    """The text under a heading, up to the next heading of the same or a higher level."""
    match = re.search(
        rf"^{level} {re.escape(title)}\n(.*?)(?=^#{{1,{len(level)}}} |\Z)", README, re.M | re.S
    )
    assert match, f"no '{level} {title}' section in README.md"
    return match.group(1)


def table_rows(text: str) -> list[list[str]]:
    """The cells of each body row of the first table in ``text``."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]
