"""The private tmux server a fuzz run works on, what it holds, and how it is put back.

Everything lives under one private directory: ``TMUX_TMPDIR`` (several levels deep, so a
socket name such as ``../x`` still lands inside), the working directory of every pane
and of the server under test (a command a fuzzed call runs writes its files there), and
the directory of marker files that an injected command would create. tmux is read with
its own commands on the private socket, never through the server under test.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from scripts.lab.controlmode import ControlMode
from scripts.lab.tmuxserver import TMUX

SOCKET = "lab"
DEPTH = 6  # directories between the private root and TMUX_TMPDIR
TOO_BIG = {"S": 8, "W": 16, "P": 24}  # sessions, windows, panes: rebuild beyond these

# What an invalid call must leave as it was: the structure, then every option, hook,
# buffer and environment variable (the server's, each session's, window's and pane's).
_STRUCTURE = (
    ("list-sessions", "-F", "S #{session_id} #{session_name}"),
    (
        "list-windows", "-a", "-F",
        "W #{window_id} #{session_id} #{window_index} #{window_name} #{window_active} "
        "#{window_layout} #{window_zoomed_flag}",
    ),
    (
        "list-panes", "-a", "-F",
        "P #{pane_id} #{window_id} #{pane_index} #{pane_active} #{pane_title} "
        "#{pane_width}x#{pane_height} #{pane_in_mode} #{pane_pipe} #{pane_dead}",
    ),
    ("list-buffers", "-F", "B #{buffer_name} #{buffer_size}"),
    ("show-options", "-gH"),
    ("show-options", "-gwH"),
    ("show-options", "-s"),
    ("show-hooks", "-g"),
    ("show-environment", "-g"),
)  # fmt: skip
_SECTIONS = ("", "", "", "", "options", "window-options", "server-options", "hooks", "environment")


def _line(command: tuple[str, ...]) -> str:
    """One control-mode command line; every argument single-quoted (ours hold no quote)."""
    return " ".join(f"'{word}'" for word in command)


class Watcher(ControlMode):
    """The lab's own control-mode client, attached to session ``main``: reads tmux in a
    fraction of a millisecond per command where a tmux process costs several."""

    def __init__(self, lab: Lab) -> None:
        super().__init__(
            [TMUX, "-L", lab.name, "-C", "attach-session", "-t", "=main", "-f",
             "ignore-size,no-output"],
            lab.tmux_env,
            lab.work,
        )  # fmt: skip


@dataclass(frozen=True)
class State:
    """One reading of the lab: every line, in order; parsed views for live values."""

    lines: tuple[str, ...]

    def rows(self, kind: str) -> list[list[str]]:
        return [line.split(" ")[1:] for line in self.lines if line.startswith(f"{kind} ")]

    @property
    def sessions(self) -> list[list[str]]:
        return self.rows("S")

    @property
    def windows(self) -> list[list[str]]:
        return self.rows("W")

    @property
    def panes(self) -> list[list[str]]:
        return self.rows("P")

    @property
    def buffers(self) -> list[str]:
        return [row[0] for row in self.rows("B") if row]

    def words(self, section: str) -> list[str]:
        """First words of a section's lines (``=options``, ``=hooks``, ``=environment``)."""
        out: list[str] = []
        inside = False
        for line in self.lines:
            if line.startswith("="):
                inside = line == section
            elif inside and line:
                out.append(line.split(" ", 1)[0].split("=", 1)[0].lstrip("-"))
        return out

    def size(self) -> dict[str, int]:
        return {kind: len(self.rows(kind)) for kind in TOO_BIG}


