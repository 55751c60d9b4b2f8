"""The peer, libtmux-mcp from PyPI: its own venv, and how loudly it logs.

As shipped, FastMCP (which libtmux-mcp runs on) configures its ``fastmcp``
logger at INFO with a rich handler on stderr, so its TimingMiddleware writes a
"Request ... completed in ... ms" record for every request, and it prints a
banner at start. A user who silences that (``FASTMCP_LOG_LEVEL=WARNING``, read by
FastMCP's settings at import) does not pay for it, so the benchmark runs the
peer that way unless asked for the shipped behaviour. libtmux-mcp's own audit
records (logger ``libtmux_mcp.audit``, INFO) are printed in neither mode: nothing
configures a handler or a level for them, so Python drops them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

PEER_PACKAGE = "libtmux-mcp"
PEER_VERSION = "0.1.0a22"
PEER_QUIET = {"FASTMCP_LOG_LEVEL": "WARNING", "FASTMCP_SHOW_SERVER_BANNER": "false"}


def peer_mode(as_shipped: bool) -> str:
    """One line for the report: which logging the peer ran with."""
    if as_shipped:
        return "as shipped (FastMCP logs every request at INFO to stderr, banner at start)"
    quiet = " ".join(f"{k}={v}" for k, v in PEER_QUIET.items())
    return f"quiet ({quiet}); --peer-as-shipped runs it with its default logging"


def run_quiet(argv: Sequence[str], log: Path) -> None:
    with log.open("a") as out:
        done = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed; see {log}")


def peer_version(python: Path) -> str | None:
    if not python.exists():
        return None
    probe = f"import importlib.metadata as m; print(m.version({PEER_PACKAGE!r}))"
    done = subprocess.run([str(python), "-c", probe], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def ensure_peer(venv: Path) -> Path:
    """The peer's console script, from its own venv (made and filled once, then reused)."""
    python = venv / "bin" / "python"
    if peer_version(python) != PEER_VERSION:
        log = venv.parent / "peer-install.log"
        venv.parent.mkdir(parents=True, exist_ok=True)
        print(f"installing {PEER_PACKAGE}=={PEER_VERSION} into {venv} (log: {log})")
        if not python.exists():
            base = shutil.which("python3.11") or sys.executable
            run_quiet([base, "-m", "venv", str(venv)], log)
        run_quiet([str(python), "-m", "pip", "install", f"{PEER_PACKAGE}=={PEER_VERSION}"], log)
    probe = (
        "import importlib.metadata as m, json; "
        f"d = m.distribution({PEER_PACKAGE!r}); "
        "print(json.dumps([e.name for e in d.entry_points if e.group == 'console_scripts']))"
    )
    names: list[str] = json.loads(subprocess.check_output([str(python), "-c", probe], text=True))
    if not names:
        sys.exit(f"{PEER_PACKAGE} declares no console script")
    script = venv / "bin" / str(names[0])
    if not script.exists():
        sys.exit(f"{script} is missing")
    return script
