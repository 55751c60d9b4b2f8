"""requirements.lock: every package of .venv, pinned to one version with its sha256 hashes.

`make lock` writes it from pyproject.toml (the runtime dependencies and the dev extra) with
a pinned uv: one universal resolution (``uv pip compile --universal``) with the hashes of
every file of each pinned release, for every Python that ``requires-python`` admits (tests/
scripts/test_lock.py checks what it pins for x86_64 and aarch64 Linux, CPython 3.11 to 3.13; that
wheels exist there is not checked offline). It records in
its header a digest of the pyproject lists it was made from; `make env` refuses a lock whose
digest is not that of the pyproject beside it, and so does tests/scripts/test_lock.py.

    python -m scripts.lock check             exit 1, saying "run make lock", when stale
    python -m scripts.lock compile UV [ARG]  make lock: uv pip compile, then the digest
    python -m scripts.lock strays            what this environment holds that the lock lacks

The standard library only: `make env` runs ``check`` with the Python it is about to make
.venv with, before anything is installed.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
LOCK = ROOT / "requirements.lock"

# The extras make lock resolves beside the runtime dependencies.
EXTRAS = ("dev",)
# In an environment but never in the lock: the installer, make lock's uv, the project itself.
UNLOCKED = frozenset({"pip", "uv", "tmux-contract-mcp"})

DIGEST_LINE = "# pyproject.toml dependency lists, sha256: "
ENTRY = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;\s*([^\\]*?))?\s*\\?$")


def canonical(name: str) -> str:
    """A distribution name as PEP 503 compares them (``Jinja2`` and ``jinja2`` alike)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def dependency_lists(pyproject: dict[str, Any]) -> dict[str, Any]:
    """What the lock is made from: the Python range, the runtime list and the locked extras."""
    project = pyproject["project"]
    extras = project.get("optional-dependencies", {})
    return {
        "requires-python": project.get("requires-python"),
        "dependencies": project.get("dependencies", []),
        "optional-dependencies": {extra: extras.get(extra, []) for extra in EXTRAS},
    }


def digest(pyproject: dict[str, Any]) -> str:
    text = json.dumps(dependency_lists(pyproject), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def read_pyproject(path: Path = PYPROJECT) -> dict[str, Any]:
    with path.open("rb") as file:
        return tomllib.load(file)


def recorded_digest(lock_text: str) -> str | None:
    for line in lock_text.splitlines():
        if line.startswith(DIGEST_LINE):
            return line.removeprefix(DIGEST_LINE).strip()
    return None


@dataclass(frozen=True)
class Entry:
    """One pinned package of the lock: ``name==version ; marker`` and its hashes."""

    name: str
    version: str
    marker: str | None
    hashes: tuple[str, ...]
    via: tuple[str, ...]


def entries(lock_text: str) -> list[Entry]:
    """The lock's packages, with the hashes and the ``# via`` notes uv writes under each."""
    found: list[Entry] = []
    lines = lock_text.splitlines()
    at = 0
    while at < len(lines):
        match = ENTRY.match(lines[at])
        at += 1
        if not match:
            continue
        hashes: list[str] = []
        via: list[str] = []
        while at < len(lines) and lines[at].startswith((" ", "\t")):
            text = lines[at].strip().rstrip("\\").strip()
            if text.startswith("--hash="):
                hashes.append(text.removeprefix("--hash="))
            elif text.startswith("# via "):
                via.append(text.removeprefix("# via ").strip())
            elif text.startswith("#   "):
                via.append(text.removeprefix("#   ").strip())
            at += 1
        name, version, marker = match.groups()
        found.append(Entry(canonical(name), version, marker or None, tuple(hashes), tuple(via)))
    return found


def staleness(pyproject: Path = PYPROJECT, lock: Path = LOCK) -> str | None:
    """Why the lock does not go with this pyproject, or None when it does."""
    if not lock.exists():
        return f"{lock.name} is missing: run make lock"
    recorded = recorded_digest(lock.read_text(encoding="utf-8"))
    if recorded is None:
        return f"{lock.name} records no digest of {pyproject.name}: run make lock"
    if recorded != digest(read_pyproject(pyproject)):
        return (
            f"{pyproject.name}'s dependencies changed since {lock.name} was made "
            "(requires-python, dependencies or the dev extra): run make lock"
        )
    return None


def minimum_python(pyproject: dict[str, Any]) -> str:
    """``3.11`` for ``requires-python = ">=3.11"``: the lowest Python the lock must serve."""
    wanted = pyproject["project"].get("requires-python", "")
    match = re.search(r">=\s*(\d+\.\d+)", wanted)
    if not match:
        sys.exit(f"requires-python {wanted!r} names no lowest version (>=X.Y) to lock for")
    return match.group(1)


def header(uv_version: str, pyproject: dict[str, Any]) -> str:
    python = pyproject["project"]["requires-python"]
    return (
        "# Every package of .venv, pinned with its sha256 hashes: make env installs exactly these.\n"
        "# Do not edit: make lock writes this file from pyproject.toml (the dependencies and the\n"
        f"# {' and '.join(EXTRAS)} extra) with {uv_version}, in one resolution for every platform"
        f" and Python {python}.\n"
        f"{DIGEST_LINE}{digest(pyproject)}\n"
    )


def compile_lock(uv: str, extra: list[str]) -> int:
    """make lock: resolve pyproject.toml into the lock, then record what it was made from.

    uv reads the pins already in the lock as preferences, so a change to pyproject moves
    only what it must; ``--upgrade`` (make lock LOCK_ARGS=--upgrade) moves everything to
    the newest releases pyproject admits."""
    pyproject = read_pyproject()
    extras = [word for extra in EXTRAS for word in ("--extra", extra)]
    argv = [
        uv,
        "pip",
        "compile",
        "pyproject.toml",
        *extras,
        "--universal",
        "--python-version",
        minimum_python(pyproject),
        "--generate-hashes",
        "--custom-compile-command",
        "make lock",
        "--quiet",
        "--output-file",
        LOCK.name,
        *extra,
    ]
    done = subprocess.run(argv, cwd=ROOT)
    if done.returncode != 0:
        return done.returncode
    version = subprocess.run([uv, "--version"], capture_output=True, text=True, check=True)
    uv_version = " ".join(version.stdout.split()[:2])  # "uv 0.13.8"
    body = LOCK.read_text(encoding="utf-8")  # uv writes the whole file anew: no old header
    LOCK.write_text(header(uv_version, pyproject) + body, encoding="utf-8")
    print(f"{LOCK.name}: {len(entries(body))} packages, {uv_version}")
    return 0


def strays() -> list[str]:
    """Distributions installed here that the lock does not name (left by an older lock)."""
    from importlib.metadata import distributions

    locked = {entry.name for entry in entries(LOCK.read_text(encoding="utf-8"))}
    installed = {canonical(dist.metadata["Name"] or "") for dist in distributions()}
    return sorted(installed - locked - UNLOCKED)


def main(argv: list[str]) -> int:
    command = argv[0] if argv else ""
    if command == "check" and len(argv) == 1:
        problem = staleness()
        if problem:
            print(problem, file=sys.stderr)
            return 1
        return 0
    if command == "compile" and len(argv) >= 2:
        return compile_lock(argv[1], argv[2:])
    if command == "strays" and len(argv) == 1:
        print("\n".join(strays()))
        return 0
    print("usage: python -m scripts.lock check | compile UV [ARG...] | strays", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
