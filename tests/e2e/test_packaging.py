"""What the wheel holds, and that a user's install of it works.

The editable install maps only the three roots, so a subpackage missing from
``[tool.setuptools] packages`` still imports in development and is only lost
from a real wheel. The first tests read pyproject.toml and the tree; the last
ones build the wheel, install it into a fresh virtual environment (as pipx or
``uv tool install`` would) and run the command it installs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from scripts.lab.client import ROOT
from scripts.lab.tmuxserver import TmuxServer
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


# --- the built wheel, installed the way a user installs it ---------------------------------

# What the build reads: the project metadata and the three source roots.
BUILD_INPUTS = ("pyproject.toml", "README.md", "LICENSE", "runtime", "generated", "handlers")
ALL_TOOLSETS = {"LIBTMUX_TOOLSETS": "inspect,manage,execute,teardown"}


def run(argv: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """A command outside the checkout, with neither PYTHONPATH nor the caller's tmux."""
    environ = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "TMUX"}}
    done = subprocess.run(
        argv, cwd=cwd, capture_output=True, text=True, env={**environ, **env}, timeout=180
    )
    assert done.returncode == 0, f"{argv}: {done.stdout}{done.stderr}"
    return done


# The wheel and the user's venv are made once, by whichever test asks first (2 to 3 s), in up
# to three commands allowed 180 s each; each test that may be that first one gets longer.
BUILDING = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built from a copy of the tree by the dev environment's setuptools.

    A copy, because a build writes build/ and *.egg-info next to its sources; the
    dev setuptools (pinned in the dev extra) with no build isolation and no index,
    so building needs no network.
    """
    source = tmp_path_factory.mktemp("source")
    for name in BUILD_INPUTS:
        origin = ROOT / name
        if origin.is_dir():
            shutil.copytree(origin, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(origin, source / name)
    out = tmp_path_factory.mktemp("wheel")
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index"]
    run([*pip, "--wheel-dir", str(out), str(source)], cwd=out)
    built = sorted(out.glob("*.whl"))
    assert len(built) == 1, built
    return built[0]


@pytest.fixture(scope="module")
def user_venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh venv holding the wheel, with the dependencies the dev environment has.

    Installing mcp, pydantic and the rest from an index needs the network, so the
    wheel alone is installed (``--no-deps --no-index``) and then one ``.pth`` line
    appends the dev environment's site-packages to the new venv's path, after its
    own: the dependencies come from there, the package itself from the wheel (the
    editable install's import hook lives in a ``.pth`` file of the dev
    site-packages, which an appended path does not run). The .pth goes in last,
    so pip never sees the dev environment's copy of the project.
    """
    venv = tmp_path_factory.mktemp("user") / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=venv.parent)
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install"]
    run([*pip, "--no-deps", "--no-index", "--disable-pip-version-check", str(wheel)], cwd=venv)
    purelib = run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        cwd=venv,
    ).stdout.strip()
    (Path(purelib) / "dev-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    yield venv


@BUILDING
def test_the_wheel_ships_the_license_and_one_top_level_package(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        license_text = archive.read(f"{dist_info}/licenses/LICENSE").decode()
        metadata = archive.read(f"{dist_info}/METADATA").decode().splitlines()
    assert license_text == (ROOT / "LICENSE").read_text()
    assert "License-Expression: MIT" in metadata
    assert "License-File: LICENSE" in metadata
    assert {n.split("/")[0] for n in names} == {"tmux_contract_mcp", dist_info}
    for profile in PROFILES:
        assert f"tmux_contract_mcp/generated/{profile}/tools.json" in names


@BUILDING
def test_the_installed_command_runs_the_wheels_copy_not_the_checkouts(
    user_venv: Path, tmp_path: Path
) -> None:
    code = "import tmux_contract_mcp, mcp; print(tmux_contract_mcp.__file__)"
    where = run([str(user_venv / "bin" / "python"), "-I", "-c", code], cwd=tmp_path).stdout
    assert Path(where.strip()).is_relative_to(user_venv), where
    script = (user_venv / "bin" / "tmux-contract-mcp").read_text()
    assert script.startswith(f"#!{user_venv / 'bin' / 'python'}")


@BUILDING
@pytest.mark.parametrize("profile", PROFILES)
def test_the_installed_command_lists_every_tool_of_each_profile(
    user_venv: Path, profile: str, tmp_path: Path
) -> None:
    command = [str(user_venv / "bin" / "tmux-contract-mcp"), "--profile", profile, "--list-tools"]
    listed = run(command, cwd=tmp_path, **ALL_TOOLSETS).stdout
    rows = dict(line.split() for line in listed.splitlines())
    expected = {}
    for path in (ROOT / "contracts" / profile).glob("*.json"):
        contract = json.loads(path.read_text("utf-8"))
        expected[contract["name"]] = contract["x-tmux-contract-mcp"]["toolset"]
    assert rows == expected


@pytest.mark.anyio
@BUILDING
async def test_the_installed_command_serves_a_tmux_server(
    user_venv: Path, tmux: TmuxServer
) -> None:
    params = StdioServerParameters(
        command=str(user_venv / "bin" / "tmux-contract-mcp"), args=[], env=tmux.server_env()
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("list_panes", {"session_name": "main"})
    assert not result.is_error, result.content
    assert result.structured_content is not None
    panes = [row["pane_id"] for row in result.structured_content["result"]]
    assert panes == tmux.lines("list-panes", "-t", "main", "-F", "#{pane_id}")
