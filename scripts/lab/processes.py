"""What runs, read from /proc: for tests that must see a process left behind, or end one.

Linux only, like the rest of the lab. Nothing here touches a process it was not
pointed at: callers name the pid, the session or the tmux server.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path


def pids() -> list[int]:
    return [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (state first), or None if gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rpartition(")")[2].split()


def parent_of(pid: int) -> int | None:
    """The parent pid (zombies keep theirs until reaped)."""
    fields = _stat(pid)
    return int(fields[1]) if fields else None


def session_of(pid: int) -> int | None:
    """The session id (``setsid``) a process belongs to."""
    fields = _stat(pid)
    return int(fields[3]) if fields else None


def children(parent: int) -> list[int]:
    """Child processes of ``parent``, zombies included."""
    return sorted(pid for pid in pids() if parent_of(pid) == parent)


def alive(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie."""
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


def end_session(leader: int) -> list[int]:
    """SIGKILL every process of the session ``leader`` leads (a pane's shell and its jobs).

    A pane's program is the leader of a session of its own; killing all of it closes
    the pane's terminal, so tmux sees the program exit. Returns the pids signalled.
    """
    members = [pid for pid in pids() if session_of(pid) == leader]
    for pid in members:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return members


def cmdline(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [arg.decode("utf-8", "replace") for arg in raw.split(b"\0") if arg]


def environ_of(pid: int) -> dict[str, str]:
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return {}
    pairs = (item.decode("utf-8", "replace").partition("=") for item in raw.split(b"\0") if item)
    return {name: value for name, _, value in pairs}


def mcp_servers(socket_name: str) -> dict[int, str]:
    """The MCP servers (``tmux-contract-mcp`` processes) started for tmux socket
    ``socket_name`` (``LIBTMUX_SOCKET`` in their environment): pid -> profile."""
    found: dict[int, str] = {}
    for pid in pids():
        argv = cmdline(pid)
        if not any(os.path.basename(arg) == "tmux-contract-mcp" for arg in argv[:2]):
            continue
        if environ_of(pid).get("LIBTMUX_SOCKET") != socket_name:
            continue
        at = argv.index("--profile") if "--profile" in argv else -1
        found[pid] = argv[at + 1] if 0 <= at < len(argv) - 1 else "python"
    return found


def tmux_processes(socket_name: str) -> list[int]:
    """tmux processes (server and clients) whose command line names the socket."""
    return sorted(
        pid
        for pid in pids()
        if (argv := cmdline(pid))
        and os.path.basename(argv[0]) == "tmux"
        and any(socket_name in arg for arg in argv[1:])
        and alive(pid)
    )
