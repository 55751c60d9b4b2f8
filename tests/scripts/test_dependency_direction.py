"""Dependencies point one way: tests use scripts/, scripts/ uses the package, and nothing
under scripts/ imports a test module (what both need lives in scripts/lab/)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from scripts.lab.client import ROOT

SCRIPTS = ROOT / "scripts"
DYNAMIC = {"import_module", "__import__"}


def is_tests(name: str) -> bool:
    return name == "tests" or name.startswith("tests.")


def imports_of_tests(source: str) -> list[str]:
    """Every module of the tests package that ``source`` imports: import statements and
    ``importlib.import_module`` / ``__import__`` calls with a literal name."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names if is_tests(alias.name))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if is_tests(node.module):
                found.append(node.module)
        elif isinstance(node, ast.Call) and node.args:
            called = node.func
            name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
            first = node.args[0]
            if (
                name in DYNAMIC
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
                and is_tests(first.value)
            ):
                found.append(first.value)
    return found


def script_modules() -> list[Path]:
    return sorted(SCRIPTS.rglob("*.py"))


def test_every_scripts_module_is_read() -> None:
    """The walk below sees the modules that used to import tests, and the shared lab."""
    names = {path.relative_to(ROOT).as_posix() for path in script_modules()}
    assert {
        "scripts/demo.py",
        "scripts/workflow.py",
        "scripts/compare_peer.py",
        "scripts/bench/main.py",
        "scripts/bench/calls.py",
        "scripts/lab/tmuxserver.py",
        "scripts/lab/client.py",
    } <= names


@pytest.mark.parametrize(
    "source",
    [
        "import tests",
        "import tests.corpus as corpus",
        "import os, tests.jsonrpc",
        "from tests import corpus",
        "from tests.tmuxenv import TmuxServer",
        "def f():\n    from tests.corpus import x\n",
        "import importlib\nimportlib.import_module('tests.corpus')",
        "__import__('tests')",
    ],
)
def test_a_tests_import_is_seen(source: str) -> None:
    assert imports_of_tests(source) != []


@pytest.mark.parametrize(
    "source",
    [
        "import testsuite",
        "from scripts.lab import client",
        "from . import tests_helper",
        "from .tests import x",
        "name = 'tests.corpus'",
    ],
)
def test_other_imports_are_not_taken_for_tests(source: str) -> None:
    assert imports_of_tests(source) == []


def test_no_scripts_module_imports_tests() -> None:
    found = {
        path.relative_to(ROOT).as_posix(): imports
        for path in script_modules()
        if (imports := imports_of_tests(path.read_text()))
    }
    assert found == {}, f"scripts/ must not import from tests/: {found}"
