"""What a test does or reads on a lab tmux server by itself, with no server under test."""

from __future__ import annotations

import shutil
import stat
import subprocess
import time
import uuid
from pathlib import Path

from scripts.lab.tmuxserver import TMUX, TmuxServer

DEADLINE = 30.0  # only there to turn a hang into a failure


def tag() -> str:
    return uuid.uuid4().hex[:8]


def tmux_clients(tmux: TmuxServer) -> list[tuple[int, str]]:
    """The clients attached to the server: (pid, session name)."""
    rows = tmux.lines("list-clients", "-F", "#{client_pid} #{session_name}")
    return [(int(pid), name) for pid, name in (row.split(" ", 1) for row in rows)]


def start_again(tmux: TmuxServer, session: str) -> None:
    """A new server on the same socket (the old one may take a moment to let go of it)."""
    deadline = time.monotonic() + DEADLINE
    while True:
        try:
            tmux.tmux(
                "-f", "/dev/null", "start-server", ";",
                "set-option", "-g", "default-shell", "/bin/sh", ";",
                "new-session", "-d", "-s", session, "-x", "200", "-y", "50",
            )  # fmt: skip
            return
        except RuntimeError:
            assert time.monotonic() < deadline, "no new server would start on the socket"
            time.sleep(0.05)


def type_line(tmux: TmuxServer, pane: str, line: str) -> None:
    tmux.tmux("send-keys", "-t", pane, "-l", "--", line)
    tmux.tmux("send-keys", "-t", pane, "Enter")


def wait_for(tmux: TmuxServer, pane: str, text: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while text not in tmux.tmux("capture-pane", "-p", "-t", pane):
        assert time.monotonic() < deadline, f"{text!r} never appeared in {pane}"
        time.sleep(0.05)


def printed(tmux: TmuxServer, script: str, session: str = "main") -> str:
    """A new window's pane that ran ``script`` (then waits on cat); returned once it is done."""
    channel = f"c{uuid.uuid4().hex[:8]}"
    pane = tmux.tmux(
        "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", f"{session}:",
        f"{script}; tmux wait-for -S {channel}; exec cat",
    ).strip()  # fmt: skip
    tmux.tmux("wait-for", channel)
    return pane


def echoing(*lines: str) -> list[str]:
    """A pane command: print ``lines``, then echo back each line typed (no tty echo)."""
    script = 'stty -echo; for l in "$@"; do printf "%s\\n" "$l"; done; exec cat'
    return ["sh", "-c", script, "sh", *lines]


def screen_lines(server: TmuxServer, pane: str) -> list[str]:
    return server.tmux("capture-pane", "-p", "-t", pane).splitlines()


def cli_argument(value: str) -> str:
    """``value`` as one tmux command-line argument (tmux reads a trailing ';' as a separator)."""
    return value[:-1] + "\\;" if value.endswith(";") else value


def tmux_wait(tmux: TmuxServer, channel: str) -> subprocess.Popen[bytes]:
    """A ``tmux wait-for`` of our own on ``channel`` (literal argv), to be signalled."""
    return subprocess.Popen(
        [TMUX, "-L", tmux.name, "wait-for", "--", cli_argument(channel)],
        env={**tmux.env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


REAL_TMUX = shutil.which("tmux")


def tmux_answering_version(directory: Path, version_answer: str) -> tuple[Path, Path]:
    """A tmux binary answering ``-V`` with ``version_answer``; anything else runs the real one."""
    assert REAL_TMUX is not None
    log = directory / "fake-tmux.log"
    script = directory / "fake-tmux"
    script.write_text(
        "#!/bin/sh\n"
        f"printf '%s\\n' \"$*\" >>'{log}'\n"
        'for arg in "$@"; do\n'
        f"  if [ \"$arg\" = -V ]; then printf '%s\\n' '{version_answer}'; exit 0; fi\n"
        "done\n"
        f"exec '{REAL_TMUX}' \"$@\"\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, log


def socket_label(tmux: TmuxServer) -> str:
    return tmux.name


def output_clients(server: TmuxServer) -> list[str]:
    """Control clients that receive pane output (a wait's; the server's own has no-output)."""
    rows = server.lines("list-clients", "-F", "#{client_name} #{client_flags}")
    return [row for row in rows if "control-mode" in row and "no-output" not in row]
