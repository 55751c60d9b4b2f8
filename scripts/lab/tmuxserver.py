"""A private tmux server: own TMUX_TMPDIR, own socket, killed afterwards.

A server under test reaches it through ``tmux-logged`` (``LIBTMUX_TMUX_BIN``), which
writes down every tmux invocation and every line written to a control client: ``mark`` and
``sent_since`` read that log (``sentlog``), so a test can see whether a call sent tmux
anything at all.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from scripts.lab import processes, sentlog
from scripts.lab.sentlog import LOGGED_TMUX, Mark, Sent
from tmux_contract_mcp.handlers.tmux.transport.formats import literal_format

TMUX = shutil.which("tmux") or "tmux"


KILL_GRACE = 2.0  # seconds a server gets to leave after kill-server
STARTED = 10.0  # seconds a new pane's program gets to start


@dataclass(frozen=True)
class NewSession:
    """What ``TmuxServer.new_session`` made: the session's name and id, its first window and
    that window's pane, and every window it was made with (ids, by index)."""

    name: str
    id: str
    window: str
    pane: str
    windows: tuple[str, ...]

    @property
    def ids(self) -> tuple[str, str, str]:
        """(session id, first window id, its pane id)."""
        return self.id, self.window, self.pane


@dataclass
class TmuxServer:
    """One throwaway tmux server. Only ever talks to its own socket."""

    tmpdir: Path
    name: str
    env: dict[str, str] = field(default_factory=dict)
    owns_tmpdir: bool = True

    @classmethod
    def start(
        cls, width: int = 200, height: int = 50, beside: TmuxServer | None = None
    ) -> TmuxServer:
        """A new server; ``beside`` puts its socket in that server's TMUX_TMPDIR."""
        # Short paths: a unix socket path must stay under ~100 bytes.
        if beside is not None:
            server = cls(beside.tmpdir, f"t{uuid.uuid4().hex[:8]}", owns_tmpdir=False)
        else:
            tmpdir = Path(tempfile.mkdtemp(prefix="tcm-", dir="/tmp"))
            server = cls(tmpdir, f"t{uuid.uuid4().hex[:8]}")
        tmpdir = server.tmpdir
        server.sent_log.mkdir(exist_ok=True)
        server.env = {
            "TMUX_TMPDIR": str(tmpdir),
            "PATH": os.environ.get("PATH", ""),
            "HOME": os.environ.get("HOME", "/root"),
        }
        # One invocation: the shell is set before the first pane starts, so no pane runs
        # the user's login shell (slow to start, and noisy with their rc files). The
        # command replaces tmux's login shell (``-sh``) with a plain one: a login sh reads
        # ~/.profile, whose commands (``mesg``...) would show as the pane's command and
        # the window's name for a moment after each pane starts.
        server.tmux(
            "-f",
            "/dev/null",
            "start-server",
            ";",
            "set-option",
            "-g",
            "default-shell",
            "/bin/sh",
            ";",
            "set-option",
            "-g",
            "default-command",
            "exec /bin/sh",
            ";",
            "new-session",
            "-d",
            "-s",
            "main",
            "-x",
            str(width),
            "-y",
            str(height),
        )
        server.wait_for_prompt("main:")
        return server

    def wait_for_prompt(self, target: str, timeout: float = 10.0) -> None:
        """Until ``target``'s shell has drawn its prompt (its screen is no longer blank).

        Keys typed before that are read all the same, but their echo lands before the
        prompt and the command's first line of output after it, on the prompt's line.
        Gives up quietly after ``timeout``: a shell with an empty prompt never draws one.
        """
        deadline = time.monotonic() + timeout
        while not self.tmux("capture-pane", "-p", "-t", target).strip():
            if time.monotonic() > deadline:
                return
            time.sleep(0.01)

    @property
    def socket_path(self) -> str:
        return str(self.tmpdir / f"tmux-{os.getuid()}" / self.name)

    def tmux(self, *args: str, check: bool = True) -> str:
        env = {**os.environ, **self.env}
        env.pop("TMUX", None)
        done = subprocess.run(
            [TMUX, "-L", self.name, *args], capture_output=True, text=True, env=env, timeout=20
        )
        if check and done.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout

    def lines(self, *args: str) -> list[str]:
        return [line for line in self.tmux(*args).splitlines() if line]

    @property
    def sent_log(self) -> Path:
        """Where ``tmux-logged`` writes what servers under test sent to tmux.

        One log per TMUX_TMPDIR: a server started ``beside`` another shares it, so either
        one's ``sent_since`` sees a call that reached both.
        """
        return self.tmpdir / "sent"

    def server_env(self, **extra: str) -> dict[str, str]:
        """The environment an MCP server under test needs to reach this tmux server.

        Its tmux is ``tmux-logged``, so ``sent_since`` sees everything it sends.
        """
        return {
            **self.env,
            "LIBTMUX_SOCKET": self.name,
            "LIBTMUX_TMUX_BIN": str(LOGGED_TMUX),
            "TCM_REAL_TMUX": TMUX,
            "TCM_TMUX_LOG": str(self.sent_log),
            **extra,
        }

    def mark(self) -> Mark:
        """Now, in the log of what servers under test sent: read back with ``sent_since``."""
        return sentlog.mark(self.sent_log)

    def sent_since(self, mark: Mark) -> list[Sent]:
        """Every tmux invocation and control-client line sent after ``mark``."""
        return sentlog.sent_since(self.sent_log, mark)

    def assert_nothing_sent_since(self, mark: Mark, what: object = "") -> None:
        """No server under test sent tmux anything after ``mark`` (whichever socket)."""
        sent = [str(item) for item in self.sent_since(mark) if item.reaches_a_server]
        assert sent == [], f"{what}: sent to tmux: {sent}" if what else f"sent to tmux: {sent}"

    def state(self) -> list[str]:
        """Everything an invalid call must leave as it was."""
        return self.lines(
            "list-panes",
            "-a",
            "-F",
            "#{session_name} #{window_id} #{window_active} #{window_layout} "
            "#{pane_id} #{pane_active} #{pane_title}",
        )

    def grid(self, window: str = "main:0") -> dict[str, str]:
        """Split ``window`` (``session:index``, one pane) into a 2x2 grid; corner -> pane id."""
        self.tmux("split-window", "-h", "-t", window)
        self.tmux("split-window", "-v", "-t", f"{window}.0")
        self.tmux("split-window", "-v", "-t", f"{window}.2")
        self.tmux("select-layout", "-t", window, "tiled")
        self.settle(window)
        return self.corners(window)

    def new_window(self, session: str = "main", current: bool = False) -> str:
        """A new window in ``session``, made its current one only if ``current``; its
        ``session:index``. Tests that share a server each work in a window of their own."""
        detached = () if current else ("-d",)
        return self.tmux(
            "new-window",
            *detached,
            "-P",
            "-F",
            "#{session_name}:#{window_index}",
            "-t",
            f"{session}:",
        ).strip()

    def new_session(
        self,
        name: str | None = None,
        *command: str,
        width: int | None = 200,
        height: int | None = 50,
        window_name: str | None = None,
        windows: int = 1,
    ) -> NewSession:
        """A detached session, returned once its pane's program runs.

        ``name`` is taken literally (tmux would expand it as a format, and read a trailing
        ``;`` as a separator); without one, a unique ``s-…`` that sorts after ``main`` (a
        control client attaching again attaches to the first session by name). The pane runs
        ``command``, else the shell, and ``width`` by ``height`` (None: tmux's default size).
        ``window_name`` names the first window (so tmux does not rename it as its commands
        change); ``windows`` more than one adds detached windows after it.

        tmux answers ``new-session`` before the pane's program has started; until it has,
        the pane reports an empty ``pane_current_path`` (and a tool reading the pane, a blank
        directory). So this waits until the path is there, or the pane is gone or dead (a
        command that ended at once); for the shell, also until it has drawn its prompt.
        """
        name = f"s-{uuid.uuid4().hex[:8]}" if name is None else name
        spelled = literal_format(name)
        if spelled.endswith(";"):
            spelled = spelled[:-1] + "\\;"
        size = [*(("-x", str(width)) if width else ()), *(("-y", str(height)) if height else ())]
        named = ("-n", window_name) if window_name is not None else ()
        fmt = "#{session_id} #{window_id} #{pane_id} #{session_name}"
        out = self.tmux(
            "new-session", "-d", "-s", spelled, *named, *size, "-P", "-F", fmt, *command
        )
        session_id, window_id, pane_id, read_back = out.removesuffix("\n").split(" ", 3)
        assert read_back == name, f"the session is named {read_back!r}, not {name!r}"
        ids = [window_id]
        for _ in range(windows - 1):
            target = f"{session_id}:"
            made = self.tmux("new-window", "-d", "-t", target, "-P", "-F", "#{window_id}")
            ids.append(made.strip())
        self.until_started(pane_id)
        if not command:
            self.wait_for_prompt(pane_id)
        return NewSession(name, session_id, window_id, pane_id, tuple(ids))

    def until_started(self, pane: str, timeout: float = STARTED) -> None:
        """Until ``pane``'s program runs (its ``pane_current_path`` is known), or the pane is
        dead or gone."""
        deadline = time.monotonic() + timeout
        while True:
            shown = self.tmux(
                "display-message", "-p", "-t", pane, "#{pane_dead}#{pane_current_path}", check=False
            )
            if not shown.strip() or shown.startswith("1") or shown[1:].strip():
                return
            assert time.monotonic() < deadline, f"the program of {pane} never started"
            time.sleep(0.01)

    def settle(self, window: str, timeout: float = STARTED) -> None:
        """Until every pane of ``window`` runs its program and, while tmux names the window
        after its active pane's command (``automatic-rename``), the name has caught up.

        Until its program starts, a new pane runs a copy of the tmux server (its command
        reads ``tmux``), and tmux renames a window at most every half second: a window just
        split would be listed as ``tmux`` for a moment. Gives up quietly after ``timeout``.
        """
        for pane in self.lines("list-panes", "-t", window, "-F", "#{pane_id}"):
            self.until_started(pane, timeout)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            fmt = "#{automatic-rename}|#{pane_current_command}|#{window_name}"
            renamed, command, name = self.tmux("display-message", "-p", "-t", window, fmt)[
                :-1
            ].split("|", 2)
            if renamed != "1" or name == command:
                return
            time.sleep(0.02)

    def corners(self, window: str) -> dict[str, str]:
        rows = [
            line.split()
            for line in self.lines(
                "list-panes",
                "-t",
                window,
                "-F",
                "#{pane_id} #{pane_at_top} #{pane_at_bottom} #{pane_at_left} #{pane_at_right}",
            )
        ]
        found: dict[str, str] = {}
        for pane, top, bottom, left, right in rows:
            for vertical, v in (("top", top), ("bottom", bottom)):
                for horizontal, h in (("left", left), ("right", right)):
                    if v == "1" and h == "1":
                        found[f"{vertical}-{horizontal}"] = pane
        return found

    def active_pane(self, window: str = "main:0") -> str:
        for line in self.lines("list-panes", "-t", window, "-F", "#{pane_active} #{pane_id}"):
            active, pane = line.split()
            if active == "1":
                return pane
        raise AssertionError("no active pane")

    def kill(self) -> None:
        """``kill-server``, and SIGKILL for a server still there a moment later.

        tmux 3.3a can wedge in its exit, waiting on a control client whose pipes lost
        both ends (what a killed sshd leaves on the remote side): it then answers no one
        and would outlive the test run."""
        pid = self.server_pid()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.tmux("kill-server", check=False)
        if pid is not None:
            deadline = time.monotonic() + KILL_GRACE
            while self.is_server(pid) and time.monotonic() < deadline:
                time.sleep(0.02)
            if self.is_server(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        if self.owns_tmpdir:
            shutil.rmtree(self.tmpdir, ignore_errors=True)

    def server_pid(self) -> int | None:
        with contextlib.suppress(subprocess.TimeoutExpired, ValueError):
            return int(self.tmux("display-message", "-p", "#{pid}", check=False).strip())
        return None

    def is_server(self, pid: int) -> bool:
        """Whether ``pid`` is still this server (not a process that took its pid since)."""
        return self.name in processes.cmdline(pid)
