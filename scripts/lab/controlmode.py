"""A synchronous tmux control-mode client for the lab and the bench: one line per command
written, its reply block read back, nothing else in between (no event loop, no parsing
beyond the block). The server's own control transport (``transport.control``) is async
and does far more; this is the smallest client that can time or read tmux alone.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path


class ControlMode:
    """A tmux control-mode client (``argv`` runs ``tmux -C attach-session ...``), opened at
    its first command and again after tmux went away.

    Replies come in ``%begin``/``%end`` (or ``%error``) blocks, one per command, in
    order; notifications between blocks are skipped.
    """

    def __init__(
        self, argv: Sequence[str], env: Mapping[str, str], cwd: Path | None = None
    ) -> None:
        self.argv = list(argv)
        self.env = dict(env)
        self.cwd = cwd
        self.process: subprocess.Popen[bytes] | None = None
        self.buffer = b""

    def _open(self) -> bool:
        self.close()
        self.process = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=self.env,
            cwd=self.cwd,
        )
        self.buffer = b""
        return self._block() is not None  # the reply to the attach itself

    def run(self, lines: list[str]) -> list[list[str]] | None:
        """One block of output lines per command line (an ``%error`` block's lines start
        with ``!``), or None when tmux is gone."""
        if (self.process is None or self.process.poll() is not None) and not self._open():
            return None
        assert self.process is not None and self.process.stdin is not None
        try:
            self.process.stdin.write(("\n".join(lines) + "\n").encode())
            self.process.stdin.flush()
        except OSError:
            self.close()
            return None
        blocks: list[list[str]] = []
        for _ in lines:
            block = self._block()
            if block is None:
                self.close()
                return None
            blocks.append(block)
        return blocks

    def _block(self) -> list[str] | None:
        while True:
            line = self._readline()
            if line is None:
                return None
            if line.startswith("%begin "):
                break
        tag = line.split(" ")[1:3]
        out: list[str] = []
        while True:
            line = self._readline()
            if line is None:
                return None
            words = line.split(" ")
            if words[0] in ("%end", "%error") and words[1:3] == tag:
                return out if words[0] == "%end" else [f"!{item}" for item in out]
            out.append(line)

    def _readline(self, timeout: float = 10.0) -> str | None:
        assert self.process is not None and self.process.stdout is not None
        fd = self.process.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode("utf-8", "replace")

    def close(self) -> None:
        if self.process is not None:
            if self.process.poll() is None:
                self.process.kill()
            self.process.wait()
            for stream in (self.process.stdin, self.process.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):  # a flush into a pipe tmux closed
                        stream.close()
            self.process = None
