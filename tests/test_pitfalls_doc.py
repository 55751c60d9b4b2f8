"""docs/pitfalls.md names, for each pitfall users report, the tests that keep it: every
name it gives must be a test that exists, wherever the test files have moved to."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "pitfalls.md"


def defined_tests() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        found.update(re.findall(r"^(?:async )?def (test_\w+)\(", path.read_text(), re.M))
    return found


def test_every_test_the_pitfall_page_names_exists() -> None:
    named = set(re.findall(r"`(test_\w+)`", PAGE.read_text()))
    assert len(named) >= 20, named
    assert named - defined_tests() == set()


def test_the_readme_points_to_the_pitfall_page() -> None:
    assert "docs/pitfalls.md" in (ROOT / "README.md").read_text()
