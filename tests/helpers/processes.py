"""Processes the tests look for: a stdio server under test, tmux processes, ``wait-for`` waiters."""

from __future__ import annotations

from pathlib import Path

from scripts.lab.processes import cmdline, environ_of, pids
from scripts.lab.tmuxserver import TmuxServer


def mcp_server_pid(tmux: TmuxServer, transport: str | None = None) -> int:
    """The MCP server process talking to ``tmux`` (found by its command and environment), the
    one using ``transport`` when given."""
    found = []
    for pid in pids():
        if not any(arg.endswith("tmux-contract-mcp") for arg in cmdline(pid)):
            continue
        environ = environ_of(pid)
        if environ.get("LIBTMUX_SOCKET") == tmux.name and (
            transport is None or environ.get("TMUX_CONTRACT_MCP_TRANSPORT") == transport
        ):
            found.append(pid)
    assert len(found) == 1, found
    return found[0]


def tmux_processes(tmux: TmuxServer) -> list[int]:
    """tmux processes whose argv names this server's socket (-L name or -S path)."""
    found = []
    for pid in pids():
        argv = cmdline(pid)
        if argv and Path(argv[0]).name == "tmux" and any(tmux.name in arg for arg in argv[1:]):
            found.append(pid)
    return sorted(found)


def channel_waiters(channel: str) -> list[int]:
    """Pids of the processes waiting on ``channel`` (``tmux wait-for CHANNEL``)."""
    return [pid for pid in pids() if "wait-for" in (argv := cmdline(pid)) and channel in argv]


def waiting_clients(tmux: TmuxServer) -> list[int]:
    """The tmux ``wait-for`` clients of this server that wait (rather than signal)."""
    found = []
    for pid in tmux_processes(tmux):
        argv = cmdline(pid)
        if "wait-for" in argv and argv[argv.index("wait-for") + 1 :][:1] != ["-S"]:
            found.append(pid)
    return found
