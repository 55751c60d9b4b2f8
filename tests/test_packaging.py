"""What a wheel would hold, read from pyproject.toml and the tree, without building anything.

The editable install maps only the three roots, so a subpackage missing from
``[tool.setuptools] packages`` still imports in development and is only lost
from a real wheel; these tests catch that before a release does.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.mcpclient import ROOT
from tmux_contract_mcp.profiles import PROFILES

PACKAGE_DIRS = {
    "tmux_contract_mcp": "runtime",
    "tmux_contract_mcp.generated": "generated",
    "tmux_contract_mcp.handlers": "handlers",
}
PROFILE_DATA = (
    "tools.json",
    "resources.json",
    "prompts.json",
    "docs/*.md",
    "docs/resources/*.md",
    "docs/prompts/*.md",
)


def setuptools_config() -> dict[str, Any]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        return dict(tomllib.load(file)["tool"]["setuptools"])


def packages_in_tree() -> dict[str, Path]:
    """Every directory holding an ``__init__.py``, by the package name it installs as."""
    found: dict[str, Path] = {}
    for package, directory in PACKAGE_DIRS.items():
        root = ROOT / directory
        for init in sorted(root.rglob("__init__.py")):
            relative = init.parent.relative_to(root)
            found[".".join((package, *relative.parts))] = init.parent
    return found


def isolated_python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The venv's python with neither the checkout nor PYTHONPATH on sys.path."""
    return subprocess.run(
        [sys.executable, "-I", "-c", code],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_package_dir_maps_the_three_source_roots() -> None:
    assert setuptools_config()["package-dir"] == PACKAGE_DIRS


def test_every_source_package_is_listed_and_every_listed_package_exists() -> None:
    listed = setuptools_config()["packages"]
    assert len(listed) == len(set(listed)), "a package is listed twice"
    in_tree = packages_in_tree()
    assert "tmux_contract_mcp.handlers.tmux" in in_tree  # the walk reaches nested packages
    outside = [name for name in listed if name.split(".")[0] != "tmux_contract_mcp"]
    assert outside == [], "only tmux_contract_mcp may land at the top of site-packages"
    assert sorted(in_tree) == sorted(listed)


def test_no_python_module_sits_outside_a_package() -> None:
    """A directory with .py files but no __init__.py would not be listed, so not shipped."""
    for directory in PACKAGE_DIRS.values():
        for module in sorted((ROOT / directory).rglob("*.py")):
            assert (module.parent / "__init__.py").is_file(), module


def test_package_data_covers_each_profiles_contracts_and_docs() -> None:
    package_data = setuptools_config()["package-data"]
    profiles_in_tree = sorted(
        path.parent.name for path in (ROOT / "generated").glob("*/tools.json")
    )
    assert profiles_in_tree == sorted(PROFILES)
    for profile in PROFILES:
        package = f"tmux_contract_mcp.generated.{profile}"
        patterns = package_data.get(package, [])
        for pattern in PROFILE_DATA:
            assert pattern in patterns, (package, pattern)
        directory = ROOT / "generated" / profile
        assert json.loads((directory / "tools.json").read_text("utf-8")), profile
        assert list(directory.glob("docs/*.md")), profile  # the pattern matches something
    # Every non-Python file of a profile is covered by a pattern: nothing is left behind.
    for profile in PROFILES:
        directory = ROOT / "generated" / profile
        data = {
            path.relative_to(directory).as_posix()
            for path in directory.rglob("*")
            if path.is_file() and path.suffix not in {".py", ".pyc"}
        }
        covered = {
            path.relative_to(directory).as_posix()
            for pattern in PROFILE_DATA
            for path in directory.glob(pattern)
        }
        assert data == covered, profile


def test_console_script_points_at_an_importable_callable(tmp_path: Path) -> None:
    with (ROOT / "pyproject.toml").open("rb") as file:
        scripts = tomllib.load(file)["project"]["scripts"]
    target = scripts["tmux-contract-mcp"]
    module, _, attribute = target.partition(":")
    assert module and attribute, target
    code = (
        "import importlib\n"
        f"target = getattr(importlib.import_module({module!r}), {attribute!r})\n"
        "assert callable(target), target\n"
        "print(target.__module__, target.__qualname__)\n"
    )
    done = isolated_python(code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [module, attribute]


@pytest.mark.parametrize("name", ["generated", "handlers"])
def test_no_generic_top_level_package_is_installed(name: str, tmp_path: Path) -> None:
    # Run outside the checkout: from the repo root, the directory itself would be found.
    code = (
        "import importlib.util\n"
        f"print(importlib.util.find_spec({name!r}) is None)\n"
        f"print(importlib.util.find_spec('tmux_contract_mcp.{name}') is not None)\n"
    )
    done = isolated_python(code, tmp_path)
    assert done.returncode == 0, done.stderr
    top_level_absent, mapped_present = done.stdout.split()
    assert top_level_absent == "True", f"a top-level {name!r} is importable"
    assert mapped_present == "True", f"tmux_contract_mcp.{name} is not importable"
