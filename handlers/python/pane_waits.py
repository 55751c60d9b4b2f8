"""Waiting for text to appear in a pane, woken by its output.

Only output written after the call starts counts. At entry the pane's
frontier (the content row its cursor is on) is recorded; from then on the
complete rows below it are read with a continued read (``capture.read_since``,
which follows rows as history scrolls), and the cursor's own row, which may
still be growing (a prompt, a progress bar), is read as it stands. Text the
cursor's row held at entry is not new: only what was added to it is.

A pane on the alternate screen when the wait starts (a full-screen program)
has no rows that only grow: there, any screen row that changed since the last
read is new output. A pane that switches to the alternate screen during the
wait ends it with outcome ``alternate_screen``.

A pane that goes (killed, its program exited, its window or session closed, the
tmux server gone) or dies under ``remain-on-exit`` ends the wait at once with an
error saying which (the output schema has no outcome for it): the watch wakes on
the notifications that follow such a change (see ``transport.events``).

Nothing polls tmux: the wait sleeps until the pane prints (``Server.output_watch``)
or the timeout. The only timer is the one sending a progress notification
about once a second.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Literal

import anyio

from ...errors import InvalidArgument, ToolError
from ...generated.python.models.wait_for_text import WaitForTextInput, WaitForTextOutput
from ...seam import Call, Reporter
from ..tmux.errors import NoServer, NotFound, WatchLost
from ..tmux.objects import capture
from ..tmux.objects.patterns import MATCH_BUDGET, Patterns
from ..tmux.objects.rows import SERVER_FIELDS, PaneRow
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.targets import check_pane_id
from ..tmux.objects.waits import died, server_went, went_away
from ..tmux.policy.limits import effective_timeout
from ..tmux.transport.events import Watch
from ..tmux.transport.formats import format_of, parse_rows
from .targets import selector_of

Outcome = Literal["matched", "any_output", "stopped", "alternate_screen", "timeout"]

DEFAULT_TIMEOUT = 8.0
PROGRESS_EVERY = 1.0  # seconds between progress notifications
TAIL_LINES = 20
TAIL_BYTES = 4096
LINE_CHARS = 1000  # a reported line (the tail's) is cut to this many characters
WATCH_RESTARTS = 3  # a watch whose tmux client ended is started again this many times

STATE_FIELDS = (
    "pane_id",
    "window_id",
    "session_id",
    "pane_pid",
    "pane_height",
    "history_size",
    "history_limit",
    "cursor_y",
    "alternate_on",
    "pane_dead",
    "pane_dead_status",
    *SERVER_FIELDS,
)
"""What a wait reads of its pane on every wake: no more, since tmux spends most of a
read expanding formats (the command and path fields alone cost it more than all these)."""
STATE_FORMAT = format_of(STATE_FIELDS)


class PaneWaitTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def wait_for_text(self, call: Call, params: WaitForTextInput) -> WaitForTextOutput:
        # Everything the call could refuse is checked before tmux is asked anything.
        case = bool(params.match_case)
        patterns = Patterns.build("patterns", params.patterns, bool(params.regex), case)
        stop = Patterns.build("stop", params.stop, bool(params.regex), case)
        timeout = DEFAULT_TIMEOUT if params.timeout is None else params.timeout
        if math.isnan(timeout):
            raise InvalidArgument(
                "timeout", timeout, "is not a number", "Pass the seconds to wait, e.g. 8."
            )
        # A timeout of 0 or less reads the pane once and does not wait; a timeout above
        # LIBTMUX_MCP_WAIT_MAX_SECONDS is clamped to it. Either way it is reported.
        limit = effective_timeout(timeout, self.tmux.environ)
        # `interval` is accepted for compatibility and otherwise ignored: this wait wakes
        # on the pane's own output events, never on a timer, so it never delays a match.
        if params.pane_id is not None:
            check_pane_id(params.pane_id)
        selector = selector_of(params.window_id, params.session_name, params.session_id)

        started = anyio.current_time()
        server = self.tmux.server(params.socket_name)
        if params.pane_id is None:
            pane_id = (await selector.resolve_pane(server, None)).pane_id
        else:
            pane_id = params.pane_id
        wait = Wait(server, pane_id, patterns, stop, started, limit, call.progress)
        await wait.begin()
        end = await wait.run() if limit > 0 else Ended("timeout")
        return wait.output(end)


@dataclass
class Read:
    """What one read of the pane found."""

    pane: PaneRow
    lines: list[str]  # the new text, line by line, in the order it was printed
    printed: bool  # the pane printed something (possibly only blank rows)
    switched: bool = False  # the pane entered the alternate screen


@dataclass
class Ended:
    outcome: Outcome
    index: int | None = None
    lines: list[str] = field(default_factory=list)


class Wait:
    """One wait_for_text call: the pane's state at entry, what it printed since, the verdict."""

    def __init__(
        self,
        server: Server,
        pane_id: str,
        patterns: Patterns,
        stop: Patterns,
        started: float,
        limit: float,
        progress: Reporter,
    ) -> None:
        self.server = server
        self.pane_id = pane_id
        self.progress = progress  # the call's progress notifications
        self.target = server.pane(pane_id)  # what the captures read
        self.patterns = patterns
        self.stop = stop
        self.started = started
        self.limit = limit
        self.deadline = started + limit
        self.next_progress = started + PROGRESS_EVERY
        self.tail: deque[str] = deque(maxlen=TAIL_LINES)  # complete rows, newest last
        self.partial = ""  # the cursor's row as last read
        self.pane: PaneRow | None = None  # the pane as last read
        self.matched_at_entry = False
        self.saw_new_output = False
        self.alternate = False
        # Rows mode (the normal screen at entry).
        self.cursor: capture.Cursor | None = None
        self.entry_row = 0
        self.entry_text = ""
        self.entry_pending = True  # the entry row has not been handed out complete yet
        self.last_partial: tuple[int, str] = (0, "")
        # Screen mode (the alternate screen at entry).
        self.entry_alternate = False
        self.screen: list[str] = []

    # --- reading --------------------------------------------------------------------

    async def state(self) -> PaneRow:
        try:
            lines = await self.server.run("display-message", "-p", "-t", self.pane_id, STATE_FORMAT)
        except NoServer:
            if self.pane is None:
                raise
            raise server_went(self.server.socket, self.pane_id, self.elapsed()) from None
        rows = parse_rows(lines, STATE_FIELDS)
        # display-message does not fail for a missing pane: it expands with no pane.
        if not rows or rows[0]["pane_id"] != self.pane_id:
            if self.pane is None:
                raise NotFound("pane", self.pane_id, socket=self.server.socket, field="pane_id")
            raise await went_away(self.server, self.pane, self.elapsed())
        row = PaneRow(rows[0])
        if self.pane is not None and row.server_tag != self.pane.server_tag:
            # The same pane id on a new run of the server: not the pane waited on.
            raise server_went(self.server.socket, self.pane_id, self.elapsed())
        self.pane = row
        return self.pane

    async def cursor_row(self, pane: PaneRow, row: int) -> str:
        return (await capture.capture_rows(self.target, pane, row, row))[0]

    async def begin(self) -> None:
        """Record where the pane stands; note whether a pattern already matches its screen."""
        pane = await self.state()
        self.alternate = self.entry_alternate = pane["alternate_on"] == "1"
        if self.entry_alternate:
            self.screen = await self.target.capture_pane()
            visible = capture.trim_blank_tail(self.screen)
            self.tail.extend(visible)
        else:
            above = pane.count("cursor_y")  # rows of the screen above the cursor's row
            since = await capture.read_since(self.target, pane, None, max(above, TAIL_LINES))
            self.cursor = since.cursor
            self.entry_row = capture.frontier(pane)
            self.entry_text = self.partial = await self.cursor_row(pane, self.entry_row)
            self.last_partial = (self.entry_row, self.entry_text)
            self.tail.extend(since.lines)
            visible = (since.lines[-above:] if above else []) + [self.entry_text]
        if self.patterns:
            deadline = anyio.current_time() + MATCH_BUDGET
            self.matched_at_entry = any(
                self.patterns.which(line, deadline) is not None for line in visible
            )

    async def read(self) -> Read:
        pane = await self.state()
        self.alternate = pane["alternate_on"] == "1"
        if self.entry_alternate:
            return await self.read_screen(pane)
        if self.alternate:
            self.screen = await self.target.capture_pane()
            return Read(pane, [], True, switched=True)
        assert self.cursor is not None
        history = pane.count("history_limit") + pane.count("pane_height")
        since = await capture.read_since(self.target, pane, self.cursor, max(history, 1))
        self.cursor = since.cursor
        fresh = list(since.lines)
        if self.entry_pending and fresh and not (since.dropped or since.missed or since.restarted):
            fresh[0] = self.after_entry(fresh[0])
        if since.lines or since.missed or since.restarted:
            self.entry_pending = False
        self.tail.extend(since.lines)
        row = capture.frontier(pane)
        text = await self.cursor_row(pane, row)
        self.partial = text
        changed = (row, text) != self.last_partial
        self.last_partial = (row, text)
        if changed:
            new = self.after_entry(text) if self.entry_pending and row == self.entry_row else text
            if new:
                fresh.append(new)
        printed = bool(since.lines or since.missed or since.restarted) or changed
        return Read(pane, fresh, printed)

    def after_entry(self, text: str) -> str:
        """The part of the entry row written after the call started."""
        return text[len(self.entry_text) :] if text.startswith(self.entry_text) else text

    async def read_screen(self, pane: PaneRow) -> Read:
        """On a full-screen program's screen, every row that changed is new."""
        screen = await self.target.capture_pane()
        before = self.screen
        changed = [
            line for at, line in enumerate(screen) if at >= len(before) or before[at] != line
        ]
        changed += [""] * max(0, len(before) - len(screen))
        self.screen = screen
        self.tail.clear()
        self.tail.extend(capture.trim_blank_tail(screen))
        return Read(pane, [line for line in changed if line.strip()], bool(changed))

    # --- deciding -------------------------------------------------------------------

    def outcome_of(self, read: Read) -> Ended | None:
        """Whether this read ends the wait: the earliest line decides, stop before patterns."""
        if read.printed:
            self.saw_new_output = True
        if read.switched:
            return Ended("alternate_screen")
        deadline = anyio.current_time() + MATCH_BUDGET
        checks: tuple[tuple[Patterns, Outcome], ...] = (
            (self.stop, "stopped"),
            (self.patterns, "matched"),
        )
        for at, line in enumerate(read.lines):
            for patterns, outcome in checks:
                index = patterns.which(line, deadline) if patterns else None
                if index is not None:
                    lines = patterns.matching(index, read.lines[at:], deadline)
                    return Ended(outcome, index, lines)
        if not self.patterns and read.printed:
            return Ended("any_output")
        return None

    # --- waiting --------------------------------------------------------------------

    async def run(self) -> Ended:
        """Read, then sleep until the pane prints, until something ends the wait."""
        if self.pane is not None and self.pane["pane_dead"] == "1":
            raise died(self.server.socket, self.pane, None)
        restarts = 0
        while True:
            # After a lost watch, read again: the pane or its server may have gone.
            pane = self.pane if self.pane is not None and not restarts else await self.state()
            try:
                ended = await self.watch_session(pane)
            except WatchLost:
                restarts += 1
                if restarts > WATCH_RESTARTS:
                    raise ToolError(
                        f"The tmux client watching pane {self.pane_id} on {self.server.socket} "
                        f"kept ending ({restarts} times). Check that the tmux server is healthy, "
                        "then call wait_for_text again."
                    ) from None
                continue
            if ended is not None:
                return ended

    async def watch_session(self, pane: PaneRow) -> Ended | None:
        """Wait through the output client of the pane's session; None when the pane moved
        to another session (whose client must be watched instead).

        The watch starts before the first read, so output printed between the entry
        read and the watch is found by that read, and output after it wakes the watch.
        """
        async with self.server.output_watch(pane) as watch:
            while True:
                read = await self.reread()
                ended = self.outcome_of(read)
                if ended is not None:
                    return ended
                if read.pane["pane_dead"] == "1":  # what it printed before dying is judged
                    raise died(self.server.socket, read.pane, self.elapsed())
                if read.pane.session_id != pane.session_id:
                    return None
                if not await self.sleep(watch):
                    # Output that came just before the deadline still counts.
                    return self.outcome_of(await self.reread()) or Ended("timeout")

    async def reread(self) -> Read:
        """``read``, with a pane that vanished between two of its commands named as gone."""
        try:
            return await self.read()
        except NotFound as exc:
            # A capture that found the pane gone names its field; went_away has said more.
            if exc.field is None or self.pane is None:
                raise
            raise await went_away(self.server, self.pane, self.elapsed()) from None

    async def sleep(self, watch: Watch) -> bool:
        """Until the pane prints (True) or the deadline passes (False), reporting progress
        about once a second meanwhile: the only timer here, and it never touches tmux."""
        while True:
            now = anyio.current_time()
            if now >= self.deadline:
                return False
            if now >= self.next_progress:
                await self.report()
                self.next_progress = now + PROGRESS_EVERY
            with anyio.move_on_after(min(self.deadline, self.next_progress) - now):
                await watch.changed()
                return True

    async def report(self) -> None:
        elapsed = self.elapsed()
        await self.progress(
            elapsed,
            self.limit,
            f"waiting on pane {self.pane_id}: {elapsed:.0f}s of {self.limit:g}s",
        )

    def elapsed(self) -> float:
        return anyio.current_time() - self.started

    # --- answering ------------------------------------------------------------------

    def output(self, ended: Ended) -> WaitForTextOutput:
        return WaitForTextOutput(
            found=ended.outcome in ("matched", "any_output"),
            outcome=ended.outcome,
            matched_index=ended.index,
            matched_lines=ended.lines,
            tail=self.bounded_tail(),
            saw_new_output=self.saw_new_output,
            matched_at_entry=self.matched_at_entry,
            alternate_screen=self.alternate,
            pane_id=self.pane_id,
            elapsed_seconds=round(self.elapsed(), 3),
            effective_timeout=self.limit,
        )

    def bounded_tail(self) -> list[str]:
        """The pane's last lines (its cursor's row included), newest kept, within the bounds."""
        if self.alternate and not self.entry_alternate:
            lines = capture.trim_blank_tail(self.screen)
        else:
            lines = list(self.tail)
            if not self.entry_alternate:
                lines.append(self.partial)
            lines = capture.trim_blank_tail(lines)
        kept: list[str] = []
        size = 0
        for line in reversed(lines[-TAIL_LINES:]):
            line = line[:LINE_CHARS]
            size += len(line.encode("utf-8")) + 1
            if size > TAIL_BYTES:
                break
            kept.append(line)
        return kept[::-1]