@dataclass
class Lab:
    root: Path
    name: str = SOCKET
    rebuilt: int = 0
    watcher: Watcher = field(init=False)

    def __post_init__(self) -> None:
        self.watcher = Watcher(self)

    @classmethod
    def create(cls) -> Lab:
        root = Path(tempfile.mkdtemp(prefix="tcmf-", dir="/tmp"))
        lab = cls(root)
        for path in (lab.tmpdir, lab.work, lab.markers):
            path.mkdir(parents=True, exist_ok=True)
        lab.build()
        return lab

    @property
    def tmpdir(self) -> Path:
        return self.root.joinpath(*["d"] * DEPTH)

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def markers(self) -> Path:
        return self.root / "markers"

    @property
    def socket_path(self) -> Path:
        return self.tmpdir / f"tmux-{os.getuid()}" / self.name

    @property
    def env(self) -> dict[str, str]:
        """What a server under test needs to reach the lab (and nothing of this process)."""
        return {
            "PATH": os.environ.get("PATH", ""),
            "HOME": os.environ.get("HOME", "/root"),
            "TMUX_TMPDIR": str(self.tmpdir),
            "LIBTMUX_SOCKET": self.name,
        }

    @property
    def tmux_env(self) -> dict[str, str]:
        """The lab server's environment: only what a shell needs, nothing of this process."""
        return {
            "PATH": os.environ.get("PATH", ""),
            "HOME": os.environ.get("HOME", "/root"),
            "TMUX_TMPDIR": str(self.tmpdir),
            "LANG": "C.UTF-8",
        }

    def tmux(
        self, *args: str, socket: str | None = None, stdin: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        env = self.tmux_env
        where = ["-S", socket] if socket else ["-L", self.name]
        return subprocess.run(
            [TMUX, *where, *args],
            input=stdin,
            capture_output=True,
            text=True,
            errors="replace",
            env=env,
            cwd=self.work,
            timeout=20,
        )

    def build(self) -> None:
        """The lab from scratch: two sessions, three windows, four panes, a buffer, a
        variable; windows keep the names they are given."""
        self.watcher.close()
        self.tmux("kill-server")
        work = str(self.work)
        for _ in range(100):  # a new server on a socket just freed may need a moment
            done = self._start(work)
            if done.returncode == 0:
                break
            time.sleep(0.02)
        else:
            raise RuntimeError(f"the lab did not start: {done.stderr.strip()}")
        self.rebuilt += 1

    def _start(self, work: str) -> subprocess.CompletedProcess[str]:
        return self.tmux(
            "-f", "/dev/null", "start-server", ";",
            "set-option", "-g", "default-shell", "/bin/sh", ";",
            "set-option", "-gw", "automatic-rename", "off", ";",
            "new-session", "-d", "-s", "main", "-x", "160", "-y", "48", "-c", work, ";",
            "split-window", "-h", "-t", "main:", "-c", work, ";",
            "new-window", "-d", "-t", "main:", "-c", work, ";",
            "new-session", "-d", "-s", "aux", "-x", "120", "-y", "40", "-c", work, ";",
            "split-window", "-v", "-t", "aux:", "-c", work, ";",
            "set-buffer", "-b", "fuzzbuf", "hello", ";",
            "set-environment", "-g", "FUZZ_VAR", "1",
        )  # fmt: skip

    def snapshot(self) -> State:
        """Every line an invalid call must leave alone; empty when the server is gone."""
        blocks = self.watcher.run([_line(command) for command in _STRUCTURE])
        if blocks is None:
            return State(())
        lines: list[str] = []
        for section, block in zip(_SECTIONS, blocks, strict=True):
            lines += [f"={section}", *block] if section else block
        state = State(tuple(lines))
        local: list[tuple[str, ...]] = []
        for row in state.sessions:
            local += [("show-options", "-H", "-t", row[0]), ("show-environment", "-t", row[0])]
        local += [("show-options", "-wH", "-t", row[0]) for row in state.windows]
        local += [("show-options", "-pH", "-t", row[0]) for row in state.panes]
        more = self.watcher.run([_line(command) for command in local]) if local else []
        if more is None:
            return State(())
        for command, block in zip(local, more, strict=True):
            lines += [f"={' '.join(command)}", *block]
        return State(tuple(lines))

    def settled(self, tries: int = 10, pause: float = 0.01) -> State:
        """A snapshot once two in a row agree: what a call set going has landed."""
        last = self.snapshot()
        for _ in range(tries):
            time.sleep(pause)
            now = self.snapshot()
            if now == last:
                return now
            last = now
        return last

    def usable(self, state: State) -> bool:
        """Whether the lab can go on as it is: its server up, session ``main`` there, and
        not grown past ``TOO_BIG``."""
        if not state.lines or not any(row[1:2] == ["main"] for row in state.sessions):
            return False
        return all(state.size()[kind] <= limit for kind, limit in TOO_BIG.items())

    def markers_seen(self) -> list[str]:
        """The marker files that exist: each named for the call whose strings name it
        (a name may carry what followed the path in the string, such as a ``\r``)."""
        return sorted(os.listdir(self.markers))

    def sockets(self) -> Iterator[Path]:
        """Every tmux socket under the private root (a call may start servers of its own)."""
        for directory, _, files in os.walk(self.root):
            for name in files:
                path = Path(directory, name)
                try:
                    if stat.S_ISSOCK(path.lstat().st_mode):
                        yield path
                except OSError:
                    continue

    def server_pids(self) -> dict[Path, int]:
        found: dict[Path, int] = {}
        for path in self.sockets():
            done = self.tmux("display-message", "-p", "#{pid}", socket=str(path))
            if done.returncode == 0 and done.stdout.strip().isdigit():
                found[path] = int(done.stdout.strip())
        return found

    def clients(self) -> list[str]:
        """Clients attached to any server under the root, as ``socket: tty pid``."""
        out: list[str] = []
        for path in self.sockets():
            done = self.tmux("list-clients", "-F", "#{client_tty} #{client_pid}", socket=str(path))
            out += [f"{path.name}: {line}" for line in done.stdout.splitlines() if line]
        return out

    def kill_all(self) -> None:
        for path in list(self.sockets()):
            self.tmux("kill-server", socket=str(path))

    def remove(self) -> None:
        self.watcher.close()
        self.kill_all()
        shutil.rmtree(self.root, ignore_errors=True)
