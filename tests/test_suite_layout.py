"""The suite's own rules: what several test modules share is defined once.

A shared fixture lives in the plugin (tests/plugin.py), a shared helper in tests/helpers/;
a test module that defines its own copy fails here, and no test module imports another
one: what two modules share is a helper.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
PLUGIN = TESTS / "plugin.py"
HELPERS = TESTS / "helpers"

# Names that were copied from module to module before the plugin: never defined again.
RETIRED = {
    "client": "a client per profile is the plugin's python_client, rust_client, swift_client",
    "new_session": "a session is made by TmuxServer.new_session (scripts/lab/tmuxserver.py)",
}

# Plugin fixtures a module may define for itself, as the plugin says: the variables of a
# module's server, and a module's own prepared tmux server or sshd (the plugin's clients
# then serve that one).
OVERRIDABLE = {"python_env", "rust_env", "swift_env", "shared", "sshd"}

# Local functions that share a helper's name but are not copies of it, with why.
NOT_COPIES = {
    ("profiles/python/test_python_teardown.py", "until"): "a blocking poll, the helper awaits",
    ("scripts/test_sent_log.py", "until"): "a blocking poll, the helper awaits",
}


Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def definitions(tree: ast.AST) -> Iterator[Definition]:
    """Every function and class ``tree`` defines, nested ones too."""
    for node in ast.walk(tree):
        if isinstance(node, Definition):
            yield node


def is_fixture(node: ast.AST) -> bool:
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    for decorator in node.decorator_list:
        called = decorator.func if isinstance(decorator, ast.Call) else decorator
        if ast.unparse(called) in {"pytest.fixture", "fixture"}:
            return True
    return False


def parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def plugin_fixtures() -> set[str]:
    return {
        node.name
        for node in parse(PLUGIN).body
        if isinstance(node, Definition) and is_fixture(node)
    }


def shared_helpers() -> dict[str, str]:
    """Every top-level function and class of tests/helpers/, with the module holding it."""
    found: dict[str, str] = {}
    for path in sorted(HELPERS.glob("*.py")):
        for node in parse(path).body:
            if isinstance(node, Definition) and not node.name.startswith("_"):
                found[node.name] = f"tests/helpers/{path.name}"
    return found


def suite_modules() -> list[Path]:
    return sorted(
        path
        for path in TESTS.rglob("*.py")
        if path != PLUGIN and HELPERS not in path.parents and "snapshots" not in path.parts
    )


def copies(where: str, tree: ast.Module) -> list[str]:
    """What the module at ``where`` (under tests/) defines that the plugin or tests/helpers
    already has."""
    fixtures, helpers = plugin_fixtures(), shared_helpers()
    found = []
    for node in definitions(tree):
        name = node.name
        if (where, name) in NOT_COPIES:
            continue
        if name in RETIRED:
            found.append(f"{where}:{node.lineno} defines {name}: {RETIRED[name]}")
        elif name in helpers:
            found.append(f"{where}:{node.lineno} defines {name}: import it from {helpers[name]}")
        elif name in fixtures and is_fixture(node) and name not in OVERRIDABLE:
            assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            if name not in {argument.arg for argument in node.args.args}:  # not extending it
                found.append(f"{where}:{node.lineno} defines the plugin's fixture {name}")
    return found


def test_the_guard_sees_the_shared_names() -> None:
    """The lists this module checks against are what they say (not empty by a typo)."""
    assert {"tmux", "shared", "other_tmux", "python_client", "rust_client", "swift_client"} <= (
        plugin_fixtures()
    )
    assert {"eventually", "tag", "wait_for"} <= set(shared_helpers())


def test_a_copy_is_found() -> None:
    """A module defining a retired name, a helper or a plugin fixture is reported; one that
    extends the plugin's fixture or overrides an overridable one is not."""
    source = """
import pytest

def new_session(server, name): ...

async def eventually(check, what): ...

@pytest.fixture
def tmux(): ...

@pytest.fixture(scope="module")
async def python_client(python_client): return python_client

@pytest.fixture(scope="module")
def shared(): ...

def transport(): ...
"""
    found = copies("profiles/test_example.py", ast.parse(source))
    assert [line.split(" defines ")[1].split(":")[0] for line in found] == [
        "new_session",
        "eventually",
        "the plugin's fixture tmux",
    ]


@pytest.mark.parametrize("path", suite_modules(), ids=lambda p: p.relative_to(TESTS).as_posix())
def test_no_module_defines_its_own_copy_of_a_shared_name(path: Path) -> None:
    assert copies(path.relative_to(TESTS).as_posix(), parse(path)) == []


@pytest.mark.parametrize("path", suite_modules(), ids=lambda p: p.relative_to(TESTS).as_posix())
def test_no_test_module_imports_another(path: Path) -> None:
    imported = []
    for node in ast.walk(parse(path)):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        imported += [
            name
            for name in names
            if name.startswith("tests.") and name.rsplit(".", 1)[-1].startswith("test_")
        ]
    assert imported == []
