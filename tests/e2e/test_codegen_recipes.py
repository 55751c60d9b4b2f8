"""What adding a tool or a profile costs: its contracts (and description), then a regen.

Each test regenerates a scratch copy of some contracts into a temporary
directory and runs the runtime, copied byte for byte from runtime/, over that
generated tree (the handlers are the real ones): nothing outside contracts/ is
edited, yet the runtime serves the new tool or profile by name.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codegen.contract_file import dumps_contract, read_contract
from codegen.generate import generate_all
from scripts.lab.client import ROOT
from tests.helpers.contracts import CONTRACTS

PACKAGE = "tmux_contract_mcp"

pytestmark = [
    pytest.mark.timeout(180),  # 3 s a test; each run of the command is allowed 120 s
]


def scratch_contracts(root: Path, profiles: dict[str, str]) -> Path:
    """A contracts tree holding copies of some profiles (source -> name), the first default."""
    contracts = root / "contracts"
    for index, (source, name) in enumerate(profiles.items()):
        shutil.copytree(CONTRACTS / source, contracts / name)
        description = json.loads((CONTRACTS / f"{source}-profile.json").read_text("utf-8"))
        description["default"] = index == 0
        (contracts / f"{name}-profile.json").write_text(json.dumps(description), "utf-8")
    return contracts


def installed_over(root: Path, generated: Path) -> dict[str, str]:
    """The environment of a Python that imports the package as runtime/ (copied unedited),
    the fresh ``generated`` tree and the real handlers/, ahead of the editable install."""
    site = root / "site"
    package = site / PACKAGE
    shutil.copytree(ROOT / "runtime", package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(generated, package / "generated")
    (package / "handlers").symlink_to(ROOT / "handlers")
    return {**os.environ, "PYTHONPATH": str(site)}


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=120, env=env
    )


def test_a_new_tool_needs_only_its_contract(tmp_path: Path) -> None:
    contracts = scratch_contracts(tmp_path, {"rust": "rust"})
    contract = read_contract(contracts / "rust" / "select_pane.json")
    contract["name"] = "probe_pane"
    contract["description"] = "A tool that exists only in this test's scratch contracts."
    (contracts / "rust" / "probe_pane.json").write_text(dumps_contract(contract), "utf-8")
    out = tmp_path / "generated"
    generate_all(contracts, out, tmp_path)

    registry = (out / "rust" / "registry.py").read_text("utf-8")
    assert 'name="probe_pane"' in registry and "ProbePaneInput" in registry
    assert "async def probe_pane(" in (out / "rust" / "interface.py").read_text("utf-8")
    listed = json.loads((out / "rust" / "tools.json").read_text("utf-8"))["tools"]
    served = [read_contract(path)["name"] for path in (CONTRACTS / "rust").glob("*.json")]
    assert [tool["name"] for tool in listed] == sorted([*served, "probe_pane"])
    assert "# probe_pane" in (out / "rust" / "docs" / "probe_pane.md").read_text("utf-8")

    env = installed_over(tmp_path, out)
    done = run(env, "-m", PACKAGE, "--profile", "rust", "--list-tools")
    assert done.returncode == 0, done.stderr
    lines = [line.split() for line in done.stdout.splitlines()]
    assert ["probe_pane", "manage"] in lines and ["select_pane", "manage"] in lines
    assert {name for name, _ in lines} <= {"probe_pane", *served}
    # What is left to write is the handler method, and the runtime says so.
    code = (
        f"from {PACKAGE}.profiles import create_handlers, load_profile\n"
        "create_handlers(load_profile('rust'), {})\n"
    )
    refused = run(env, "-c", code)
    assert "no handler for probe_pane" in refused.stderr, refused.stderr


def test_a_new_profile_needs_no_runtime_edit(tmp_path: Path) -> None:
    contracts = scratch_contracts(tmp_path, {"rust": "rust", "swift": "probe"})
    out = tmp_path / "generated"
    generate_all(contracts, out, tmp_path)
    init = (out / "__init__.py").read_text("utf-8")
    assert 'PROFILES: tuple[str, ...] = ("probe", "rust")' in init
    assert 'DEFAULT_PROFILE = "rust"' in init

    env = installed_over(tmp_path, out)
    every = {**env, "LIBTMUX_TOOLSETS": "inspect,manage,execute,teardown"}
    done = run(every, "-m", PACKAGE, "--profile", "probe", "--list-tools")
    assert done.returncode == 0, done.stderr
    swift = {read_contract(path)["name"] for path in (CONTRACTS / "swift").glob("*.json")}
    assert {line.split()[0] for line in done.stdout.splitlines()} == swift
    assert "{probe,rust}" in run(env, "-m", PACKAGE, "--help").stdout
    # The handler class is the one thing a profile adds outside contracts/.
    code = (
        f"from {PACKAGE}.profiles import create_handlers, load_profile\n"
        "create_handlers(load_profile('probe'), {})\n"
    )
    refused = run(env, "-c", code)
    assert "profile 'probe' has no handlers yet" in refused.stderr, refused.stderr


def test_the_scratch_install_imports_the_copied_runtime(tmp_path: Path) -> None:
    """The two tests above see the scratch tree, not the editable install's."""
    env = installed_over(tmp_path, ROOT / "generated")
    done = run(env, "-c", f"import {PACKAGE}.profiles as p; print(p.__file__)")
    assert done.stdout.strip() == str(tmp_path / "site" / PACKAGE / "profiles.py")
    listed = run(env, "-m", PACKAGE, "--profile", "rust", "--list-tools")
    assert ["select_pane", "manage"] in [line.split() for line in listed.stdout.splitlines()]
    assert "probe_pane" not in listed.stdout
