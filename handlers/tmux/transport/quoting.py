"""Control-mode quoting: what this process writes to a ``tmux -C`` client, and reads back.

A command line is parsed by tmux's command parser, so every argument is written
as a double-quoted string the parser reads back literally: no variable, no home
directory, no comment, no second command. (Whether a command then expands
formats in an argument is that command's business, as it is over a subprocess.)
Octal escapes keep the line printable ASCII. ``%output`` payloads come back with control bytes and ``\\``
octal-escaped; ``unescape_output`` restores the bytes. A tmux client refuses a
command of more than about 16 KB, so a long value goes in ``pieces``.

``command_list`` writes several commands as one string the same parser reads back as
those commands: what ``if-shell`` takes as a branch (it parses the string when the
branch runs, expanding nothing). There, UTF-8 stays as it is, so a branch is no
longer than its text where a command's size is bounded (a tmux process's argv).
"""

from __future__ import annotations

import re
from collections.abc import Sequence


def _escape_byte(byte: int) -> str:
    """One byte inside a double-quoted tmux string.

    ``\\ " $`` are special in double quotes and ``~`` expands at a token's start even
    there (3.3a); octal escapes keep the line printable ASCII, so no newline, tab or
    non-UTF-8 byte ever reaches the control stream raw.
    """
    if chr(byte) in '\\"$~':
        return "\\" + chr(byte)
    if 0x20 <= byte < 0x7F:
        return chr(byte)
    return f"\\{byte:03o}"


CHUNK_BYTES = 4000  # bytes per send-keys or set-buffer argument (a tmux command is ~16 KB at most)

_QUOTE_TABLE = {byte: _escape_byte(byte) for byte in range(1, 256)}


def quote_argument(arg: str) -> str:
    """One argument as a double-quoted tmux string that the parser reads back literally."""
    data = arg.encode("utf-8", "surrogateescape")
    if b"\0" in data:
        raise ValueError("embedded null byte")  # as in argv: tmux strings end at NUL
    return '"' + data.decode("latin-1").translate(_QUOTE_TABLE) + '"'


# In a nested command list, every byte past ASCII stays itself (valid UTF-8 only).
_NESTED_TABLE = {byte: chr(byte) if byte >= 0x80 else _escape_byte(byte) for byte in range(1, 256)}


def _nested_argument(arg: str) -> str:
    """One argument of a ``command_list``: double-quoted, UTF-8 kept, control bytes escaped."""
    try:
        data = arg.encode("utf-8")
    except UnicodeEncodeError:  # not valid UTF-8 (surrogate-escaped bytes): all octal
        return quote_argument(arg)
    if b"\0" in data:
        raise ValueError("embedded null byte")
    quoted = data.decode("latin-1").translate(_NESTED_TABLE)
    return '"' + quoted.encode("latin-1").decode("utf-8") + '"'


def command_list(commands: Sequence[Sequence[str]]) -> str:
    """``commands`` as one string tmux's parser reads back as those commands, each argument
    literally (an ``if-shell`` branch); empty for no command."""
    if any(not args for args in commands):
        raise ValueError("a tmux command needs a name")
    return " ; ".join(" ".join(_nested_argument(arg) for arg in args) for args in commands)


def command_line(args: Sequence[str]) -> bytes:
    """The line written for one command: every argument quoted, one trailing newline."""
    if not args:
        raise ValueError("a tmux command needs a name")
    return (" ".join(quote_argument(arg) for arg in args) + "\n").encode("ascii")


_OCTAL = re.compile(rb"\\([0-7]{3})")


def unescape_output(data: str) -> bytes:
    """The bytes of a ``%output`` payload: tmux writes ``\\NNN`` for control bytes and ``\\``."""
    raw = data.encode("utf-8", "surrogateescape")
    return _OCTAL.sub(lambda match: bytes([int(match.group(1), 8)]), raw)


def pieces(text: str, limit: int = CHUNK_BYTES) -> list[str]:
    """``text`` cut into runs of at most ``limit`` UTF-8 bytes, never inside a character
    (none for empty text)."""
    if text and len(text) * 4 <= limit:  # a character is at most 4 bytes: one run
        return [text]
    found: list[str] = []
    start = size = 0
    for at, char in enumerate(text):
        width = len(char.encode("utf-8"))
        if size + width > limit and at > start:
            found.append(text[start:at])
            start, size = at, 0
        size += width
    if start < len(text):
        found.append(text[start:])
    return found
