"""run_command types one line at the pane's shell prompt (``markers.Markers.line`` writes it)::

     [bash: case $(history 1) in *TOKEN*) history -d -1;; esac;  or  history -s -- 'COMMAND';]
     command printf '%s%s:s\\n' __tcm TOKEN; command eval 'COMMAND';
     command printf '\\n%s%s:e:%s\\n' __tcm TOKEN "$?"; command tmux -S SOCKET wait-for -S tcm-TOKEN

The printed markers (``__tcmTOKEN:s`` and ``__tcmTOKEN:e:STATUS``) never appear in
the typed text, which has a space and a ``%s`` where they have none, so the output
is exactly the rows between them. The command is one quoted word evaluated once:
a syntax error in it makes ``eval`` fail with a status instead of discarding the
whole line (``command eval``: dash aborts the line otherwise; zsh uses ``builtin``),
and a command holding control characters (newlines, tabs) is typed as printf ``%b``
escapes, so no key binding of the shell's line editor ever sees them.

The call sleeps on ``tmux wait-for`` (a process of its own, killed on timeout or
cancellation). The pane's ``%output``, read by the session's output client
(``Server.output_watch``), also ends the wait when the end marker arrives (so the
output is in the pane when it is captured), counts the output's lines (so lines
that scrolled out of the pane's history are counted as left out), and wakes the
wait when the pane may have closed or died. Nothing polls.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from dataclasses import dataclass

import anyio
import anyio.abc

from ...errors import InvalidArgument, ToolError
from ...generated.python.models.run_command import RunCommandInput, RunCommandOutput
from ...seam import Call, Reporter
from ..tmux.errors import NoServer
from ..tmux.objects import capture
from ..tmux.objects.blocked import refusal, type_checked
from ..tmux.objects.rows import PANE_FIELDS, PaneRow
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.shell import settled
from ..tmux.objects.waits import died, server_went, went_away
from ..tmux.policy.limits import effective_timeout
from ..tmux.transport import channels
from ..tmux.transport.control import ControlClient
from ..tmux.transport.formats import format_of, parse_rows
from .arguments import checked_cap, checked_timeout, typeable
from .markers import Markers, OutputCount
from .pane_input import key_commands, typing_check
from .targets import pane_to_type_into

MAX_OUTPUT_BYTES = 1_000_000  # run_command's output, newest kept, whatever max_lines says
END_GRACE = 2.0  # seconds the rest of (signal, end marker, prompt) get once one is in
PROGRESS_EVERY = 1.0

STATE_FIELDS = (
    *PANE_FIELDS,
    "alternate_on",
    "pane_mode",
    "pane_dead_status",
    "pane_dead_signal",
    "pane_input_off",
)
STATE_FORMAT = format_of(STATE_FIELDS)

# The shells run_command knows how to drive, by the name tmux shows for the pane's
# foreground process (a login shell's leading '-' dropped).
POSIX_SHELLS = frozenset(
    {"sh", "dash", "ash", "ksh", "ksh93", "mksh", "pdksh", "oksh", "loksh", "yash", "posh"}
)
BASH_SHELLS = frozenset({"bash", "rbash"})
ZSH_SHELLS = frozenset({"zsh"})


class PaneCommandTools:
    """run_command; ``runs`` holds the panes a call of this process is running a command in."""

    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux
        self.runs: set[tuple[str, str]] = set()

    async def run_command(self, call: Call, params: RunCommandInput) -> RunCommandOutput:
        command = typeable("command", params.command)
        if not command.strip():
            raise InvalidArgument("command", command, "is blank", "Pass the command line to run.")
        timeout = checked_timeout("timeout", 30.0 if params.timeout is None else params.timeout)
        # Clamped to LIBTMUX_MCP_WAIT_MAX_SECONDS, 0 for 0 or less: reported either way.
        limit = effective_timeout(timeout, self.tmux.environ)
        max_lines = checked_cap("max_lines", params.max_lines)
        server, pane_id = await pane_to_type_into(self.tmux, params)
        pane = await settled(
            lambda: pane_state(server, pane_id), lambda row: syntax_of(row) is not None
        )
        if pane is None:
            raise server.pane(pane_id).not_found()
        flavour = shell_of(server, pane)
        key = (server.socket.path, pane_id)
        if key in self.runs:
            raise ToolError(
                f"run_command is already running a command in pane {pane_id} on tmux "
                f"{server.socket}. Wait for that call to return, or use another pane."
            )
        self.runs.add(key)
        try:
            run = CommandRun(self.tmux, server, pane, flavour, limit, call.progress)
            return await run.type_and_collect(
                command, params.suppress_history is not False, max_lines
            )
        finally:
            self.runs.discard(key)


async def pane_state(server: Server, pane_id: str) -> PaneRow | None:
    rows = parse_rows(
        await server.run("display-message", "-p", "-t", pane_id, STATE_FORMAT), STATE_FIELDS
    )
    # display-message does not fail for a missing pane: it expands with no pane.
    return PaneRow(rows[0]) if rows and rows[0]["pane_id"] == pane_id else None


def shell_of(server: Server, pane: PaneRow) -> str:
    """Which shell syntax the pane's prompt takes; refuse a pane not at a shell prompt."""
    where = f"Pane {pane.pane_id} on tmux {server.socket}"
    refused = refusal(server.socket, pane, pane.pane_id, typing_check("run_command"))
    if refused is not None:  # dead, input off, in a mode
        raise refused
    if pane["pane_synchronized"] == "1":
        raise ToolError(
            f"{where} has synchronize-panes on: the command would be typed into every pane "
            "of its window. Turn synchronize-panes off for the window, or use send_keys."
        )
    name = os.path.basename(pane["pane_current_command"].lstrip("-"))
    if pane["alternate_on"] == "1":
        raise ToolError(
            f"{where} shows a full-screen program ({name or 'unknown'!r}, on the alternate "
            "screen), not a shell prompt. Quit it first (look at it with snapshot_pane), or "
            "type into it with send_keys."
        )
    syntax = syntax_of(pane)
    if syntax is not None:
        return syntax
    raise ToolError(
        f"{where} is running {name or 'an unknown program'!r}, not a shell waiting at its "
        "prompt (run_command drives sh, bash, zsh, dash and ksh). Wait for it to finish "
        "(wait_for_text; a shell just started may still be running its startup files), "
        "interrupt it (send_keys with keys 'C-c', enter false), or type into it with "
        "send_keys."
    )


