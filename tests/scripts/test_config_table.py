"""docs/configuration.md's table of every setting is what scripts/config_table.py makes of the
command line and the profile descriptions, and names every variable the code reads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scripts import config_table
from scripts.lab.client import ROOT
from tests.helpers.readme import body, table_rows
from tmux_contract_mcp.cli import parser

SET_BY_THIS_SERVER = {"LIBTMUX_MCP_OWNER"}
"""Set by this server in the environment of a tmux server it starts; no user sets it."""


def test_the_pages_table_is_the_one_the_script_makes() -> None:
    text = config_table.PAGE.read_text(encoding="utf-8")
    assert config_table.rewritten(text) == text, "run python -m scripts.config_table"
    assert config_table.main(["--check"]) == 0


def test_the_check_fails_on_a_table_edited_by_hand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = tmp_path / "configuration.md"
    text = config_table.PAGE.read_text(encoding="utf-8")
    page.write_text(text.replace("| `--profile`", "| `--profiles`", 1), encoding="utf-8")
    monkeypatch.setattr(config_table, "PAGE", page)
    assert config_table.main(["--check"]) == 1
    assert config_table.main([]) == 0
    assert page.read_text(encoding="utf-8") == text


def test_every_option_of_the_command_line_has_a_row() -> None:
    named = {
        n
        for row in table_rows(body("docs/configuration.md"))
        for n in re.findall(r"`(--[a-z-]+)`", row[0])
    }
    taken = {
        option
        for action in parser()._actions
        if action.dest not in config_table.SKIPPED
        for option in action.option_strings
    }
    assert named == taken


def test_every_variable_the_code_reads_has_a_row() -> None:
    code = "\n".join(
        path.read_text(encoding="utf-8")
        for folder in ("runtime", "handlers")
        for path in (ROOT / folder).rglob("*.py")
    )
    read = set(re.findall(r'"((?:TMUX_CONTRACT_MCP|LIBTMUX|TMUX_MCP)_[A-Z_]+)"', code))
    named = {
        n
        for row in table_rows(body("docs/configuration.md"))
        for n in re.findall(r"`([A-Z][A-Z0-9_]+)`", row[0])
    }
    assert read - SET_BY_THIS_SERVER <= named, sorted(read - SET_BY_THIS_SERVER - named)
