"""Reading what a pane shows: bounded captures, and reads that continue from a cursor.

Rows are counted in content coordinates: history rows first (0 is the oldest
kept), then the screen. Everything above the cursor's row is complete output;
the cursor's own row may still be growing (a prompt, a progress bar), so a
continued read hands it out only once the cursor has moved past it.

A cursor finds its place again by a fingerprint of the rows above it, and carries a
reading of the pane's row counter (``live.Counter``: the rows its ``%output`` advanced).
The fingerprint says where the new rows start; the counter says how many rows were
written since, so rows lost to the history's limit are reported even when there was no
fingerprint to lose (a cursor opened on an empty pane) or it matched rows that repeat.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio

from ....errors import InvalidArgument
from ..errors import CommandFailed
from ..transport.formats import SEP
from . import linedrawing
from .live import Stamp
from .pane import Pane
from .refs import Refs
from .rows import PaneRow

if TYPE_CHECKING:
    from .server import Server

DEFAULT_MAX_LINES = 200
ANCHOR_LINES = 3


@dataclass(frozen=True)
class Capture:
    lines: list[str]
    dropped: int


def newest(lines: list[str], max_lines: int) -> Capture:
    """Keep the newest ``max_lines``; say how many older ones were left out."""
    if len(lines) <= max_lines:
        return Capture(lines, 0)
    return Capture(lines[-max_lines:], len(lines) - max_lines)


def trim_blank_tail(lines: list[str]) -> list[str]:
    """The empty rows below the last output are screen, not content."""
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    return lines[:end]


async def capture_rows(pane: Pane, row: PaneRow, first: int, last: int) -> list[str]:
    """Rows ``first..last`` (content coordinates, inclusive) of ``pane`` (``row``: as last read)."""
    if last < first:
        return []
    history = row.count("history_size")
    lines = await pane.capture_pane(first - history, last - history)
    wanted = last - first + 1
    return (lines + [""] * wanted)[:wanted]


def frontier(pane: PaneRow) -> int:
    """The content row the cursor is on: every row above it is complete."""
    return pane.count("history_size") + pane.count("cursor_y")


def weak(anchor: list[str]) -> bool:
    """Whether a cursor's anchor cannot find its place again: no rows above the cursor
    (an empty pane), or only blank ones, which are found anywhere. Only such a cursor
    has the pane's rows counted (``live.Counter``): that holds an output client open."""
    return not any(line.strip() for line in anchor)


async def _stamp(pane: Pane, row: PaneRow, anchor: list[str]) -> Stamp | None:
    """The row counter's reading for a cursor with a weak anchor (counting starts if need
    be); a cursor with a strong one lets the pane's counter go."""
    if weak(anchor):
        return await pane.server.live.stamp(row)
    pane.server.live.stop_counting_pane(row.pane_id)
    return None


