"""The official MCP conformance suite (npm ``@modelcontextprotocol/conformance``) against a
server's Streamable HTTP endpoint.

The pin is a pre-release on purpose: 0.1.16, the newest release, knows only the handshake
era; 0.2.0-alpha.12 tests both eras (``--spec-version 2025-11-25`` and ``2026-07-28``) and
the 2026-07-28 scenarios (``server-stateless``, ``http-header-validation``, ``caching``).
The first use installs it into ``build/conformance`` (``scripts/lab/node.py``).

``run`` runs every server scenario the suite has for one spec version (``--suite all``) and
reads each scenario's checks from the files it writes with ``-o``: what a scenario found is
judged from its checks, not from the exit status (which fails when any scenario does).
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scripts.lab.node import ROOT, node_env, npm_installed

VERSION = "0.2.0-alpha.12"
PACKAGE = "@modelcontextprotocol/conformance"
HOME = ROOT / "build" / "conformance"
ERAS = ("2025-11-25", "2026-07-28")
# What a check that passes may say; FAILURE fails its scenario.
PASSING = {"SUCCESS", "INFO", "SKIPPED", "WARNING"}
_COLOUR = re.compile(r"\x1b\[[0-9;]*m")


def installed() -> Path:
    """The suite's command, installed first if need be."""
    return npm_installed(HOME, PACKAGE, VERSION) / "conformance"


@dataclass(frozen=True)
class Check:
    scenario: str
    id: str
    status: str
    message: str
    untestable: bool


@dataclass(frozen=True)
class Run:
    """One run of the suite: its checks by scenario and the summary it printed."""

    spec_version: str
    checks: dict[str, list[Check]]
    summary: str

    def failures(self, scenario: str) -> list[Check]:
        return [check for check in self.checks[scenario] if check.status not in PASSING]

    def warnings(self, scenario: str) -> list[Check]:
        return [check for check in self.checks[scenario] if check.status == "WARNING"]


def scenarios(spec_version: str) -> list[str]:
    """The server scenarios the suite's own listing names for ``spec_version``."""
    listed = subprocess.run(
        [str(installed()), "list", "--server", "--spec-version", spec_version],
        capture_output=True, text=True, check=True, timeout=120, env=node_env(),
    )  # fmt: skip
    return re.findall(r"^\s+- (\S+)", _COLOUR.sub("", listed.stdout), re.MULTILINE)


def run(url: str, spec_version: str, timeout: float = 600) -> Run:
    """Every server scenario of ``spec_version`` against ``url``."""
    with tempfile.TemporaryDirectory(prefix="tcm-conformance-") as folder:
        done = subprocess.run(
            [
                str(installed()), "server", "--url", url, "--suite", "all",
                "--spec-version", spec_version, "-o", folder,
            ],
            capture_output=True, text=True, timeout=timeout, env=node_env(),
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        checks: dict[str, list[Check]] = {}
        for path in sorted(Path(folder).glob("server-*/checks.json")):
            scenario = re.sub(r"^server-|-\d{4}-\d\d-\d\dT[\d-]+Z$", "", path.parent.name)
            raw: list[dict[str, Any]] = json.loads(path.read_text())
            checks[scenario] = [
                Check(
                    scenario,
                    str(item["id"]),
                    str(item["status"]),
                    str(item.get("errorMessage") or item.get("description") or ""),
                    bool((item.get("details") or {}).get("untestable")),
                )
                for item in raw
            ]
    output = _COLOUR.sub("", done.stdout)
    summary = output[output.find("=== SUMMARY ===") :].strip()
    if not checks:
        raise RuntimeError(f"the conformance suite ran no scenario: {done.stdout}{done.stderr}")
    return Run(spec_version, checks, summary)
