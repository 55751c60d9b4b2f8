"""requirements.lock goes with pyproject.toml, and .venv holds what it pins (scripts/lock.py).

Offline: the lock, pyproject.toml, the Makefile and the installed packages' metadata are read
from disk; nothing here resolves or downloads anything.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from importlib.metadata import distributions
from pathlib import Path

import pytest
from packaging.markers import Marker, default_environment
from packaging.requirements import Requirement
from packaging.version import Version

from scripts.lock import (
    DIGEST_LINE,
    EXTRAS,
    LOCK,
    PYPROJECT,
    ROOT,
    UNLOCKED,
    Entry,
    canonical,
    digest,
    entries,
    read_pyproject,
    staleness,
)
from tests.helpers.readme import section

LOCKED = entries(LOCK.read_text(encoding="utf-8"))
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")


def marker_environment(**changes: str) -> dict[str, str]:
    """This interpreter's marker variables (PEP 508), with ``changes`` made."""
    here = {key: str(value) for key, value in default_environment().items()}
    return here | changes


# The platforms the lock must install on: Linux on x86_64 and aarch64, CPython 3.11 to 3.13.
PLATFORMS = {
    f"{machine}-cp{python.replace('.', '')}": marker_environment(
        implementation_name="cpython",
        platform_python_implementation="CPython",
        os_name="posix",
        sys_platform="linux",
        platform_system="Linux",
        platform_machine=machine,
        python_version=python,
        python_full_version=f"{python}.0",
        implementation_version=f"{python}.0",
    )
    for machine in ("x86_64", "aarch64")
    for python in ("3.11", "3.12", "3.13")
}


def pyproject_requirements() -> list[Requirement]:
    """What pyproject.toml asks for: the runtime dependencies and the locked extras."""
    project = read_pyproject()["project"]
    listed = list(project["dependencies"])
    for extra in EXTRAS:
        listed += project["optional-dependencies"][extra]
    return [Requirement(text) for text in listed]


def applies(entry: Entry, environment: dict[str, str]) -> bool:
    return entry.marker is None or Marker(entry.marker).evaluate(environment)


def locked_on(environment: dict[str, str]) -> dict[str, list[Entry]]:
    found: dict[str, list[Entry]] = {}
    for entry in LOCKED:
        if applies(entry, environment):
            found.setdefault(entry.name, []).append(entry)
    return found


def test_the_lock_was_made_from_this_pyproject() -> None:
    """An edit to pyproject's dependency lists without make lock fails here."""
    assert staleness() is None, staleness()


def fresh_copy(root: Path) -> str:
    """pyproject.toml, scripts/lock.py and a lock made from that pyproject under ``root``, so
    these tests hold the mechanism whatever state the checkout's own lock is in."""
    text = PYPROJECT.read_text(encoding="utf-8")
    (root / "pyproject.toml").write_text(text, encoding="utf-8")
    (root / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "lock.py", root / "scripts" / "lock.py")
    lines = LOCK.read_text(encoding="utf-8").splitlines(keepends=True)
    made = [
        f"{DIGEST_LINE}{digest(read_pyproject())}\n" if line.startswith(DIGEST_LINE) else line
        for line in lines
    ]
    (root / "requirements.lock").write_text("".join(made), encoding="utf-8")
    return text


def test_an_edited_dependency_list_makes_the_lock_stale(tmp_path: Path) -> None:
    text = fresh_copy(tmp_path)
    pyproject, lock = tmp_path / "pyproject.toml", tmp_path / "requirements.lock"
    assert staleness(pyproject, lock) is None

    pyproject.write_text(text.replace("line-length = 100", "line-length = 99"), encoding="utf-8")
    assert staleness(pyproject, lock) is None  # the rest of pyproject is not locked

    edits = {
        "a new runtime dependency": ("dependencies = [\n", 'dependencies = [\n    "six",\n'),
        "a new dev dependency": ("dev = [\n", 'dev = [\n    "six",\n'),
        "a moved bound": ('"mcp==', '"mcp>='),
        "another Python": ('requires-python = ">=3.11"', 'requires-python = ">=3.12"'),
    }
    for what, (old, new) in edits.items():
        assert old in text, what
        pyproject.write_text(text.replace(old, new, 1), encoding="utf-8")
        problem = staleness(pyproject, lock)
        assert problem is not None, f"{what} left the lock fresh"
        assert problem.endswith("run make lock"), problem

    pyproject.write_text(text, encoding="utf-8")
    unstamped = [line for line in lock.read_text().splitlines(True) if DIGEST_LINE not in line]
    lock.write_text("".join(unstamped))
    problem = staleness(pyproject, lock)
    assert problem == "requirements.lock records no digest of pyproject.toml: run make lock"
    lock.unlink()
    assert staleness(pyproject, lock) == "requirements.lock is missing: run make lock"