def _fingerprint(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Cursor:
    """Where a continued read stopped, in one pane of one server run."""

    pane_id: str
    server_tag: str
    pane_pid: str
    row: int
    anchor: str  # fingerprint of the complete rows just above ``row``
    anchor_len: int
    stamp: Stamp | None = None  # the pane's row counter, read after ``row`` was

    def to_json(self) -> bytes:
        fields: dict[str, object] = {
            "v": 1,
            "pane": self.pane_id,
            "server": self.server_tag,
            "pid": self.pane_pid,
            "row": self.row,
            "anchor": self.anchor,
            "n": self.anchor_len,
        }
        if self.stamp is not None:
            fields["c"] = [self.stamp.counter, self.stamp.breaks, self.stamp.rows]
        return json.dumps(fields, separators=(",", ":")).encode()

    @classmethod
    def from_json(cls, data: bytes) -> Cursor | None:
        try:
            raw = json.loads(data)
            if raw.get("v") != 1:
                return None
            counted = raw.get("c")
            stamp = Stamp(*(int(value) for value in counted)) if counted is not None else None
            return cls(
                str(raw["pane"]),
                str(raw["server"]),
                str(raw["pid"]),
                int(raw["row"]),
                str(raw["anchor"]),
                int(raw["n"]),
                stamp,
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            return None


def seal_cursor(refs: Refs, cursor: Cursor) -> str:
    return refs.seal(cursor.to_json())


def open_cursor(refs: Refs, token: str, pane_id: str | None, field: str = "cursor") -> Cursor:
    """Decode a cursor from this process, for this pane (any pane when None); refuse
    anything else."""
    payload = refs.unseal(token)
    cursor = Cursor.from_json(payload) if payload is not None else None
    if cursor is None:
        raise InvalidArgument(
            field,
            token,
            "is not a cursor this server process issued (cursors do not survive a restart)",
            "Call again without a cursor to start reading afresh.",
        )
    if pane_id is not None and cursor.pane_id != pane_id:
        raise InvalidArgument(
            field,
            token,
            f"belongs to pane {cursor.pane_id}, not {pane_id}",
            f"Pass the cursor returned for {pane_id}, or no cursor to start afresh.",
        )
    return cursor


@dataclass(frozen=True)
class Since:
    """The rows written since a cursor, and the cursor to continue from."""

    lines: list[str]
    dropped: int
    missed: int
    restarted: bool
    cursor: Cursor


class Rows:
    """A captured span of rows, addressed by content row."""

    def __init__(self, first: int, lines: list[str]) -> None:
        self.first = first
        self.lines = lines

    def span(self, start: int, stop: int) -> list[str]:
        return self.lines[max(0, start - self.first) : max(0, stop - self.first)]


async def _rows(pane: Pane, row: PaneRow, first: int, stop: int) -> Rows:
    return Rows(first, await capture_rows(pane, row, first, stop - 1))


async def read_since(
    pane: Pane, row: PaneRow, cursor: Cursor | None, max_lines: int, *, count: bool = False
) -> Since:
    """Complete rows of ``pane`` (``row``: as last read) after ``cursor`` (all of them
    without one), newest ``max_lines`` kept.

    The usual case is one capture from the cursor's anchor to the frontier;
    a long gap is read as two short spans instead of everything in between.
    When the pane's row counter has held since the cursor, the pane is read again
    after the counter (so the count never runs ahead of the rows read), and rows
    written since that the content no longer holds are ``missed``. ``count``: the new
    cursor is handed to a client, so the pane's rows are counted from now on
    (``live.Counter``); a cursor kept inside one call needs no counter.
    """
    restarted = cursor is not None and (
        cursor.server_tag != row.server_tag or cursor.pane_pid != row["pane_pid"]
    )
    written = None
    if cursor is not None and not restarted:
        written = pane.server.live.rows_since(cursor.stamp, row.pane_id)
        if written is not None:
            row = await pane.row(tuple(row.raw))
    end = frontier(row)
    tail = max(max_lines, ANCHOR_LINES)
    start, missed = 0, 0
    lost = max(0, written - end) if written is not None else 0
    if lost:  # more rows were written since the cursor than the content holds now
        missed = lost
        read = await _rows(pane, row, max(0, end - tail), end)
    elif cursor is not None and not restarted and cursor.row <= end:
        first = cursor.row - cursor.anchor_len
        if end - first <= tail + 2 * ANCHOR_LINES:
            read = await _rows(pane, row, first, end)
            anchored = _fingerprint(read.span(first, cursor.row)) == cursor.anchor
        else:
            head = await _rows(pane, row, first, cursor.row)
            anchored = _fingerprint(head.lines) == cursor.anchor
            read = await _rows(pane, row, end - tail, end)
        if anchored:
            start = cursor.row
        else:
            start, missed = await _locate(pane, row, cursor, end)
            read = await _rows(pane, row, max(start, end - tail), end)
    elif cursor is not None and not restarted:
        start, missed = await _locate(pane, row, cursor, end)
        read = await _rows(pane, row, max(start, end - tail), end)
    else:
        read = await _rows(pane, row, max(0, end - tail), end)
    fresh = read.span(max(start, end - max_lines), end)
    anchor = read.span(end - ANCHOR_LINES, end)
    stamp = await _stamp(pane, row, anchor) if count else None
    return Since(
        fresh,
        max(0, end - start - max_lines),
        missed,
        restarted,
        Cursor(
            row.pane_id,
            row.server_tag,
            row["pane_pid"],
            end,
            _fingerprint(anchor),
            len(anchor),
            stamp,
        ),
    )


async def _locate(pane: Pane, row: PaneRow, cursor: Cursor, end: int) -> tuple[int, int]:
    """Where the cursor's row is now, and how many rows were lost before it could be read.

    Rows only move up (history dropping its oldest rows), so the cursor's row
    is found by its anchor at or above where it was. When the anchor is gone
    the old position scrolled out of history (or history was cleared): every
    row kept is new, and at least one row is counted as missed.
    """
    if cursor.anchor_len == 0:
        return 0, 0
    kept = await capture_rows(pane, row, 0, max(0, min(cursor.row, end) - 1))
    for candidate in range(len(kept), cursor.anchor_len - 1, -1):
        if _fingerprint(kept[candidate - cursor.anchor_len : candidate]) == cursor.anchor:
            return candidate, 0
    return 0, 1


def newest_within(lines: list[str], max_bytes: int) -> Capture:
    """Keep the newest lines whose text (UTF-8, newlines not counted) fits in ``max_bytes``."""
    size, keep = 0, 0
    for line in reversed(lines):
        size += len(line.encode("utf-8"))
        if size > max_bytes:
            break
        keep += 1
    return Capture(lines[len(lines) - keep :], len(lines) - keep)


def captured_range(
    start: int | None, end: int | None, history: int, height: int
) -> tuple[int, int]:
    """The tmux line numbers ``capture-pane -S start -E end`` covers, first and last.

    tmux clamps each end to the history and screen it has (a start before the
    oldest history line starts at the oldest, a line past the screen is its
    last row) and swaps them when the end comes before the start.
    """

    def row(line: int | None, default: int) -> int:
        if line is None:
            return default
        at = 0 if line < 0 and -line > history else history + line
        return min(at, history + height - 1)

    top, bottom = row(start, history), row(end, history + height - 1)
    return min(top, bottom) - history, max(top, bottom) - history


@dataclass(frozen=True)
class Numbered:
    """Captured lines and the tmux line number of the first (0 = top of the screen)."""

    first: int
    lines: list[str]


CAPTURE_PIPELINES = 8
_SIZE_FORMAT = SEP.join(("#{pane_id}", "#{history_size}", "#{pane_height}"))


async def capture_numbered(
    server: Server, pane_ids: list[str], start: int | None = None, end: int | None = None
) -> dict[str, Numbered]:
    """Lines ``start..end`` of many panes, numbered; a pane gone since it was listed is left out.

    Each capture is pipelined right behind a read of the pane's history size,
    so the numbers hold even while the pane prints. The panes go in a few
    pipelines side by side: one round trip each over a control client, and a
    bounded number of tmux processes at a time over subprocesses.
    """
    found: dict[str, Numbered] = {}
    size = max(1, -(-len(pane_ids) // CAPTURE_PIPELINES))

    async def chunk(ids: list[str]) -> None:
        found.update(await _capture_chunk(server, ids, start, end))

    async with anyio.create_task_group() as group:
        for at in range(0, len(pane_ids), size):
            group.start_soon(chunk, pane_ids[at : at + size])
    return {pane_id: found[pane_id] for pane_id in pane_ids if pane_id in found}


async def _capture_chunk(
    server: Server, pane_ids: list[str], start: int | None, end: int | None
) -> dict[str, Numbered]:
    commands: list[list[str]] = []
    for pane_id in pane_ids:
        commands.append(["display-message", "-p", "-t", pane_id, _SIZE_FORMAT])
        commands.append(_capture_args(pane_id, start, end))
    try:
        replies = await server.run_many(*commands)
    except CommandFailed as exc:
        if "can't find" not in exc.stderr:
            raise
        replies = []
        for size, capture in zip(commands[::2], commands[1::2], strict=True):
            try:
                replies += await server.run_many(size, capture)
            except CommandFailed as one:
                if "can't find" not in one.stderr:
                    raise
                replies += [[], []]
    found: dict[str, Numbered] = {}
    for pane_id, size_reply, lines in zip(pane_ids, replies[::2], replies[1::2], strict=True):
        fields = size_reply[0].split(SEP) if size_reply else []
        if len(fields) != 3 or fields[0] != pane_id:
            continue
        first, _ = captured_range(start, end, int(fields[1] or 0), int(fields[2] or 0))
        found[pane_id] = Numbered(first, linedrawing.plain_lines(lines))
    return found


def _capture_args(pane_id: str, start: int | None, end: int | None) -> list[str]:
    args = ["capture-pane", "-p", linedrawing.FLAG, "-t", pane_id]
    if start is not None:
        args += ["-S", str(start)]
    if end is not None:
        args += ["-E", str(end)]
    return args


async def read_screen(pane: Pane, row: PaneRow, *, count: bool = False) -> tuple[list[str], Cursor]:
    """The visible screen of ``pane`` (``row``: as last read; blank rows under the output
    left out), and a cursor on the cursor's row: the screen shows that row as it is now,
    a continued read hands it out again once it is complete. ``count`` as ``read_since``."""
    history = row.count("history_size")
    bottom = history + max(row.count("pane_height"), 1)
    end = frontier(row)
    first = max(0, min(end - ANCHOR_LINES, history))
    read = await _rows(pane, row, first, bottom)
    anchor = read.span(end - ANCHOR_LINES, end)
    stamp = await _stamp(pane, row, anchor) if count else None
    cursor = Cursor(
        row.pane_id, row.server_tag, row["pane_pid"], end, _fingerprint(anchor), len(anchor), stamp
    )
    return trim_blank_tail(read.span(history, bottom)), cursor
