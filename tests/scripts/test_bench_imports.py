"""What the bench says a stdio server imports beyond the SDK: the -X importtime parser, and
the tables built from its tree."""

from __future__ import annotations

import sys

import pytest

from scripts.bench.imports import (
    baseline_tree,
    beyond_us,
    by_package,
    extras,
    modules,
    package_of,
    parse,
    report,
)
from scripts.bench.starting import import_once

# Children are printed before their parent, two spaces deeper; other stderr lines are noise.
SERVER = """\
import time: self [us] | cumulative | imported package
import time:       100 |        100 |   encodings.aliases
import time:       200 |        300 | encodings
a warning on stderr
import time:        10 |         10 |       mcp.types.inner
import time:        40 |         50 |     mcp.types
import time:        50 |         50 |     regex
import time:        30 |        130 |   tmux_contract_mcp.handlers.search
import time:         5 |        135 | tmux_contract_mcp.cli
import time:        70 |         70 | tmux_contract_mcp.generated.python
"""
BASELINE = """\
import time:       100 |        100 |   encodings.aliases
import time:       200 |        300 | encodings
import time:        10 |         10 |   mcp.types.inner
import time:        40 |         50 | mcp.types
"""


def test_the_tree_nests_each_module_under_the_one_printed_after_it_one_level_up() -> None:
    roots = parse(SERVER)
    assert [r.name for r in roots] == ["encodings", "tmux_contract_mcp.cli", SERVER_GENERATED]
    cli = roots[1]
    (search,) = cli.children
    assert search.name == "tmux_contract_mcp.handlers.search" and search.parent is cli
    assert [c.name for c in search.children] == ["mcp.types", "regex"]
    assert search.children[0].children[0].name == "mcp.types.inner"
    assert (search.self_us, search.cumulative_us, search.level) == (30, 130, 1)
    assert len(modules(roots)) == 8


SERVER_GENERATED = "tmux_contract_mcp.generated.python"


def test_beyond_the_baseline_counts_only_the_modules_the_bare_import_did_not_load() -> None:
    roots = parse(SERVER)
    baseline = {m.name for m in modules(parse(BASELINE))}
    cli = roots[1]
    assert beyond_us(cli, baseline) == 5 + 30 + 50  # mcp.types and its child were loaded anyway
    found = extras(roots, baseline)
    assert [(e.name, e.beyond_us, e.parent) for e in found] == [
        ("tmux_contract_mcp.cli", 85, "(at run time)"),
        ("tmux_contract_mcp.handlers.search", 80, "tmux_contract_mcp.cli"),
        (SERVER_GENERATED, 70, "(at run time)"),
        ("regex", 50, "tmux_contract_mcp.handlers.search"),
    ]
    assert by_package(roots, baseline) == [
        ("tmux_contract_mcp.generated", 1, 70),
        ("regex", 1, 50),
        ("tmux_contract_mcp.handlers", 1, 30),
        ("tmux_contract_mcp.cli", 1, 5),
    ]
    assert package_of("regex._main") == "regex"


def test_the_report_has_a_summary_and_two_markdown_tables() -> None:
    text = report(parse(SERVER), parse(BASELINE), top=2)
    lines = text.splitlines()
    assert "0.5 ms in 8 modules" in lines[0] and "beyond it: 0.2 ms in 4 modules" in lines[0]
    assert lines[2] == "| package (beyond the SDK's import) | modules | self ms |"
    assert lines[4] == "| tmux_contract_mcp.generated | 1 | 0.1 |"
    assert lines[6 + 1].startswith("| module (beyond the SDK's import) | beyond ms |")
    assert len([line for line in lines if line.startswith("| tmux_contract_mcp")]) == 3


def test_the_bare_import_of_the_sdk_is_parsed_from_a_real_interpreter() -> None:
    names = {m.name for m in modules(baseline_tree(sys.executable))}
    assert {"mcp.server.lowlevel", "encodings"} <= names


def test_the_bare_import_is_timed_to_imported_and_a_failing_one_is_an_error() -> None:
    assert import_once(sys.executable) > 0
    with pytest.raises(RuntimeError, match="failed"):
        import_once("/bin/false")
