"""The runtime names no tool, resource, prompt or profile: it serves whatever is generated.

Adding a tool or a profile must never need an edit under ``runtime/``; a name
written there would be exactly such an edit waiting to happen.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from scripts.lab.client import ROOT
from tmux_contract_mcp.generated import PROFILES

RUNTIME = sorted((ROOT / "runtime").glob("*.py"))


def served_names() -> set[str]:
    names = set(PROFILES)
    for profile in PROFILES:
        generated = ROOT / "generated" / profile
        names |= {t["name"] for t in json.loads((generated / "tools.json").read_text())["tools"]}
        for listing, key in (("resources.json", "resources"), ("prompts.json", "prompts")):
            names |= {item["name"] for item in json.loads((generated / listing).read_text())[key]}
    return names


NAMES = served_names()


def strings_and_names(source: str) -> set[str]:
    """Every string constant (docstrings and comments aside) and identifier in the code."""
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings:
                found.add(node.value)
        elif isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
    return found


def test_the_runtime_is_read_and_the_names_are_known() -> None:
    assert len(RUNTIME) > 10
    assert {"python", "rust", "swift", "list_panes", "select_pane"} <= NAMES


def test_a_written_name_is_seen() -> None:
    assert "list_panes" in strings_and_names('TOOL = "list_panes"\n')
    assert "swift" in strings_and_names("if profile == 'swift': pass\n")
    assert "run_and_wait" in strings_and_names("handlers.run_and_wait()\n")


@pytest.mark.parametrize("path", RUNTIME, ids=lambda path: path.name)
def test_no_runtime_module_names_a_tool_resource_prompt_or_profile(path: Path) -> None:
    assert strings_and_names(path.read_text()) & NAMES == set()
