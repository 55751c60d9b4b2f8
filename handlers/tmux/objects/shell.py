"""Running one command line at a pane's shell prompt, ended by markers in the pane's stream.

The line typed at the prompt (``typed_line``) is, for a command ``CMD``::

     [bash: history fix-up;] printf '%s%s:s\\n' __tcm TOKEN;
     ( trap : INT QUIT; ( eval 'CMD' ); printf '\\n%s%s:e:%s\\n' __tcm TOKEN "$?" )

The command runs in a subshell of its own, so ``cd``, ``export`` or ``exit`` in it
leave the interactive shell as it was, and a syntax error is a non-zero status.
The outer subshell catches INT and QUIT (a caught signal is reset in the inner
one), so C-c ends the command and still prints the end marker with its status.
The printed markers (``__tcmTOKEN:s``, ``__tcmTOKEN:e:STATUS``) never appear in the
typed text (a space and a ``%s`` stand between their parts there), so the output
is exactly the stream between them, read from the session's output client as
``%output`` arrives: nothing polls, and the prompt that follows is left out.

A run outlives its call: when the call's time runs out (or the call is
cancelled) only the wait ends; the run keeps the pane reserved in the ledger and
keeps reading until the end marker arrives or the pane goes.

Before the line is typed, and again right before it, the pane passes the input
checks every typing tool passes (``objects.input``), and it must be the line's only
recipient: output read back from one pane says nothing of the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import secrets
import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

import anyio

from ....errors import InvalidArgument, ToolError
from ..errors import NoServer, WatchLost
from ..transport.events import Watch
from ..transport.stream import KEEP_BYTES, PaneStream, plain
from .input import PaneInput, Typing
from .rows import FOLLOWED_FIELDS, PaneRow
from .server import Server

# The shells whose prompt takes the typed line, by the name tmux shows for the pane's
# foreground process (a login shell's leading '-' dropped).
POSIX_SHELLS = frozenset({"sh", "ash", "dash", "ksh", "ksh93", "mksh", "pdksh"})
SHELLS = POSIX_SHELLS | {"bash", "zsh"}
# However short the call's time, a shell at its prompt gets this long to print the start
# marker before the run is judged ``no_shell``.
START_GRACE = 2.0
WATCH_RESTARTS = 3

Outcome = Literal["completed", "deadline", "pane_closed", "no_shell"]

# Characters a line editor could take as a key (Enter, completion, a binding): a
# command holding any is typed as printf %b escapes, which then also escape the
# backslash and '!' (history expansion can reach into the double quotes around it).
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_ESCAPED = re.compile(r"[\x00-\x1f\x7f!\\]")


def quoted_command(command: str, builtin: str = "command") -> str:
    """The command as one shell word that evaluates back to it exactly.

    Plain text goes in single quotes. Text with control characters goes as printf
    ``%b`` escapes, so the typed line is printable: a newline or a tab typed at a
    prompt would be Enter or completion, not part of the word.
    """
    if not _CONTROL.search(command):
        return shlex.quote(command)
    escaped = _ESCAPED.sub(lambda match: f"\\0{ord(match.group()):03o}", command)
    return f"\"$({builtin} printf '%b' {shlex.quote(escaped)})\""


def shell_name(command: str) -> str:
    return os.path.basename(command.lstrip("-"))


STARTING = 1.0  # seconds a new pane's program gets to replace tmux's forked copy
ENDING = 0.5  # seconds a foreground job that is not a shell gets to give the prompt back
SETTLING_STEP = 0.02


async def settled(
    read: Callable[[], Awaitable[PaneRow | None]], at_prompt: Callable[[PaneRow], bool]
) -> PaneRow | None:
    """The pane's state (``read``) once it has settled at a prompt, or after a short while.

    Two moments pass for a pane that is not at a prompt yet. A pane just made runs a
    copy of tmux itself until that copy becomes its program (``exec``): read again for
    up to ``STARTING`` seconds. And a job that just ended holds the terminal until the
    shell reaps it and takes the terminal back; its last output, even a run's end marker,
    can come first, and meanwhile tmux may name the pane's start command (the job's
    name is gone with it): read again for up to ``ENDING`` seconds while the pane is
    alive and not ``at_prompt``.
    """
    began = anyio.current_time()
    while True:
        pane = await read()
        if pane is None or pane["pane_dead"] == "1" or at_prompt(pane):
            return pane
        patience = STARTING if shell_name(pane["pane_current_command"]) == "tmux" else ENDING
        if anyio.current_time() - began >= patience:
            return pane
        await anyio.sleep(SETTLING_STEP)


def flavour_of(pane: PaneRow) -> str | None:
    """``bash``, ``zsh`` or ``posix`` for a pane at one of ``SHELLS``; else None."""
    if pane["alternate_on"] == "1":
        return None
    name = shell_name(pane["pane_current_command"])
    if name not in SHELLS:
        return None
    return name if name in ("bash", "zsh") else "posix"


def typed_line(flavour: str, token: str, command: str, suppress: bool) -> str:
    """The line typed at the prompt (see the module's docstring).

    History: with ``suppress`` the line starts with a space (bash with
    HISTCONTROL=ignorespace and zsh with HIST_IGNORE_SPACE then never record it),
    and bash's entry for it is deleted if bash recorded it anyway. Without
    ``suppress``, bash's ``history -s`` puts the command itself in place of the
    line's entry, so the markers never reach the history.
    """
    builtin = "builtin" if flavour == "zsh" else "command"
    word = quoted_command(command, builtin)
    parts = []
    if flavour == "bash" and suppress:
        parts.append(
            f"case $(history 1 2>/dev/null) in *{token}*) history -d -1 2>/dev/null;; esac"
        )
    elif flavour == "bash":
        parts.append(f"history -s -- {word}")
    parts.append(f"{builtin} printf '%s%s:s\\n' __tcm {token}")
    parts.append(
        f"( trap : INT QUIT; ( {builtin} eval {word} ); "
        f"{builtin} printf '\\n%s%s:e:%s\\n' __tcm {token} \"$?\" )"
    )
    return (" " if suppress or flavour == "bash" else "") + "; ".join(parts)


@dataclass
class Markers:
    """Finds the start and end markers in the pane's stream and keeps what lies between."""

    token: str
    started: bool = False
    ended: bool = False
    exit_status: int | None = None
    body: bytearray = field(default_factory=bytearray)
    dropped: int = 0  # body bytes cut from the front
    _skip_row: bool = False
    _scanned: int = 0

    @property
    def start(self) -> bytes:
        return f"__tcm{self.token}:s".encode()

    @property
    def end(self) -> re.Pattern[bytes]:
        return re.compile(rb"__tcm" + self.token.encode() + rb":e:(\d+)\r?\n")

    def feed(self, data: bytes) -> None:
        if self.ended:
            return
        self.body += data
        if not self.started:
            at = self.body.find(self.start)
            if at < 0:
                del self.body[: max(0, len(self.body) - len(self.start))]
                return
            del self.body[: at + len(self.start)]
            self.started = self._skip_row = True
        if self._skip_row:  # the rest of the start marker's row
            at = self.body.find(b"\n")
            if at < 0:
                self.body.clear()
                return
            del self.body[: at + 1]
            self._skip_row = False
            self._scanned = 0
        match = self.end.search(self.body, max(0, self._scanned - 64))
        if match is None:
            self._scanned = len(self.body)
            if len(self.body) > 2 * KEEP_BYTES:
                cut = len(self.body) - KEEP_BYTES
                del self.body[:cut]
                self.dropped += cut
                self._scanned -= cut
            return
        status = int(match.group(1))
        del self.body[match.start() :]
        # The newline printed before the end marker closes the output's last row.
        for closing in (b"\r\n", b"\n"):
            if self.body.endswith(closing):
                del self.body[-len(closing) :]
                break
        self.exit_status = status
        self.ended = True

    def output(self) -> tuple[str, int, bool]:
        """The output as plain text (newest ``KEEP_BYTES``), the stream bytes it took,
        and whether older output was cut."""
        if not self.started:  # what came before the start marker is no output of the command
            return "", 0, False
        data = bytes(self.body)
        cut = self.dropped > 0 or len(data) > KEEP_BYTES
        if len(data) > KEEP_BYTES:
            data = data[-KEEP_BYTES:]
        return plain(data).replace("\r", ""), self.dropped + len(self.body), cut


@dataclass
class RunResult:
    """What a run_shell_command call answers."""

    pane_id: str
    outcome: Outcome
    output: str
    bytes: int
    truncated: bool
    exit_status: int | None
    seconds: float


class ShellRun:
    """One command in one pane: typed, followed, and kept reserved until it ends."""

    def __init__(
        self,
        server: Server,
        pane: PaneRow,
        flavour: str,
        checks: PaneInput,
        tool: str,
        field: str,
        force: bool,
    ) -> None:
        self.server = server
        self.pane = pane
        self.pane_id = pane.pane_id
        self.flavour = flavour
        self.checks = checks
        self.ledger = checks.ledger
        self.tool = tool
        self.field = field
        self.force = force
        self.markers = Markers(secrets.token_hex(8))
        self.stream = PaneStream(self.pane_id, self._feed)
        self.begun = anyio.Event()  # the start marker arrived
        self.typed = anyio.Event()  # the line is in the pane (or typing failed)
        self.finished = anyio.Event()  # the run is over: its outcome is known
        self.outcome: Outcome = "deadline"
        self.error: BaseException | None = None
        self.started = 0.0

    async def run(self, command: str, suppress: bool, limit: float) -> RunResult:
        """Start the run, then wait up to ``limit`` seconds for it to end."""
        self.started = anyio.current_time()
        line = typed_line(self.flavour, self.markers.token, command, suppress)
        reservation = self.ledger.reserve(self.pane_id, self.tool)
        try:
            reservation.__enter__()
        except RuntimeError:
            raise ToolError(
                f"Pane {self.pane_id} on tmux {self.server.socket} is already running a command "
                f"{self.ledger.holder(self.pane_id)} typed. Wait for it, or use another pane.",
                kind="refused",
            ) from None
        task = asyncio.get_running_loop().create_task(self._follow(line, reservation))
        _RUNNING.add(task)
        task.add_done_callback(_RUNNING.discard)
        await self.typed.wait()
        if self.error is None:
            with anyio.move_on_after(max(0.0, self.started + limit - anyio.current_time())):
                await self.finished.wait()
        if self.error is None and not self.begun.is_set() and not self.finished.is_set():
            with anyio.move_on_after(max(0.0, self.started + START_GRACE - anyio.current_time())):
                await self.begun.wait()
        if self.error is not None:
            raise self.error
        return self.result()

    async def followed(self) -> PaneRow | None:
        """The pane's row as it is now (None when it is gone)."""
        return await self.server.pane(self.pane_id).display_message(FOLLOWED_FIELDS)

    def _feed(self, data: bytes) -> None:
        self.markers.feed(data)
        if self.markers.started:
            self.begun.set()

    def result(self) -> RunResult:
        output, size, cut = self.markers.output()
        if self.finished.is_set():
            outcome = self.outcome
        else:
            outcome = "deadline" if self.markers.started else "no_shell"
        return RunResult(
            pane_id=self.pane_id,
            outcome=outcome,
            output=output,
            bytes=size,
            truncated=cut,
            exit_status=self.markers.exit_status if outcome == "completed" else None,
            seconds=round(anyio.current_time() - self.started, 3),
        )

    async def _follow(
        self, line: str, reservation: contextlib.AbstractContextManager[None]
    ) -> None:
        """Type the line, then read the stream until the end marker or the pane's end."""
        try:
            for attempt in range(WATCH_RESTARTS + 1):
                pane = self.pane if attempt == 0 else await self.followed()
                if pane is None or pane["pane_dead"] == "1":
                    self.outcome = "pane_closed"
                    return
                try:
                    async with self.server.output_watch(pane) as watch:
                        remove = watch.client.add_listener(self.stream.on_line)
                        try:
                            if not self.typed.is_set():
                                await self._type(line)
                            if await self._until_end(watch):
                                return
                        finally:
                            remove()
                except WatchLost:
                    continue
            self.outcome = "pane_closed"
        except NoServer as exc:
            if self.typed.is_set():
                self.outcome = "pane_closed"
            else:
                self.error = exc
        except ToolError as exc:
            self.error = exc
        except Exception as exc:  # carried to the call, never lost in a detached task
            self.error = ToolError(f"run_shell_command failed in pane {self.pane_id}: {exc!r}")
        finally:
            reservation.__exit__(None, None, None)
            self.typed.set()
            self.finished.set()

    async def _type(self, line: str) -> None:
        # Checked again right before typing: the pane may have changed since the call's check.
        await self._check(held=True)
        typing = Typing(line, enter=True)
        await self.checks.typed(
            self.server,
            self.pane_id,
            typing.commands(self.pane_id),
            tool=self.tool,
            field=self.field,
        )
        self.ledger.submitted(self.pane_id, typing.submitted_lines())
        self.typed.set()

    async def _check(self, *, held: bool) -> None:
        """The input checks, the pane as the line's only recipient (``held``: by this run)."""
        await self.checks.check(
            self.server,
            self.pane_id,
            tool=self.tool,
            field=self.field,
            amplify=True,
            alone=True,
            force=self.force,
            held=held,
        )

    async def _until_end(self, watch: Watch) -> bool:
        """True once the run is over (the outcome set); False when the watch must restart."""
        while True:
            if self.markers.ended:
                self.outcome = "completed"
                return True
            if self.stream.maybe_gone:
                self.stream.maybe_gone = False
                pane = await self.followed()
                if pane is None or pane["pane_dead"] == "1":
                    self.outcome = "pane_closed"
                    return True
                if pane.session_id != watch.client.session_id:
                    return False
            await watch.changed()


# Runs still following their command after their call returned, kept from the collector.
_RUNNING: set[asyncio.Task[None]] = set()


async def start_run(
    server: Server,
    pane_id: str,
    checks: PaneInput,
    tool: str,
    *,
    field: str,
    force: bool = False,
) -> ShellRun | None:
    """A run ready to start in ``pane_id`` after the checks; None when no shell is at
    its prompt (nothing is typed then). ``force`` is the caller's, as ``checks`` takes it."""
    await checks.check(
        server, pane_id, tool=tool, field=field, amplify=True, alone=True, force=force
    )
    target = server.pane(pane_id, field)
    pane = await settled(
        lambda: target.display_message(FOLLOWED_FIELDS), lambda row: flavour_of(row) is not None
    )
    if pane is None:
        raise target.not_found()
    flavour = flavour_of(pane)
    if flavour is None:
        return None
    return ShellRun(server, pane, flavour, checks, tool, field, force)


def check_command(command: str, field: str = "command") -> str:
    if "\0" in command:
        raise InvalidArgument(
            field, command, "contains a NUL byte, which no shell line can carry", "Remove it."
        )
    if not command.strip():
        raise InvalidArgument(field, command, "is blank", "Pass the command line to run.")
    return command
