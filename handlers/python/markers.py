"""The line run_command types, and what it watches for in the pane's output.

``Markers`` writes the line (see ``commands`` for its shape); ``OutputCount``
follows the pane's ``%output`` for the start and end markers, counting the
output's lines between them, and for the prompt that comes back after.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

import anyio

from ..tmux.objects.shell import quoted_command
from ..tmux.transport.control import output_event
from ..tmux.transport.events import MAY_HAVE_GONE, dead_pane


@dataclass(frozen=True)
class Markers:
    """The rows run_command's plumbing prints around the output."""

    token: str

    @property
    def start(self) -> str:
        return f"__tcm{self.token}:s"

    @property
    def end(self) -> re.Pattern[str]:
        return re.compile(rf"__tcm{self.token}:e:(\d+)$")

    @property
    def end_prefix(self) -> str:
        return f"__tcm{self.token}:e:"

    @property
    def channel(self) -> str:
        return f"tcm-{self.token}"

    def line(
        self, flavour: str, command: str, tmux_bin: str, socket_path: str, suppress: bool
    ) -> str:
        """The line typed at the prompt (see the module's docstring).

        History: with ``suppress`` the line starts with a space (bash with
        HISTCONTROL=ignorespace and zsh with HIST_IGNORE_SPACE then never record
        it), and bash's entry for it is deleted if bash recorded it anyway. Without
        ``suppress``, bash's ``history -s`` puts the command itself in place of the
        line's entry (it replaces the entry only when bash recorded one).
        """
        builtin = "builtin" if flavour == "zsh" else "command"
        word = quoted_command(command, builtin)
        parts = []
        if flavour == "bash" and suppress:
            parts.append(
                f"case $(history 1 2>/dev/null) in *{self.token}*) history -d -1 2>/dev/null;; esac"
            )
        elif flavour == "bash":
            parts.append(f"history -s -- {word}")
        parts += [
            f"{builtin} printf '%s%s:s\\n' __tcm {self.token}",
            f"{builtin} eval {word}",
            f"{builtin} printf '\\n%s%s:e:%s\\n' __tcm {self.token} \"$?\"",
            f"command {shlex.quote(tmux_bin)} -S {shlex.quote(socket_path)} "
            f"wait-for -S {self.channel}",
        ]
        return (" " if suppress or flavour == "bash" else "") + "; ".join(parts)


class OutputCount:
    """Follows a pane's ``%output``: the output's line count, the end marker, the prompt.

    The prompt after the end marker says the shell is back in the foreground (the
    ``tmux wait-for -S`` it ran has exited), so the next call finds the pane ready.
    """

    def __init__(self, pane_id: str, markers: Markers) -> None:
        self.pane_id = pane_id
        self.start = markers.start.encode()
        self.end = markers.end_prefix.encode()
        self.started = False
        self.ended = False
        self.prompted = False
        self.newlines = 0  # line feeds after the start marker (its own included)
        self.maybe_gone = False
        self.wake = anyio.Event()
        self._tail = b""
        self._end_line = False  # the end marker's row is complete

    def on_line(self, line: str) -> None:
        if line.startswith(MAY_HAVE_GONE) or dead_pane(line) == self.pane_id:
            self.maybe_gone = True
            self.wake.set()
            return
        event = output_event(line)
        if event is not None and event[0] == self.pane_id and not self.prompted:
            self.feed(event[1])

    def feed(self, data: bytes) -> None:
        if not self.started:
            buffer = self._tail + data
            at = buffer.find(self.start)
            if at < 0:
                self._tail = buffer[-(len(self.start) - 1) :]
                return
            self.started = True
            self._tail = b""
            data = buffer[at + len(self.start) :]
        if not self.ended:
            buffer = self._tail + data
            at = buffer.find(self.end)
            if at < 0:
                self.newlines += data.count(b"\n")
                self._tail = buffer[-(len(self.end) - 1) :]
                return
            self.newlines += data[: max(0, at - len(self._tail))].count(b"\n")
            self.ended = True
            self.wake.set()
            data = buffer[at + len(self.end) :]
        if not self._end_line:
            at = data.find(b"\n")
            if at < 0:
                return
            self._end_line = True
            data = data[at + 1 :]
        if data:
            self.prompted = True
            self.wake.set()
