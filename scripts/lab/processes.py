"""What runs, read through psutil: for tests that must see a process left behind, or end one.

Nothing here touches a process it was not pointed at: callers name the pid, the session,
the environment or the tmux server. A process that ends while it is read is simply not
found.
"""

from __future__ import annotations

import contextlib
import os
import signal

import psutil

GONE = (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess)


def pids() -> list[int]:
    return list(psutil.pids())


def parent_of(pid: int) -> int | None:
    """The parent pid (zombies keep theirs until reaped)."""
    try:
        return int(psutil.Process(pid).ppid())
    except GONE:
        return None


def session_of(pid: int) -> int | None:
    """The session id (``setsid``) a process belongs to."""
    try:
        return os.getsid(pid)
    except OSError:
        return None


def children(parent: int) -> list[int]:
    """Child processes of ``parent``, zombies included."""
    try:
        return sorted(child.pid for child in psutil.Process(parent).children())
    except GONE:
        return []


def descendants(pid: int) -> set[int]:
    """Every process below ``pid``."""
    try:
        return {child.pid for child in psutil.Process(pid).children(recursive=True)}
    except GONE:
        return set()


def alive(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie."""
    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except GONE:
        return False


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
        return list(psutil.Process(pid).cmdline())
    except GONE:
        return []


def command_line(pid: int) -> str:
    """The command line as one string (``?`` for a process gone)."""
    return " ".join(cmdline(pid)) or "?"


def name_of(pid: int) -> str:
    """The process's name as the kernel has it (``comm``; ``?`` for a process gone)."""
    try:
        return str(psutil.Process(pid).name())
    except GONE:
        return "?"


def environ_of(pid: int) -> dict[str, str]:
    try:
        return dict(psutil.Process(pid).environ())
    except GONE:
        return {}


def processes_with(variable: str, value: str) -> set[int]:
    """Every process whose environment holds ``variable=value``."""
    return {pid for pid in pids() if environ_of(pid).get(variable) == value}


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


def resources_of(pid: int) -> tuple[int, int, int]:
    """Resident memory (KiB), open descriptors and threads of ``pid``."""
    process = psutil.Process(pid)
    return process.memory_info().rss // 1024, process.num_fds(), process.num_threads()