def syntax_of(pane: PaneRow) -> str | None:
    """``bash``, ``zsh`` or ``posix`` for a pane whose shell is at its prompt; else None."""
    if pane["alternate_on"] == "1":
        return None
    name = os.path.basename(pane["pane_current_command"].lstrip("-"))
    if name in BASH_SHELLS:
        return "bash"
    if name in ZSH_SHELLS:
        return "zsh"
    return "posix" if name in POSIX_SHELLS else None


@dataclass
class Collected:
    lines: list[str]
    exit_status: int | None
    lost: int


class CommandRun:
    """One run_command call, from typing the line to reading the output back."""

    def __init__(
        self,
        tmux: Tmux,
        server: Server,
        pane: PaneRow,
        flavour: str,
        limit: float,
        progress: Reporter,
    ) -> None:
        self.tmux = tmux
        self.progress = progress  # the call's progress notifications
        self.server = server
        self.pane = pane
        self.pane_id = pane.pane_id
        self.flavour = flavour
        self.limit = limit
        self.markers = Markers(secrets.token_hex(8))
        self.count = OutputCount(self.pane_id, self.markers)
        self.signalled = False  # the wait-for process ended
        self.watching = True  # the output client is still there
        self.started = self.deadline = self.next_progress = 0.0
        self.elapsed = 0.0

    async def type_and_collect(
        self, command: str, suppress: bool, max_lines: int
    ) -> RunCommandOutput:
        # The shell in the pane runs the server's own tmux binary on its socket, named by
        # absolute paths: the pane's PATH and working directory may differ from ours.
        tmux_bin = shutil.which(self.tmux.tmux_bin, path=self.tmux.environ.get("PATH"))
        line = self.markers.line(
            self.flavour,
            command,
            os.path.abspath(tmux_bin) if tmux_bin else self.tmux.tmux_bin,
            os.path.abspath(self.server.socket.path),
            suppress,
        )
        typing = key_commands(self.pane_id, line, literal=True, enter=True, suppress_history=False)
        start_row = capture.frontier(self.pane)
        async with self.server.output_watch(self.pane) as watch:
            remove = watch.client.add_listener(self.count.on_line)
            try:
                async with self.waiter() as process:
                    self.started = anyio.current_time()
                    self.deadline = self.started + self.limit
                    self.next_progress = self.started + PROGRESS_EVERY
                    await type_checked(
                        self.server, self.pane_id, typing, typing_check("run_command")
                    )
                    outcome = await self.follow(process, watch.client)
            finally:
                remove()
        pane = await self.now() if outcome != "gone" else None
        if pane is None:
            raise await went_away(self.server, self.pane, self.elapsed)
        if outcome == "dead":
            raise died(self.server.socket, pane, self.elapsed)
        collected = await self.collect(pane, start_row, finished=outcome == "finished")
        kept = capture.newest(collected.lines, max_lines)
        sized = capture.newest_within(kept.lines, MAX_OUTPUT_BYTES)
        left_out = collected.lost + kept.dropped + sized.dropped
        return RunCommandOutput(
            pane_id=self.pane_id,
            exit_status=collected.exit_status,
            # A command that ended just as the time ran out still counts as finished.
            timed_out=outcome != "finished" and collected.exit_status is None,
            elapsed_seconds=round(self.elapsed, 3),
            output=sized.lines,
            output_truncated=left_out > 0,
            output_truncated_lines=left_out,
            effective_timeout=self.limit,
        )

    # --- waiting --------------------------------------------------------------------

    async def now(self) -> PaneRow | None:
        """The pane as it is now (None when it is gone); a server gone says so."""
        try:
            return await pane_state(self.server, self.pane_id)
        except NoServer:
            waited = anyio.current_time() - self.started
            raise server_went(self.server.socket, self.pane_id, waited) from None

    def waiter(self) -> contextlib.AbstractAsyncContextManager[anyio.abc.Process]:
        """``tmux wait-for CHANNEL`` running while the block runs; killed if it still is."""
        return channels.waiter(
            self.server.socket, self.tmux.tmux_bin, self.tmux.environ, self.markers.channel
        )

    async def follow(self, process: anyio.abc.Process, client: ControlClient) -> str:
        """``finished``, ``timeout``, ``gone`` or ``dead``, sleeping until something may
        have changed.

        Woken by the wait-for process ending, by the end marker in the pane's output,
        by a notification after which the pane may be gone, or by the clock (the
        progress notification about once a second, and the deadline). An error is
        carried out of the task group as itself, not wrapped in an exception group.
        """
        failed: ToolError | None = None
        async with anyio.create_task_group() as group:

            async def signalled() -> None:
                await process.wait()
                self.signalled = True
                self.count.wake.set()

            async def unwatched() -> None:
                await client.wait_closed()  # its session closed, or the server went away
                self.watching = False
                self.count.maybe_gone = True
                self.count.wake.set()

            group.start_soon(signalled)
            group.start_soon(unwatched)
            try:
                outcome = await self.sleep(process)
                self.elapsed = anyio.current_time() - self.started
                if outcome == "finished":
                    # The rest is a moment away: the end marker says the output is in
                    # the pane, the signal that the channel was used, the prompt that
                    # the shell is back in the foreground.
                    with anyio.move_on_after(END_GRACE):
                        while not (self.signalled and (self.count.prompted or not self.watching)):
                            await self.next_wake()
            except ToolError as exc:
                failed = exc
            finally:
                group.cancel_scope.cancel()
        if failed is not None:
            raise failed
        return outcome

    async def next_wake(self) -> None:
        await self.count.wake.wait()
        self.count.wake = anyio.Event()  # the flags, not the event, say what happened

    async def sleep(self, process: anyio.abc.Process) -> str:
        while True:
            if self.signalled and process.returncode not in (None, 0) and not self.count.ended:
                channels.check_connection(
                    process, self.tmux.environ, f"run_command in pane {self.pane_id}"
                )
                raise ToolError(
                    f"tmux wait-for ended with status {process.returncode} on "
                    f"{self.server.socket}: the tmux server may have stopped. Call "
                    "list_sessions to check it."
                )
            if self.signalled or self.count.ended:
                return "finished"
            if self.count.maybe_gone:
                self.count.maybe_gone = False
                pane = await self.now()
                if pane is None:
                    return "gone"
                if pane["pane_dead"] == "1":
                    return "dead"
            now = anyio.current_time()
            if now >= self.deadline:
                return "timeout"
            if now >= self.next_progress:
                elapsed = now - self.started
                await self.progress(
                    elapsed,
                    self.limit,
                    f"running in pane {self.pane_id}: {elapsed:.0f}s of {self.limit:g}s",
                )
                self.next_progress = now + PROGRESS_EVERY
            with anyio.move_on_after(min(self.deadline, self.next_progress) - now):
                await self.next_wake()

    # --- reading the output back ----------------------------------------------------

    async def collect(self, pane: PaneRow, start_row: int, *, finished: bool) -> Collected:
        """The rows between the markers (after a timeout, from the start marker on). With no
        start marker heard or shown, the shell never ran the line (a shell that flushed its
        input as it started): nothing is output, and the line's echo is not taken for it."""
        if not finished and not self.count.started:
            return Collected([], None, 0)
        history = pane.count("history_size")
        last = pane.count("cursor_y")
        first = max(0, min(start_row, capture.frontier(pane)))
        lines = await self.capture(first - history, last)
        start = self.find_start(lines)
        if start is None and first > 0:
            # History dropped its oldest rows meanwhile: the start moved up, or out.
            lines = await self.capture(None, last)
            start = self.find_start(lines)
        begin = 0 if start is None else start + 1
        end, status = self.find_end(lines, begin)
        body = lines[begin : len(lines) if end is None else end]
        if end is None:
            body = capture.trim_blank_tail(body)
        lost = 0 if start is not None else self.lost(len(body), finished=end is not None)
        if end is not None and body and body[-1] == "":
            body.pop()  # the row the end marker's leading newline closed
        return Collected(body, status, lost)

    async def capture(self, first: int | None, last: int) -> list[str]:
        """Rows ``first..last`` (tmux line numbers; None: the oldest), wrapped rows joined."""
        pane = self.server.pane(self.pane_id)
        lines = await pane.capture_pane("-" if first is None else first, last, join_wrapped=True)
        return [line.rstrip(" ") for line in lines]

    def find_start(self, lines: list[str]) -> int | None:
        """The start marker's row. It may follow other text: keys typed before a starting
        shell printed its prompt are echoed by the terminal, and the prompt comes after."""
        for at in range(len(lines) - 1, -1, -1):
            if lines[at].endswith(self.markers.start):
                return at
        return None

    def find_end(self, lines: list[str], after: int) -> tuple[int | None, int | None]:
        pattern = self.markers.end
        for at in range(after, len(lines)):
            match = pattern.search(lines[at])
            if match:
                return at, int(match.group(1))
        return None, None

    def lost(self, kept: int, *, finished: bool) -> int:
        """Rows printed since the start marker that the pane no longer holds.

        The stream counted line feeds since the start marker: its own, then one per
        output row (the end marker's leading one closes the last). Unfinished, the row
        being written is one more. Without a count, at least one row is known lost.
        """
        if not self.count.started:
            return 1
        rows = self.count.newlines - 1 if finished else self.count.newlines
        return max(1, rows - kept)
