"""Handlers depend on the runtime only through ``handlers.services``, never on its insides.

The runtime implements ``services.Runtime`` and passes it in; a handler module
that imported the runtime's dispatch, profiles or wire would make the
dependency point both ways again. Every module under handlers/ is parsed, every
import (relative ones resolved, those inside functions too) is checked.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tmux_contract_mcp.dispatch import ServedRuntime
from tmux_contract_mcp.handlers.services import ArgumentsRefused, Runtime, ServedTool
from tmux_contract_mcp.profiles import load_profile

ROOT = Path(__file__).resolve().parent.parent
HANDLERS = ROOT / "handlers"
PACKAGE = "tmux_contract_mcp"
# The runtime's insides: how a call is checked, dispatched, measured and served.
FORBIDDEN = frozenset(
    f"{PACKAGE}.{name}" for name in ("arguments", "cli", "dispatch", "profiles", "server", "wire")
)
MODULES = sorted(HANDLERS.rglob("*.py"))


def module_name(path: Path) -> tuple[str, str]:
    """The module's dotted name and the package its relative imports start from."""
    parts = [PACKAGE, "handlers", *path.relative_to(HANDLERS).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
        return ".".join(parts), ".".join(parts)
    return ".".join(parts), ".".join(parts[:-1])


def imported(source: str, package: str) -> set[str]:
    """Every module ``source`` imports, and every ``module.name`` a from-import names.

    ``package`` is where the module's relative imports start from.
    """
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def test_the_walk_sees_every_handler_module_and_resolves_relative_imports() -> None:
    names = {module_name(path)[0] for path in MODULES}
    assert {f"{PACKAGE}.handlers.batch", f"{PACKAGE}.handlers.swift"} <= names
    # The check sees a forbidden import in each form a handler module could write it.
    _, package = module_name(HANDLERS / "python" / "x.py")
    assert f"{PACKAGE}.profiles" in imported("from ...profiles import Tool", package)
    assert f"{PACKAGE}.wire" in imported("from ... import wire", package)
    assert f"{PACKAGE}.dispatch" in imported("import tmux_contract_mcp.dispatch", package)
    inside = "def f():\n    from ...dispatch import call_tool\n"
    assert f"{PACKAGE}.dispatch" in imported(inside, package)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(HANDLERS)))
def test_no_handler_module_imports_the_runtimes_dispatch_profiles_or_wire(path: Path) -> None:
    _, package = module_name(path)
    assert imported(path.read_text("utf-8"), package) & FORBIDDEN == set()


def test_the_runtime_gives_handlers_the_tools_as_served_and_the_direct_calls_check() -> None:
    served = load_profile("python").shown({"LIBTMUX_TOOLSETS": "inspect"})
    runtime: Runtime = ServedRuntime(served)  # the type checker holds it to the protocol
    assert runtime.profile == "python"
    assert runtime.tool("list_sessions") == ServedTool("list_sessions", "inspect", ())
    assert runtime.tool("kill_server") is None  # hidden by the toolset choice
    assert runtime.tool("no_such_tool") is None
    with pytest.raises(ArgumentsRefused) as refused:
        runtime.check_arguments("list_sessions", {"bogus": 1}, ("operations", 0, "arguments"))
    assert refused.value.problems and "operations[0].arguments" in refused.value.problems[0]
    assert refused.value.message.startswith("Invalid arguments for list_sessions: ")
    assert "Nothing was run" in refused.value.message