def check(root: Path) -> subprocess.CompletedProcess[str]:
    """`scripts/lock.py check` as make env runs it, on the pyproject and lock under ``root``."""
    return subprocess.run(
        [sys.executable, str(root / "scripts" / "lock.py"), "check"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_make_env_refuses_a_stale_lock(tmp_path: Path) -> None:
    text = fresh_copy(tmp_path)
    assert (check(tmp_path).returncode, check(tmp_path).stderr) == (0, "")
    edited = text.replace('"jinja2==', '"jinja2>=', 1)
    (tmp_path / "pyproject.toml").write_text(edited, encoding="utf-8")
    done = check(tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip().endswith("run make lock")


@pytest.mark.parametrize("platform", PLATFORMS)
def test_every_requirement_pyproject_names_is_locked_at_a_version_it_admits(platform: str) -> None:
    environment = PLATFORMS[platform]
    pyproject = read_pyproject()
    wanted = pyproject_requirements() + [
        Requirement(text) for text in pyproject["build-system"]["requires"]
    ]  # the locked setuptools builds the project: make env installs it --no-build-isolation
    locked = locked_on(environment)
    for requirement in wanted:
        if requirement.marker is not None and not requirement.marker.evaluate(environment):
            continue
        found = locked.get(canonical(requirement.name), [])
        assert found, f"pyproject.toml asks for {requirement}, not in the lock: run make lock"
        assert len(found) == 1, f"{requirement} is locked {len(found)} times on {platform}"
        version = found[0].version
        assert requirement.specifier.contains(version, prereleases=True), (
            f"pyproject.toml asks for {requirement}; requirements.lock has {version}: run make lock"
        )


def test_every_locked_package_is_pulled_in_by_pyproject() -> None:
    """Each entry is wanted by pyproject.toml itself or by an entry that is (uv's ``# via``)."""
    by_name = {entry.name: entry for entry in LOCKED}
    assert len(by_name) == len(LOCKED), "a package is locked twice"
    wanted = {canonical(r.name) for r in pyproject_requirements()}
    reached = {name for name, entry in by_name.items() if name in wanted}
    assert all(any("(pyproject.toml)" in via for via in by_name[n].via) for n in reached)
    grew = True
    while grew:
        grew = False
        for name, entry in by_name.items():
            if name not in reached and any(canonical(via) in reached for via in entry.via):
                reached.add(name)
                grew = True
    unwanted = sorted(set(by_name) - reached)
    assert not unwanted, f"locked, but nothing in pyproject.toml pulls in {unwanted}: run make lock"


def test_every_locked_package_carries_its_hashes() -> None:
    assert len(LOCKED) > 20
    for entry in LOCKED:
        assert entry.hashes, f"{entry.name} has no hash"
        for file_hash in entry.hashes:
            assert re.fullmatch(r"sha256:[0-9a-f]{64}", file_hash), (entry.name, file_hash)
        Version(entry.version)  # an exact release, not a range


def test_the_environment_holds_exactly_the_lock() -> None:
    """What make env installed: each locked version for this interpreter, and nothing else."""
    environment = marker_environment()
    locked = {name: found[0].version for name, found in locked_on(environment).items()}
    installed = {canonical(d.metadata["Name"] or ""): d.version for d in distributions()}
    assert {n: v for n, v in installed.items() if n not in UNLOCKED} == locked, (
        "this environment is not the lock: run make env"
    )


def recipe(target: str) -> str:
    """A Makefile rule's recipe, from its target line to the next blank line."""
    return MAKEFILE.split(f"\n{target}:", 1)[1].split("\n\n", 1)[0]


def test_make_env_installs_the_lock_with_its_hashes_and_resolves_nothing() -> None:
    assert re.search(r"^LOCK := requirements\.lock$", MAKEFILE, re.M)
    stamp = recipe("$(STAMP)")
    prerequisites = stamp.splitlines()[0].split()
    assert "$(LOCK)" in prerequisites and "pyproject.toml" in prerequisites
    assert "-m scripts.lock check" in stamp
    installs = re.findall(r"pip install ([^;&|]*)", stamp)
    assert installs == [
        "--require-hashes -r $(LOCK) ",
        "--no-deps --no-build-isolation -e . ",
    ]
    assert "scripts.lock strays | xargs -r $(BIN)/python -m pip uninstall -y" in stamp


def test_make_lock_writes_the_lock_with_a_pinned_uv() -> None:
    assert re.search(r"^UV_VERSION := \d+\.\d+\.\d+$", MAKEFILE, re.M)
    lock = recipe("lock")
    assert "pip install -q uv==$(UV_VERSION)" in lock
    assert "-m scripts.lock compile $(BIN)/uv" in lock
    version = re.search(r"^UV_VERSION := (\S+)$", MAKEFILE, re.M)
    assert version is not None
    assert f"with uv {version.group(1)}," in LOCK.read_text(encoding="utf-8")


def test_the_development_page_says_how_the_environment_is_pinned() -> None:
    """The set-up paragraph: the lock by name, its hashes, make lock and what it reads."""
    text = " ".join(section("Two commands", name="docs/development.md").split())
    assert f"exactly the versions `{LOCK.name}` pins" in text
    assert "checked against its sha256 hash" in text
    extras = " and ".join(f"the `{extra}` extra" for extra in EXTRAS)
    assert f"`make lock` rewrites it from `pyproject.toml` (its dependencies and {extras})" in text
    assert "with a pinned uv" in text
    assert "`make env` stops and says to run it" in text
