"""How many rows a pane's output moved its cursor down, read from its ``%output`` lines.

A continued read (``capture_since``) finds where it stopped by a fingerprint of the
rows above its cursor. A cursor opened on an empty pane has no such rows, and rows
that repeat can be found in the wrong place; either way rows lost to the history's
limit went unreported. Counting the rows the output itself advanced tells: if the
output moved down W rows since the cursor and the content now ends at row F, at least
W - F of those rows are gone.

Only what can be counted exactly is counted. A line feed (LF, VT, FF) moves one row
down and a cursor-up (``CSI n A``, ``CSI n F``, reverse index) moves back; a line that
wraps adds a row no byte shows, so the count can fall short but never run ahead of
the rows written, and the loss it yields is never more than the real one. Anything
that places the cursor absolutely or changes what a row is (cursor position, scroll
region, the alternate screen, a saved cursor restored, a reset) makes the count
unknowable: it then ``breaks``, and a cursor opened before the break no longer
relies on it.

The payload is counted as tmux escapes it (``\\012`` for LF, ``\\033`` for ESC, a
literal backslash as ``\\134``), so nothing is decoded; an escape sequence split
between two ``%output`` lines is carried to the next.
"""

from __future__ import annotations

import re

# One escape sequence (as tmux writes it in %output), or one line feed.
_TOKEN = re.compile(
    r"\\033\[(?P<params>[0-9;:?<=>]*)(?P<final>[@-~])"  # CSI
    r"|\\033(?P<esc>[^\\\[])"  # ESC and one byte (ESC M, ESC c, ESC 7...)
    r"|\\01[234]"  # LF, VT, FF
)
ESC = "\\033"
CARRY_MOST = 64  # characters of an unfinished escape sequence kept for the next payload
# CSI finals that move the cursor up by their parameter (CUU, CPL).
_UP = frozenset("AF")
# CSI finals that place the cursor or change what a row is: the count stops holding.
_BREAKS = frozenset("HfdrsuT")  # CUP, HVP, VPA, DECSTBM, save/restore, scroll down
# Private modes whose switch changes screens (the alternate screen and its kin).
_SCREENS = frozenset({"47", "1047", "1049"})
# ESC finals: reverse index moves up; a reset, a restored cursor, next line...
_ESC_UP = "M"
_ESC_BREAKS = frozenset("c8")
_ESC_DOWN = frozenset("DE")  # IND, NEL: one row down, as a line feed


def _count(params: str) -> int:
    first = params.split(";", 1)[0]
    return int(first) if first.isdigit() and int(first) > 0 else 1


class RowCount:
    """Rows one pane's output advanced, counted from the moment it was made."""

    def __init__(self) -> None:
        self.rows = 0
        self.breaks = 0  # times the count stopped holding
        self._carry = ""

    def feed(self, escaped: str) -> None:
        """Count one ``%output`` payload, as tmux escaped it."""
        text = self._carry + escaped if self._carry else escaped
        self._carry = ""
        last = text.rfind(ESC)
        if last != -1 and len(text) - last < CARRY_MOST and not _TOKEN.match(text, last):
            self._carry, text = text[last:], text[:last]  # it may end in the next payload
        if "\\0" not in text:
            return
        for token in _TOKEN.finditer(text):
            final = token.group("final")
            if final is not None:
                self._csi(token.group("params"), final)
            elif token.group("esc") is not None:
                self._esc(token.group("esc"))
            else:
                self.rows += 1

    def _csi(self, params: str, final: str) -> None:
        if final in _UP:
            self.rows -= _count(params)
        elif final in _BREAKS or (final in "hl" and params.lstrip("?") in _SCREENS):
            self.breaks += 1
        elif final == "J" and params in ("2", "3"):
            self.breaks += 1  # a cleared screen may scroll into history (scroll-on-clear)

    def _esc(self, final: str) -> None:
        if final == _ESC_UP:
            self.rows -= 1
        elif final in _ESC_DOWN:
            self.rows += 1
        elif final in _ESC_BREAKS:
            self.breaks += 1
