"""The installed command's ``doctor`` subcommand: its five lines in order, and an exit status
that is 0 only when every line passes."""

from __future__ import annotations

import subprocess

from scripts.lab.client import COMMAND
from scripts.lab.tmuxserver import TmuxServer


def doctor(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [COMMAND, "doctor", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def test_doctor_prints_one_line_per_check_and_fails_when_one_fails(tmux: TmuxServer) -> None:
    done = doctor(tmux.server_env(), "--profile", "python")
    names = [line.split(":")[0].split(None, 1) for line in done.stdout.splitlines()]
    assert [name for _, name in names] == [
        "tmux",
        "socket",
        "toolsets",
        "ssh",
        "config",
        "desktop PATH",
    ]
    assert {verdict for verdict, _ in names} <= {"ok", "FAIL"}
    assert done.returncode == (0 if all(verdict == "ok" for verdict, _ in names) else 1)
    assert done.stdout.splitlines()[1].startswith("ok    socket: ")  # the lab's server runs
    assert done.stderr == ""

    gone = doctor(tmux.server_env(LIBTMUX_SOCKET="nothing-runs-here"), "--profile", "python")
    assert gone.returncode == 1
    assert gone.stdout.splitlines()[1].startswith("FAIL  socket: no tmux server runs on ")
