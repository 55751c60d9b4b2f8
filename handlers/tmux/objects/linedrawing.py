"""Line drawing in a capture: what a program drew with the terminal's alternate character
set comes back as the characters a person sees, not as ASCII letters.

Why. A program that draws boxes and lines without UTF-8 (curses, dialog, many TUIs on a
terminal tmux tells them is a VT100) switches to the alternate character set (``ESC ( 0``)
and writes ASCII letters that the terminal draws as lines: ``lqqk`` is a box's top edge.
tmux keeps the letters and a flag on each cell, and ``capture-pane`` prints the letters
(tmux#4065), so an agent reading a capture sees ``x`` where a person sees ``│``.

How. ``Pane.capture_pane`` asks for ``capture-pane -e``, which marks a run of such cells
with shift-out and shift-in (``\\016``, ``\\017``) among the SGR codes it adds for colours
and attributes (3.4 adds OSC 8 hyperlinks). ``plain_lines`` drops those codes, draws the
marked runs with tmux's own table of those characters (``tty-acs.c``), and trims the
trailing spaces tmux trims without ``-e`` (with ``-e`` a code can sit between them), so a
line without line drawing is exactly what a plain capture prints. tmux carries the set
from one line to the next (a box's side starts no run of its own), and so does this.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

SHIFT_OUT = "\x0e"
SHIFT_IN = "\x0f"
FLAG = "-e"
"""The ``capture-pane`` flag that marks line drawing (and adds the codes ``plain_lines``
removes)."""

_CODES = re.compile(r"\x1b\[[0-9;:]*m|\x1b\]8;[^\x07\x1b]*(?:\x07|\x1b\\)")
_SHIFTS = re.compile("([\x0e\x0f])")

# tmux's tty-acs.c: the VT100 line-drawing letters and the characters they draw.
ACS = str.maketrans(
    {
        "+": "→",
        ",": "←",
        "-": "↑",
        ".": "↓",
        "0": "█",
        "`": "◆",
        "a": "▒",
        "f": "°",
        "g": "±",
        "h": "░",
        "i": "☃",
        "j": "┘",
        "k": "┐",
        "l": "┌",
        "m": "└",
        "n": "┼",
        "o": "⎺",
        "p": "⎻",
        "q": "─",
        "r": "⎼",
        "s": "⎽",
        "t": "├",
        "u": "┤",
        "v": "┴",
        "w": "┬",
        "x": "│",
        "y": "≤",
        "z": "≥",
        "{": "π",
        "|": "≠",
        "}": "£",
        "~": "·",
    }
)


def plain_lines(lines: Iterable[str]) -> list[str]:
    """The lines of one ``capture-pane -e`` as ``capture-pane`` prints them, with line
    drawing drawn."""
    out: list[str] = []
    drawing = False
    for line in lines:
        if not drawing and SHIFT_OUT not in line:  # nothing to draw: codes at most
            out.append(_CODES.sub("", line).rstrip(" ") if "\x1b" in line else line)
            continue
        pieces: list[str] = []
        for part in _SHIFTS.split(_CODES.sub("", line)):
            if part == SHIFT_OUT:
                drawing = True
            elif part == SHIFT_IN:
                drawing = False
            else:
                pieces.append(part.translate(ACS) if drawing else part)
        out.append("".join(pieces).rstrip(" "))
    return out
