"""Handlers depend on the runtime only through ``handlers.services``, never on its insides.

The runtime implements ``services.Runtime`` and passes it in; a handler module
that imported the runtime's dispatch, profiles or wire would make the
dependency point both ways again. Every module under handlers/ is parsed, every
import (relative ones resolved, those inside functions too) is checked.
"""

from __future__ import annotations

import ast
import importlib
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


# --- the layers of handlers/ ----------------------------------------------------------------

H = f"{PACKAGE}.handlers"
CORE = (f"{H}.tmux.errors", f"{H}.tmux.transport", f"{H}.tmux.policy", f"{H}.tmux.objects")
SHARED = (f"{H}.batch", f"{H}.compose", f"{H}.services", f"{H}.lifecycle")
PROFILES = (f"{H}.python", f"{H}.rust", f"{H}.swift")
# Each unit of handlers/, and the units it may import (besides itself): the tmux core's
# three layers point down (objects -> policy -> transport, every layer to the core's
# errors), the families' shared parts sit on the core, and a profile on all of them but
# another profile. Nothing imports a unit above it.
MAY_IMPORT: dict[str, tuple[str, ...]] = {
    f"{H}.tmux.errors": (),
    f"{H}.tmux.transport": (f"{H}.tmux.errors",),
    f"{H}.tmux.policy": (f"{H}.tmux.errors", f"{H}.tmux.transport"),
    f"{H}.tmux.objects": (f"{H}.tmux.errors", f"{H}.tmux.transport", f"{H}.tmux.policy"),
    f"{H}.tmux": CORE,
    f"{H}.services": (),
    f"{H}.compose": (),
    f"{H}.batch": (f"{H}.services",),
    f"{H}.lifecycle": CORE,
    f"{H}.libtmux_family": (*CORE, f"{H}.services", f"{H}.lifecycle"),
    **{profile: (*CORE, *SHARED, f"{H}.libtmux_family") for profile in PROFILES},
    H: (),
}


def unit_of(module: str) -> str | None:
    """The unit of handlers/ ``module`` belongs to (the longest that holds it)."""
    units = [unit for unit in MAY_IMPORT if module == unit or module.startswith(f"{unit}.")]
    return max(units, key=len) if units else None


def against_the_layers(module: str, package: str, source: str) -> set[str]:
    """What ``source`` (module ``module``, relative imports from ``package``) imports of
    handlers/ that its unit may not import."""
    unit = unit_of(module)
    assert unit is not None, module
    allowed = {unit, *MAY_IMPORT[unit]}
    wrong = set()
    for name in imported(source, package):
        target = unit_of(name)
        if target is not None and target != H and target not in allowed:
            wrong.add(name)
    return wrong


def test_every_handler_module_belongs_to_a_unit_of_the_layers() -> None:
    assert {unit_of(module_name(path)[0]) for path in MODULES} == set(MAY_IMPORT)


def test_an_import_against_the_layers_is_seen() -> None:
    """The check can fail: each way a module could point up is caught."""
    transport = f"{H}.tmux.transport.control"
    assert against_the_layers(transport, f"{H}.tmux.transport", "from ..objects import Pane")
    policy = f"{H}.tmux.policy.guard"
    assert against_the_layers(policy, f"{H}.tmux.policy", "from ..objects.server import Server")
    objects = f"{H}.tmux.objects.pane"
    inside = "def f():\n    from ...python.rows import pane_fields\n"
    assert against_the_layers(objects, f"{H}.tmux.objects", inside)
    rust = f"{H}.rust.panes"
    assert against_the_layers(rust, f"{H}.rust", "from ..swift.targets import Lookups")
    assert not against_the_layers(rust, f"{H}.rust", "from ..tmux.objects import Pane")


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(HANDLERS)))
def test_no_handler_module_imports_against_the_layers(path: Path) -> None:
    module, package = module_name(path)
    assert against_the_layers(module, package, path.read_text("utf-8")) == set()


@pytest.mark.parametrize(
    "package",
    [f"{H}.tmux.transport", f"{H}.tmux.policy", f"{H}.tmux.objects", f"{H}.libtmux_family"],
)
def test_each_layer_draws_its_public_names(package: str) -> None:
    layer = importlib.import_module(package)
    assert layer.__doc__ and layer.__all__
    assert [name for name in layer.__all__ if not hasattr(layer, name)] == []
