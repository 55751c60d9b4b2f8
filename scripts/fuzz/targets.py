"""The servers a fuzz run can drive: ours, one process per profile, every toolset on; and
libtmux-mcp, the peer. Each says how it is started, how its internal errors read, and
which of its tools exist to run commands (their injection strings may run by design)."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp.types as types

from scripts.bench.peer import PEER_QUIET, PEER_VERSION, ensure_peer
from scripts.fuzz.lab import Lab
from scripts.fuzz.wire import Launch
from scripts.lab.client import COMMAND, ROOT
from scripts.lab.sshd import SshServer
from tmux_contract_mcp.generated import PROFILES

PEER_VENV = ROOT / "build" / "bench" / "peer-venv"
WAIT_MAX = "1"  # LIBTMUX_MCP_WAIT_MAX_SECONDS for servers that read it: waits stay short
RUNS_BY_DESIGN = "execute"  # the toolset whose tools type, run or start commands
READS_ONLY = "inspect"  # the toolset whose tools only read (annotations do not say so)

# What dispatch says when a handler raised or answered against its contract
# (runtime/dispatch.py); libtmux-mcp's catch-all and FastMCP's wrapper of an exception.
OUR_INTERNAL = ("failed inside the server", "this is a server bug")
PEER_INTERNAL = ("Unexpected error:", "Error calling tool")


@dataclass(frozen=True)
class Target:
    label: str
    launch: Callable[[Lab, str], Launch]  # lab, run token -> how to start it
    internal: tuple[str, ...]
    toolset: Callable[[types.Tool], str]
    expected_tools: tuple[str, ...] | None = None  # what tools/list must hold, when known
    names_fields: bool = True  # whether a refusal must name the field (our rule)
    tags: Callable[[types.Tool], tuple[str, ...]] = lambda tool: ()


def registry(profile: str) -> Any:
    return importlib.import_module(f"tmux_contract_mcp.generated.{profile}.registry")


def advertised(profile: str) -> dict[str, dict[str, Any]]:
    """The profile's tools as generated (``generated/<profile>/tools.json``)."""
    path = ROOT / "generated" / profile / "tools.json"
    return {tool["name"]: tool for tool in json.loads(path.read_text())["tools"]}


def ours(profile: str, transport: str = "control", sshd: SshServer | None = None) -> Target:
    """Our server with every toolset of ``profile`` on, every tool from its registry;
    with ``sshd``, started with ``--ssh`` through it (the lab's socket named by path)."""
    entries = {entry.name: entry for entry in registry(profile).TOOLS}
    toolsets = ",".join(registry(profile).TOOLSETS)

    def launch(lab: Lab, token: str) -> Launch:
        env = {
            **lab.env,
            "LIBTMUX_TOOLSETS": toolsets,
            "LIBTMUX_MCP_WAIT_MAX_SECONDS": WAIT_MAX,
            "TMUX_CONTRACT_MCP_TRANSPORT": transport,
            "FUZZ_RUN": token,
        }
        if sshd is not None:  # the lab's socket by path: its TMUX_TMPDIR is ours, not sshd's
            del env["LIBTMUX_SOCKET"]
            env |= {
                "TMUX_CONTRACT_MCP_SSH": sshd.target,
                "TMUX_CONTRACT_MCP_SSH_CONFIG": str(sshd.client_config),
                "LIBTMUX_SOCKET_PATH": str(lab.socket_path),
            }
        argv = (COMMAND, "--profile", profile)
        return Launch(argv, env, lab.work, lab.root / f"stderr-{profile}.log")

    return Target(
        f"ours/{profile}"
        + ("" if transport == "control" else f" ({transport})")
        + ("" if sshd is None else " over ssh"),
        launch,
        OUR_INTERNAL,
        lambda tool: entries[tool.name].toolset if tool.name in entries else "",
        tuple(sorted(advertised(profile))),
        tags=lambda tool: entries[tool.name].tags if tool.name in entries else (),
    )


def peer() -> Target:
    """libtmux-mcp from PyPI in its own venv (``make bench`` installs the same one)."""
    command = ensure_peer(PEER_VENV)

    def launch(lab: Lab, token: str) -> Launch:
        env = {
            **lab.env,
            **PEER_QUIET,
            "LIBTMUX_TOOLSETS": "inspect,manage,execute,teardown",
            "LIBTMUX_MCP_WAIT_MAX_SECONDS": WAIT_MAX,
            "FUZZ_RUN": token,
        }
        return Launch((str(command),), env, lab.work, lab.root / "stderr-peer.log")

    def tags(tool: types.Tool) -> tuple[str, ...]:
        meta = tool.meta or {}
        return tuple((meta.get("fastmcp") or {}).get("tags") or ())

    def toolset(tool: types.Tool) -> str:
        toolsets = ("inspect", "manage", "execute", "teardown")
        return next((tag for tag in tags(tool) if tag in toolsets), "")

    return Target(
        f"libtmux-mcp {PEER_VERSION}", launch, PEER_INTERNAL, toolset, names_fields=False, tags=tags
    )


def named(name: str, transport: str = "control", sshd: SshServer | None = None) -> Target:
    if name in PROFILES:
        return ours(name, transport, sshd)
    if name == "peer":
        return peer()
    raise SystemExit(f"unknown target {name!r}: one of {', '.join((*PROFILES, 'peer'))}")


def stderr_tail(path: Path, lines: int = 20) -> str:
    if not path.exists():
        return ""
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
