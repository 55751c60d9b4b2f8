"""A pane's output stream as text: what ``%output`` carried, without the terminal's escapes.

Waits that judge only what a pane prints after they start (run_shell_command,
wait_for_text in the rust and swift families) read the stream the session's
output client receives, not the screen. The stream holds what the program wrote
plus the terminal's control sequences; ``plain`` keeps the text a person would
read: escape sequences dropped, ``\\r\\n`` read as a line end, a lone ``\\r``
starting its row over (a progress bar keeps its last state), a backspace taking
back the character before it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from .control import output_event
from .events import MAY_HAVE_GONE, dead_pane

# CSI, OSC (ended by BEL or ST), DCS/SOS/PM/APC strings, charset picks, and two-byte escapes.
_ESCAPE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|[()*+][0-~]|[ -/]*[0-~])?"
)
_CONTROL = re.compile(r"[\x00-\x07\x0b\x0c\x0e-\x1f\x7f]")

# The most stream text any one wait keeps, newest last: older text is cut from the front.
KEEP_BYTES = 256 * 1024


def plain_line(text: str) -> str:
    """One row of stream text (no line feed in it) as it reads on the screen."""
    text = _ESCAPE.sub("", text)
    if "\r" in text:
        text = text.rstrip("\r").rsplit("\r", 1)[-1]
    if "\b" in text:
        kept: list[str] = []
        for char in text:
            if char == "\b":
                if kept:
                    kept.pop()
            else:
                kept.append(char)
        text = "".join(kept)
    return _CONTROL.sub("", text)


def plain(data: bytes) -> str:
    """Stream bytes as text: rows joined by ``\\n`` (see the module's docstring)."""
    text = data.decode("utf-8", "replace")
    return "\n".join(plain_line(row) for row in text.split("\n"))


@dataclass
class PaneStream:
    """The stream of one pane, fed by a control client's notification lines.

    ``on_data`` sees each chunk as it arrives; ``maybe_gone`` is set by any
    notification after which the pane may be gone or dead, for the owner to check.
    """

    pane_id: str
    on_data: Callable[[bytes], None]
    maybe_gone: bool = False
    total: int = 0  # bytes the stream carried

    def on_line(self, line: str) -> None:
        event = output_event(line)
        if event is not None:
            if event[0] == self.pane_id:
                self.total += len(event[1])
                self.on_data(event[1])
        elif line.startswith(MAY_HAVE_GONE) or dead_pane(line) == self.pane_id:
            self.maybe_gone = True


@dataclass
class Lines:
    """Stream bytes split into rows as they come: complete rows, then the row in progress.

    ``text`` keeps the newest ``KEEP_BYTES`` of the plain text seen (``cut`` says
    whether older text was dropped).
    """

    complete: list[str] = field(default_factory=list)  # rows not yet handed out
    partial: bytes = b""
    kept: str = ""
    cut: bool = False

    def feed(self, data: bytes) -> None:
        data = self.partial + data
        rows = data.split(b"\n")
        self.partial = rows.pop()
        for row in rows:
            line = plain_line(row.decode("utf-8", "replace"))
            self.complete.append(line)
            self._keep(line + "\n")

    def take(self) -> list[str]:
        """The complete rows since the last call."""
        rows, self.complete = self.complete, []
        return rows

    def current(self) -> str:
        """The row still being written, as it reads now."""
        return plain_line(self.partial.decode("utf-8", "replace"))

    def text(self) -> str:
        """The plain text seen, newest ``KEEP_BYTES`` (the row in progress included)."""
        whole = self.kept + self.current()
        kept = newest_bytes(whole, KEEP_BYTES)
        self.cut = self.cut or kept != whole
        return kept

    def _keep(self, text: str) -> None:
        self.kept += text
        if len(self.kept) > 2 * KEEP_BYTES:
            self.kept = newest_bytes(self.kept, KEEP_BYTES)
            self.cut = True


def newest_bytes(text: str, limit: int) -> str:
    """The end of ``text`` within ``limit`` UTF-8 bytes, cut at a character boundary."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[-limit:].decode("utf-8", "ignore")
