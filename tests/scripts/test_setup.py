"""scripts/setup.sh, which `make env` and the tmux targets use: any Python 3.11+, said plainly.

The script runs with a PATH built for each test: a directory of stand-in
interpreters (tiny scripts answering the version question, for versions this
machine does not have) and a directory holding ``id`` and, when a test wants
one, a real Python or tmux. apt-get is never on that PATH, so nothing is
installed; the messages are what a user without root or apt-get reads.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.lab.client import ROOT

SETUP = ROOT / "scripts" / "setup.sh"
REAL_PYTHON = os.path.realpath(sys.executable)  # the interpreter the venv was made from


def executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def stand_in_python(directory: Path, name: str, version: str, venv: bool = True) -> Path:
    """Answers ``X.Y`` to the version question; fails the venv check unless ``venv``."""
    no_venv = "" if venv else "  *ensurepip*) exit 1 ;;\n"
    return executable(
        directory / name, f'#!/bin/sh\ncase "$*" in\n{no_venv}  *) echo {version} ;;\nesac\n'
    )


@pytest.fixture
def path(tmp_path: Path) -> Path:
    """A bin directory that starts with ``id`` only; tests add what they need."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    found = shutil.which("id")
    assert found is not None
    (bin_dir / "id").symlink_to(found)
    return bin_dir


def setup(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert shutil.which("apt-get", path=str(path)) is None  # never installs anything here
    return subprocess.run(
        ["/bin/sh", str(SETUP), *args],
        capture_output=True,
        text=True,
        env={"PATH": str(path), "HOME": os.environ.get("HOME", "/root")},
        timeout=60,
    )


def test_python3_itself_is_used_when_it_is_new_enough(path: Path) -> None:
    (path / "python3").symlink_to(REAL_PYTHON)
    stand_in_python(path, "python3.13", "3.13")
    done = setup(path, "python")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "python3\n"
    assert done.stderr == ""


@pytest.mark.parametrize("name", ["python3.12", "python3.14"])
def test_an_old_python3_is_passed_over_for_a_versioned_one(path: Path, name: str) -> None:
    stand_in_python(path, "python3", "3.9")
    stand_in_python(path, name, name.removeprefix("python"))
    done = setup(path, "python")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{name}\n"


def test_no_new_enough_python_is_named_with_what_was_found(path: Path) -> None:
    stand_in_python(path, "python3", "3.10")
    stand_in_python(path, "python3.11", "3.8")  # a misnamed one is judged by its answer
    done = setup(path, "python")
    assert done.returncode == 1
    assert done.stdout == ""
    assert "needs Python 3.11 or newer (found: python3 (3.10) python3.11 (3.8))" in done.stderr
    assert "make PYTHON=" in done.stderr


def test_no_python_at_all_says_so(path: Path) -> None:
    done = setup(path, "python")
    assert done.returncode == 1
    assert "needs Python 3.11 or newer (found: none)" in done.stderr


def test_an_explicit_python_is_the_only_one_considered(path: Path) -> None:
    (path / "python3").symlink_to(REAL_PYTHON)
    old = stand_in_python(path, "old-python", "3.10")
    done = setup(path, "python", str(old))
    assert done.returncode == 1
    assert done.stdout == ""
    assert f"PYTHON={old} is Python 3.10." in done.stderr
    assert "needs Python 3.11 or newer" in done.stderr

    newer = stand_in_python(path, "newer-python", "3.13")
    done = setup(path, "python", str(newer))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{newer}\n"

    done = setup(path, "python", str(path / "missing-python"))
    assert done.returncode == 1
    assert "no such command" in done.stderr


def test_a_python_without_venv_names_the_versioned_package(path: Path) -> None:
    stand_in_python(path, "python3", "3.13", venv=False)
    done = setup(path, "python")
    assert done.returncode == 1
    assert done.stdout == ""
    assert "python3 (Python 3.13) cannot create a virtual environment" in done.stderr
    assert "apt-get install python3.13-venv" in done.stderr


@pytest.mark.timeout(180)  # under 1 s; making the venv is allowed 120 s
def test_the_chosen_python_really_makes_a_venv(path: Path, tmp_path: Path) -> None:
    (path / "python3").symlink_to(REAL_PYTHON)
    done = setup(path, "python")
    assert done.returncode == 0, done.stderr
    venv = tmp_path / "venv"
    made = subprocess.run(
        [str(path / done.stdout.strip()), "-m", "venv", "--without-pip", str(venv)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    assert (venv / "bin" / "python").exists()


def test_a_missing_tmux_says_what_to_install(path: Path) -> None:
    done = setup(path, "tmux")
    assert done.returncode == 1
    assert "needs tmux 3.2 or newer on PATH" in done.stderr


def test_a_tmux_on_path_is_enough(path: Path) -> None:
    real = shutil.which("tmux")
    assert real is not None
    (path / "tmux").symlink_to(real)
    done = setup(path, "tmux")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_an_unknown_request_is_a_usage_error(path: Path) -> None:
    done = setup(path, "pyhton")
    assert done.returncode == 2
    assert done.stderr.startswith("usage:")


def test_make_test_spreads_whole_test_files_over_one_worker_per_core() -> None:
    """docs/development.md's promise: one pytest-xdist worker per core, each test file whole on one."""
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert "-m pytest" in recipe
    assert "-n auto" in recipe and "--dist loadfile" in recipe
