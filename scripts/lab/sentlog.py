"""Reading back what servers under test sent to tmux, from the log ``tmux-logged`` writes.

``tmux-logged`` (next to this module) appends each tmux invocation's argv to
``<log>/<pid>.argv`` and each line a control client (or a ``source-file -``) was sent to
``<log>/<pid>.control``;
a ``Mark`` is the size of every log file at one moment, and ``sent_since`` parses what
was appended after it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

LOGGED_TMUX = Path(__file__).resolve().with_name("tmux-logged")


@dataclass(frozen=True)
class Sent:
    """One thing a server under test sent toward tmux.

    ``argv``: a tmux process it ran (``words`` is its argv after the binary);
    ``control``: one line it wrote to a control client or to ``source-file -`` (``words`` is that command's
    arguments, read back from tmux's quoting).
    """

    pid: int
    kind: Literal["argv", "control"]
    words: tuple[str, ...]

    @property
    def command(self) -> str:
        """The tmux command's name (``-V`` for a version query)."""
        if self.kind == "control":
            return self.words[0] if self.words else ""
        flags, rest = split_options(self.words)
        return rest[0] if rest else ("-V" if "V" in flags else "")

    @property
    def arguments(self) -> tuple[str, ...]:
        """The command's words from its name on (a process's argv without tmux's own flags)."""
        if self.kind == "control":
            return self.words
        return split_options(self.words)[1]

    @property
    def commands(self) -> list[tuple[str, ...]]:
        """The commands this runs or may run: itself, and for a guard (``if-shell``) the
        commands of each of its branches, which tmux parses when one runs."""
        arguments = self.arguments
        if not arguments or arguments[0] not in ("if-shell", "if"):
            return [arguments]
        branches = [word for word in arguments[1:] if word.startswith('"')]
        return [arguments, *(command for branch in branches for command in nested(branch))]

    @property
    def reaches_a_server(self) -> bool:
        """False only for ``tmux -V``: it prints the binary's version and connects to nothing."""
        return self.kind == "control" or "V" not in split_options(self.words)[0]

    def __str__(self) -> str:
        return f"{self.kind} {self.pid}: {' '.join(self.words)}"


_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"(?: |$)')
_ESCAPE = re.compile(r"\\([0-7]{3}|.)")


def control_words(line: str) -> tuple[str, ...]:
    """The arguments of one control-client line as the server quotes them (every argument
    in double quotes, ``\\`` escapes, octal for other bytes); the bare line otherwise."""
    words: list[str] = []
    at = 0
    while at < len(line):
        found = _QUOTED.match(line, at)
        if found is None:
            return (line,)
        raw = _ESCAPE.sub(
            lambda m: chr(int(m[1], 8)) if len(m[1]) == 3 else m[1], found[1]
        )  # one latin-1 character per byte, decoded below
        words.append(raw.encode("latin-1").decode("utf-8", "surrogateescape"))
        at = found.end()
    return tuple(words)


_WORD = re.compile(r'"((?:[^"\\]|\\.)*)"|(;)')


def nested(text: str) -> list[tuple[str, ...]]:
    """The commands of a command list as ``quoting.command_list`` writes it (an ``if-shell``
    branch): double-quoted words, UTF-8 as it is, ``\\`` escapes, commands split by ``;``."""
    commands: list[tuple[str, ...]] = []
    words: list[str] = []
    for found in _WORD.finditer(text):
        if found[2]:
            commands.append(tuple(words))
            words = []
            continue
        data = b""
        for part in re.finditer(r"\\([0-7]{3}|.)|[^\\]", found[1], re.S):
            escaped = part[1]
            if escaped is None:
                data += part[0].encode("utf-8", "surrogateescape")
            elif len(escaped) == 3:
                data += bytes([int(escaped, 8)])
            else:
                data += escaped.encode("utf-8", "surrogateescape")
        words.append(data.decode("utf-8", "surrogateescape"))
    if words:
        commands.append(tuple(words))
    return commands


def split_options(argv: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """tmux's own flag letters in ``argv`` (values left out), and the words after them."""
    letters = ""
    at = 0
    while at < len(argv):
        word = argv[at]
        if not word.startswith("-") or word == "-":
            break
        at += 1
        if word == "--":
            break
        for place, letter in enumerate(word[1:], start=1):
            letters += letter
            if letter in "cfLST":  # takes a value: the rest of the word, or the next word
                if place == len(word) - 1:
                    at += 1
                break
    return letters, argv[at:]


@dataclass(frozen=True)
class Mark:
    """A point in the log of what was sent: the size of each log file then."""

    sizes: tuple[tuple[str, int], ...]


def argv_records(data: bytes) -> list[tuple[str, ...]]:
    """``tmux-logged``'s records: NUL-terminated fields, the argument count then the arguments."""
    fields = [field.decode("utf-8", "surrogateescape") for field in data.split(b"\0")[:-1]]
    records: list[tuple[str, ...]] = []
    while fields:
        if not fields[0].isdigit():  # a mark taken mid-record: keep the rest, unparsed
            return [*records, tuple(fields)]
        count = int(fields[0])
        records.append(tuple(fields[1 : 1 + count]))
        del fields[: 1 + count]
    return records


def mark(log: Path) -> Mark:
    """Now, in the log directory ``log``: read back with ``sent_since``."""
    return Mark(tuple((path.name, path.stat().st_size) for path in _log_files(log)))


def sent_since(log: Path, mark: Mark) -> list[Sent]:
    """Every tmux invocation and control-client line logged in ``log`` after ``mark``."""
    before = dict(mark.sizes)
    found: list[Sent] = []
    for path in _log_files(log):
        pid_text, _, kind = path.name.partition(".")
        with path.open("rb") as file:
            file.seek(before.get(path.name, 0))
            data = file.read()
        pid = int(pid_text)
        if kind == "argv":
            found.extend(Sent(pid, "argv", argv) for argv in argv_records(data))
        else:
            found.extend(
                Sent(pid, "control", control_words(line))
                for line in data.decode("latin-1").splitlines()
                if line
            )
    return found


def _log_files(log: Path) -> list[Path]:
    """The log files, oldest write first. Two invocations within one tick of the file
    system's clock share a modification time: the earlier one started first, with the lower
    pid (pids count up, short of their wrap)."""
    return sorted(log.iterdir(), key=lambda path: (path.stat().st_mtime_ns, _pid(path)))


def _pid(path: Path) -> int:
    pid = path.name.partition(".")[0]
    return int(pid) if pid.isdigit() else 0
