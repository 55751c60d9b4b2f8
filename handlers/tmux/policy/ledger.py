"""What this process has done to pane input lately, shared by the tools that type and wait.

Two facts cross tools. A pane running a shell command for ``run_shell_command``
is reserved until that command ends (or the pane does), and other input tools
refuse it meanwhile, so typed text never lands inside a running command. And
lines this process just submitted are remembered for a short while, so a wait
that starts right after typing does not take the echo of its own input for the
output it waits for. One ledger per served tmux server; the profiles build it
once and hand it to the parts that type or wait.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

# How long a submitted line counts as this process's own echo, in seconds.
ECHO_WINDOW = 2.0


@dataclass(slots=True)
class Ledger:
    clock: Callable[[], float] = time.monotonic
    _reserved: dict[str, str] = field(default_factory=dict)
    _submitted: dict[str, list[tuple[float, str]]] = field(default_factory=dict)

    @contextmanager
    def reserve(self, pane_id: str, by: str) -> Iterator[None]:
        """Hold ``pane_id`` for ``by`` (a tool name) while the block runs.

        The caller keeps the block open until the reservation may end: for a
        command that outlives its wait, until the command completes or the pane exits.
        """
        if pane_id in self._reserved:
            raise RuntimeError(f"{pane_id} is already reserved by {self._reserved[pane_id]}")
        self._reserved[pane_id] = by
        try:
            yield
        finally:
            self._reserved.pop(pane_id, None)

    def holder(self, pane_id: str) -> str | None:
        """The tool holding ``pane_id``, or None when no one does."""
        return self._reserved.get(pane_id)

    def submitted(self, pane_id: str, lines: list[str]) -> None:
        """Record lines just typed into ``pane_id`` and submitted with Enter."""
        now = self.clock()
        kept = [entry for entry in self._submitted.get(pane_id, ()) if now - entry[0] < ECHO_WINDOW]
        kept.extend((now, line) for line in lines if line)
        self._submitted[pane_id] = kept

    def recent(self, pane_id: str) -> list[str]:
        """Lines submitted to ``pane_id`` within the last ``ECHO_WINDOW`` seconds, oldest first."""
        now = self.clock()
        return [line for at, line in self._submitted.get(pane_id, ()) if now - at < ECHO_WINDOW]
