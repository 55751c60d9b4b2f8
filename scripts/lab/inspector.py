"""The MCP Inspector's CLI (npm ``@modelcontextprotocol/inspector``): a real client no one here
wrote, for the HTTP listener.

It needs Node 22.19 or newer (``scripts/lab/node.py``). The first use installs the pinned
version from the npm registry into ``build/inspector`` (about 10 s).
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

from scripts.lab.node import ROOT, node_env, npm_installed

VERSION = "2.12.0"
PACKAGE = "@modelcontextprotocol/inspector"
HOME = ROOT / "build" / "inspector"


def installed() -> Path:
    """The Inspector's command, installed first if need be."""
    return npm_installed(HOME, PACKAGE, VERSION) / "mcp-inspector"


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
