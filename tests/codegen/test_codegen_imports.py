"""codegen reads one module of the runtime package, and that module reads nothing of it.

codegen is a development tool; the server is the installed package
``tmux_contract_mcp`` (runtime/, with generated/ and handlers/ mapped in). What
both must agree on (our schema keyword's name, JSON pointers into a tool) lives
in ``tmux_contract_mcp.contract_rules``, which imports only the standard
library. So codegen never loads the runtime, and the runtime needs nothing of
codegen.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.lab.client import ROOT

CODEGEN = sorted((ROOT / "codegen").rglob("*.py"))
SHARED = "tmux_contract_mcp.contract_rules"
DYNAMIC = {"import_module", "__import__"}


def imported(source: str) -> list[tuple[str, int]]:
    """What ``source`` imports, each with the level of a relative import: modules of import
    statements, ``module.name`` for each name of ``from module import name``, and
    ``importlib.import_module`` / ``__import__`` calls with a literal name."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend((alias.name, 0) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            prefix = f"{node.module}." if node.module else ""
            found.extend((f"{prefix}{alias.name}", node.level) for alias in node.names)
        elif isinstance(node, ast.Call) and node.args:
            called = node.func
            name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
            first = node.args[0]
            if name in DYNAMIC and isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.append((first.value, 0))
    return found


def of_package(name: str) -> bool:
    return name == "tmux_contract_mcp" or name.startswith("tmux_contract_mcp.")


def test_every_codegen_module_is_read() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in CODEGEN}
    assert {"codegen/generate.py", "codegen/naming.py", "codegen/checks.py"} <= names


@pytest.mark.parametrize("path", CODEGEN, ids=[p.relative_to(ROOT).as_posix() for p in CODEGEN])
def test_codegen_imports_nothing_of_the_runtime_package_but_the_shared_rules(path: Path) -> None:
    strangers = [
        name
        for name, level in imported(path.read_text(encoding="utf-8"))
        if level == 0 and of_package(name) and not (name == SHARED or name.startswith(f"{SHARED}."))
    ]
    assert not strangers, f"{path.name} imports {strangers}; shared rules go in {SHARED}"


def test_the_shared_rules_import_only_the_standard_library() -> None:
    source = (ROOT / "runtime" / "contract_rules.py").read_text(encoding="utf-8")
    for name, level in imported(source):
        assert level == 0, (
            f"a relative import of {name!r}: contract_rules reads nothing of the package"
        )
        top = name.split(".")[0]
        assert top == "__future__" or top in sys.stdlib_module_names, name


def test_loading_codegen_loads_no_runtime_module() -> None:
    """The package's ``__init__`` is loaded with the shared module: it must stay import-free."""
    code = (
        "import sys\n"
        "import codegen.generate, codegen.vendor, codegen.skeleton\n"
        "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] == 'tmux_contract_mcp')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["tmux_contract_mcp", SHARED]
