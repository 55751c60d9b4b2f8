"""Typing into panes and running commands in them.

send_keys and send_keys_batch use ``send-keys``: ``-l`` for text, a bare argument
for a key name, always after ``--`` so a value starting with ``-`` is never a flag.
tmux expands nothing in send-keys arguments (no ``-F``), and every value travels as
an argument of its own, so ``#{…}``, ``#(…)`` and ``;`` are typed as they are. Long
text goes in pieces: a tmux client refuses a command of more than about 16 KB.

paste_text goes through a buffer of its own (a random name, deleted by
``paste-buffer -d``): ``set-buffer`` for short text, ``load-buffer`` from a private
file for long text or text holding NUL (load-buffer expands formats in its path,
so the path is spelled with ``formats.literal_format`` and passed after ``--``).

run_command types one line at the pane's shell prompt (see ``Markers.line``)::

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
wait when the pane may have closed. Nothing polls.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import secrets
import shlex
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass

import anyio
import anyio.abc

from ... import progress
from ...errors import InvalidArgument, ToolError
from ...generated.python.models.paste_text import PasteTextInput, PasteTextOutput
from ...generated.python.models.run_command import RunCommandInput, RunCommandOutput
from ...generated.python.models.send_keys import SendKeysInput, SendKeysOutput
from ...generated.python.models.send_keys_batch import (
    SendKeysBatchInput,
    SendKeysBatchInputOperation,
    SendKeysBatchOutput,
    SendKeysBatchOutputResult,
)
from ..tmux import capture, channels
from ..tmux.control import ControlClient, output_event
from ..tmux.core import Server, Tmux
from ..tmux.errors import CommandFailed, UnknownTarget
from ..tmux.formats import PANE_FIELDS, PaneRow, format_of, literal_format, parse_rows
from ..tmux.targets import (
    ACTIVE_ONLY,
    WindowSelector,
    check_pane_id,
    check_session_id,
    check_session_pair,
    check_window_id,
    resolve_window,
)
from ..tmux.waits import effective_timeout
from .reading import positive

CHUNK_BYTES = 4000  # text per send-keys command (a tmux client refuses ~16 KB commands)
SET_BUFFER_BYTES = 8000  # longer paste text is loaded from a private file instead
MAX_OUTPUT_BYTES = 1_000_000  # run_command's output, newest kept, whatever max_lines says
END_GRACE = 2.0  # seconds the rest of (signal, end marker, prompt) get once one is in
PROGRESS_EVERY = 1.0

STATE_FIELDS = (*PANE_FIELDS, "alternate_on")
STATE_FORMAT = format_of(STATE_FIELDS)

# The shells run_command knows how to drive, by the name tmux shows for the pane's
# foreground process (a login shell's leading '-' dropped).
POSIX_SHELLS = frozenset(
    {"sh", "dash", "ash", "ksh", "ksh93", "mksh", "pdksh", "oksh", "loksh", "yash", "posh"}
)
BASH_SHELLS = frozenset({"bash", "rbash"})
ZSH_SHELLS = frozenset({"zsh"})

# Characters a line editor could take as a key (Enter, completion, a binding): a
# command holding any is typed as printf %b escapes, which then also escape the
# backslash and '!' (history expansion can reach into the double quotes around it).
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_ESCAPED = re.compile(r"[\x00-\x1f\x7f!\\]")
# Notifications after which the pane may be gone (its window or session closed).
_MAYBE_GONE = (
    "%layout-change",
    "%window-close",
    "%unlinked-window-close",
    "%session-changed",
    "%sessions-changed",
    "%window-pane-changed",
    "%exit",
)


# --- shared pieces ----------------------------------------------------------------------


def typeable(field: str, value: str, *, nul: bool = False) -> str:
    """Refuse what cannot travel to tmux as an argument: NUL, and lone surrogates."""
    if not nul and "\0" in value:
        raise InvalidArgument(
            field,
            value,
            "contains a NUL character, which tmux cannot type",
            "Remove it (send the key name C-@ with literal false to type a NUL).",
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgument(
            field,
            value,
            "is not valid Unicode text (it holds a lone surrogate)",
            "Send the text as proper UTF-8.",
        ) from None
    return value


def selector_of(
    window_id: str | None,
    session_name: str | None,
    session_id: str | None,
    prefix: str = "",
) -> WindowSelector:
    """The window selector of a call's target fields, shapes checked (a session_name beside
    a session_id agrees with it: see ``check_session_pair``)."""
    if window_id is not None:
        check_window_id(window_id, f"{prefix}window_id")
    if session_id is not None:
        check_session_id(session_id, f"{prefix}session_id")
        session_name = None
    return WindowSelector(window_id, None, session_name, session_id)


async def target_pane(server: Server, pane_id: str | None, selector: WindowSelector) -> str:
    """``pane_id`` as given (the command using it reports a missing pane), else the
    active pane of the selected window, else of the first session's active window."""
    if pane_id is not None:
        return pane_id
    return (await resolve_window(server, selector, ACTIVE_ONLY)).active_pane.pane_id


def no_pane(server: Server, pane_id: str) -> UnknownTarget:
    return UnknownTarget(
        f"No pane {pane_id} on tmux {server.socket}. Call list_panes to see the panes that exist."
    )


async def on_pane(server: Server, pane_id: str, *commands: Sequence[str]) -> list[list[str]]:
    """Run ``commands`` (one round trip where the transport can) aimed at ``pane_id``."""
    try:
        return await server.run_many(*commands)
    except CommandFailed as exc:
        if "can't find" in exc.stderr:
            raise no_pane(server, pane_id) from None
        raise


def pieces(text: str, limit: int = CHUNK_BYTES) -> list[str]:
    """``text`` cut into runs of at most ``limit`` UTF-8 bytes, never inside a character."""
    if len(text) * 4 <= limit:
        return [text]
    found: list[str] = []
    start = size = 0
    for at, char in enumerate(text):
        width = len(char.encode("utf-8"))
        if size + width > limit and at > start:
            found.append(text[start:at])
            start, size = at, 0
        size += width
    found.append(text[start:])
    return found


def key_commands(
    pane_id: str, keys: str, *, literal: bool, enter: bool, suppress_history: bool
) -> list[tuple[str, ...]]:
    """The send-keys commands typing ``keys`` into ``pane_id``.

    Not literal, one value is one tmux argument: a key name sends that key and any
    other string is typed as text (tmux's own rule). A value too long for one command
    is no key name, so it is typed as text in pieces.
    """
    prefix = " " if suppress_history else ""
    if not literal and len(keys.encode("utf-8")) <= CHUNK_BYTES:
        keys_args = [arg for arg in (prefix, keys) if arg]
        tail = ["Enter"] if enter else []
        if not keys_args and not tail:
            return []
        return [("send-keys", "-t", pane_id, "--", *keys_args, *tail)]
    commands: list[tuple[str, ...]] = [
        ("send-keys", "-l", "-t", pane_id, "--", piece)
        for piece in (pieces(prefix + keys) if prefix + keys else [])
    ]
    if enter:
        commands.append(("send-keys", "-t", pane_id, "Enter"))
    return commands


async def send(
    server: Server, pane_id: str, keys: str, *, literal: bool, enter: bool, suppress_history: bool
) -> None:
    commands = key_commands(
        pane_id, keys, literal=literal, enter=enter, suppress_history=suppress_history
    )
    if commands:
        await on_pane(server, pane_id, *commands)
    elif await server.pane(pane_id) is None:  # nothing to type: still name a missing pane
        raise no_pane(server, pane_id)


def checked_timeout(field: str, value: float) -> float:
    if math.isnan(value):
        raise InvalidArgument(field, value, "is not a number", "Pass a number of seconds.")
    return value


# --- the tools --------------------------------------------------------------------------


class RunningTools:
    tmux: Tmux
    _runs: set[tuple[str, str]] | None = None

    async def send_keys(self, params: SendKeysInput) -> SendKeysOutput:
        keys = typeable("keys", params.keys)
        if params.pane_id is not None:
            check_pane_id(params.pane_id)
        selector = selector_of(params.window_id, params.session_name, params.session_id)
        server = self.tmux.server(params.socket_name)
        pane_id = await target_pane(server, params.pane_id, selector)
        await send(
            server,
            pane_id,
            keys,
            literal=params.literal is True,
            enter=params.enter is not False,
            suppress_history=params.suppress_history is True,
        )
        return SendKeysOutput(result=f"Keys sent to pane {pane_id}")

    async def send_keys_batch(self, params: SendKeysBatchInput) -> SendKeysBatchOutput:
        # Every operation is checked before anything is typed.
        selectors: list[WindowSelector] = []
        for index, operation in enumerate(params.operations):
            prefix = f"operations[{index}]."
            typeable(f"{prefix}keys", operation.keys)
            if operation.pane_id is not None:
                check_pane_id(operation.pane_id, f"{prefix}pane_id")
            selectors.append(
                selector_of(
                    operation.window_id, operation.session_name, operation.session_id, prefix
                )
            )
        timeout = params.timeout
        if timeout is not None and not (checked_timeout("timeout", timeout) > 0):
            raise InvalidArgument(
                "timeout",
                timeout,
                "must be more than 0",
                "Pass the seconds the whole batch may take, or null for no limit.",
            )
        stop_on_error = params.on_error != "continue"
        server = self.tmux.server(params.socket_name)
        for index, operation in enumerate(params.operations):
            await check_session_pair(
                server, operation.session_id, operation.session_name, f"operations[{index}]."
            )
        deadline = None if timeout is None else anyio.current_time() + timeout
        results: list[SendKeysBatchOutputResult] = []
        stopped_at: int | None = None
        for index, (operation, selector) in enumerate(
            zip(params.operations, selectors, strict=True)
        ):
            began = anyio.current_time()
            row, timed_out = await self._batch_one(server, index, operation, selector, deadline)
            row.elapsed_seconds = round(anyio.current_time() - began, 3)
            results.append(row)
            if not row.success and (stop_on_error or timed_out):
                stopped_at = index
                break
        succeeded = sum(1 for row in results if row.success)
        return SendKeysBatchOutput(
            results=results,
            succeeded=succeeded,
            failed=len(results) - succeeded,
            stopped_at=stopped_at,
        )

    async def _batch_one(
        self,
        server: Server,
        index: int,
        operation: SendKeysBatchInputOperation,
        selector: WindowSelector,
        deadline: float | None,
    ) -> tuple[SendKeysBatchOutputResult, bool]:
        """One operation's row, and whether it ran out of the batch's time."""
        pane_id = operation.pane_id
        left = math.inf if deadline is None else deadline - anyio.current_time()
        if left <= 0:
            return (
                SendKeysBatchOutputResult(
                    index=index,
                    pane_id=pane_id,
                    success=False,
                    error=(
                        "Not started: the batch's timeout ran out before this operation. "
                        "Send it again, with a larger timeout if needed."
                    ),
                    elapsed_seconds=0.0,
                ),
                True,
            )
        try:
            with anyio.fail_after(None if math.isinf(left) else left):
                pane_id = await target_pane(server, operation.pane_id, selector)
                await send(
                    server,
                    pane_id,
                    operation.keys,
                    literal=operation.literal is True,
                    enter=operation.enter is not False,
                    suppress_history=operation.suppress_history is True,
                )
        except TimeoutError:
            error = (
                "Did not finish before the batch's timeout ran out; its keys may have been "
                "sent in part. Look at the pane (capture_pane) before sending it again."
            )
            return self._failed(index, pane_id, error), True
        except ToolError as exc:
            return self._failed(index, pane_id, str(exc)), False
        return (
            SendKeysBatchOutputResult(
                index=index, pane_id=pane_id, success=True, error=None, elapsed_seconds=0.0
            ),
            False,
        )

    @staticmethod
    def _failed(index: int, pane_id: str | None, error: str) -> SendKeysBatchOutputResult:
        return SendKeysBatchOutputResult(
            index=index, pane_id=pane_id, success=False, error=error, elapsed_seconds=0.0
        )

    async def paste_text(self, params: PasteTextInput) -> PasteTextOutput:
        text = typeable("text", params.text, nul=True)
        if not text:
            raise InvalidArgument("text", text, "is empty", "Pass the text to paste.")
        if params.pane_id is not None:
            check_pane_id(params.pane_id)
        selector = selector_of(params.window_id, params.session_name, params.session_id)
        server = self.tmux.server(params.socket_name)
        pane_id = await target_pane(server, params.pane_id, selector)
        buffer = f"tcm-paste-{secrets.token_hex(8)}"
        await load_buffer(server, buffer, text)
        paste = ["paste-buffer", "-d", "-b", buffer, "-t", pane_id]
        if params.bracket is not False:
            paste.append("-p")
        try:
            await on_pane(server, pane_id, paste)
        except BaseException:
            with anyio.CancelScope(shield=True), contextlib.suppress(ToolError):
                await server.run("delete-buffer", "-b", buffer)
            raise
        return PasteTextOutput(result=f"Text pasted to pane {pane_id}")

    async def run_command(self, params: RunCommandInput) -> RunCommandOutput:
        command = typeable("command", params.command)
        if not command.strip():
            raise InvalidArgument("command", command, "is blank", "Pass the command line to run.")
        timeout = checked_timeout("timeout", 30.0 if params.timeout is None else params.timeout)
        # Clamped to LIBTMUX_MCP_WAIT_MAX_SECONDS, 0 for 0 or less: reported either way.
        limit = effective_timeout(timeout, self.tmux.environ)
        max_lines = positive("max_lines", params.max_lines)
        if params.pane_id is not None:
            check_pane_id(params.pane_id)
        selector = selector_of(params.window_id, params.session_name, params.session_id)
        server = self.tmux.server(params.socket_name)
        pane_id = await target_pane(server, params.pane_id, selector)
        pane = await pane_state(server, pane_id)
        if pane is None:
            raise no_pane(server, pane_id)
        flavour = shell_of(server, pane)
        key = (server.socket.path, pane_id)
        if self._runs is None:
            self._runs = set()
        if key in self._runs:
            raise ToolError(
                f"run_command is already running a command in pane {pane_id} on tmux "
                f"{server.socket}. Wait for that call to return, or use another pane."
            )
        self._runs.add(key)
        try:
            run = Run(self.tmux, server, pane, flavour, limit)
            return await run.go(command, params.suppress_history is not False, max_lines)
        finally:
            self._runs.discard(key)


# --- paste_text's buffer ----------------------------------------------------------------


async def load_buffer(server: Server, buffer: str, text: str) -> None:
    data = text.encode("utf-8")
    if len(data) <= SET_BUFFER_BYTES and "\0" not in text:
        await server.run("set-buffer", "-b", buffer, "--", text)
        return
    folder = tempfile.mkdtemp(prefix="tcm-paste-")  # private: mode 0700
    path = os.path.join(folder, "text")
    try:
        with open(path, "wb") as file:
            file.write(data)
        await server.run("load-buffer", "-b", buffer, "--", literal_format(path))
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
        with contextlib.suppress(OSError):
            os.rmdir(folder)


# --- run_command ------------------------------------------------------------------------


async def pane_state(server: Server, pane_id: str) -> PaneRow | None:
    rows = parse_rows(
        await server.run("display-message", "-p", "-t", pane_id, STATE_FORMAT), STATE_FIELDS
    )
    # display-message does not fail for a missing pane: it expands with no pane.
    return PaneRow(rows[0]) if rows and rows[0]["pane_id"] == pane_id else None


def shell_of(server: Server, pane: PaneRow) -> str:
    """Which shell syntax the pane's prompt takes; refuse a pane not at a shell prompt."""
    where = f"Pane {pane.pane_id} on tmux {server.socket}"
    if pane["pane_dead"] == "1":
        raise ToolError(
            f"{where} is dead: its program exited and remain-on-exit keeps it. Respawn it "
            "with respawn_pane, or run the command in another pane."
        )
    if pane["pane_in_mode"] == "1":
        raise ToolError(
            f"{where} is in copy mode (or another mode), where typed keys do not reach its "
            "shell. Call exit_copy_mode first."
        )
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
    if name in BASH_SHELLS:
        return "bash"
    if name in ZSH_SHELLS:
        return "zsh"
    if name in POSIX_SHELLS:
        return "posix"
    raise ToolError(
        f"{where} is running {name or 'an unknown program'!r}, not a shell waiting at its "
        "prompt (run_command drives sh, bash, zsh, dash and ksh). Wait for it to finish "
        "(wait_for_text; a shell just started may still be running its startup files), "
        "interrupt it (send_keys with keys 'C-c', enter false), or type into it with "
        "send_keys."
    )


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


@dataclass(frozen=True)
class Markers:
    """The rows run_command's plumbing prints around the output."""

    token: str

    @property
    def start(self) -> str:
        return f"__tcm{self.token}:s"

    @property
    def end(self) -> re.Pattern[str]:
        return re.compile(rf"__tcm{self.token}:e:(\d+)$")

    @property
    def end_prefix(self) -> str:
        return f"__tcm{self.token}:e:"

    @property
    def channel(self) -> str:
        return f"tcm-{self.token}"

    def line(
        self, flavour: str, command: str, tmux_bin: str, socket_path: str, suppress: bool
    ) -> str:
        """The line typed at the prompt (see the module's docstring).

        History: with ``suppress`` the line starts with a space (bash with
        HISTCONTROL=ignorespace and zsh with HIST_IGNORE_SPACE then never record
        it), and bash's entry for it is deleted if bash recorded it anyway. Without
        ``suppress``, bash's ``history -s`` puts the command itself in place of the
        line's entry (it replaces the entry only when bash recorded one).
        """
        builtin = "builtin" if flavour == "zsh" else "command"
        word = quoted_command(command, builtin)
        parts = []
        if flavour == "bash" and suppress:
            parts.append(
                f"case $(history 1 2>/dev/null) in *{self.token}*) history -d -1 2>/dev/null;; esac"
            )
        elif flavour == "bash":
            parts.append(f"history -s -- {word}")
        parts += [
            f"{builtin} printf '%s%s:s\\n' __tcm {self.token}",
            f"{builtin} eval {word}",
            f"{builtin} printf '\\n%s%s:e:%s\\n' __tcm {self.token} \"$?\"",
            f"command {shlex.quote(tmux_bin)} -S {shlex.quote(socket_path)} "
            f"wait-for -S {self.channel}",
        ]
        return (" " if suppress or flavour == "bash" else "") + "; ".join(parts)


class OutputCount:
    """Follows a pane's ``%output``: the output's line count, the end marker, the prompt.

    The prompt after the end marker says the shell is back in the foreground (the
    ``tmux wait-for -S`` it ran has exited), so the next call finds the pane ready.
    """

    def __init__(self, pane_id: str, markers: Markers) -> None:
        self.pane_id = pane_id
        self.start = markers.start.encode()
        self.end = markers.end_prefix.encode()
        self.started = False
        self.ended = False
        self.prompted = False
        self.newlines = 0  # line feeds after the start marker (its own included)
        self.maybe_gone = False
        self.wake = anyio.Event()
        self._tail = b""
        self._end_line = False  # the end marker's row is complete

    def on_line(self, line: str) -> None:
        if line.startswith(_MAYBE_GONE):
            self.maybe_gone = True
            self.wake.set()
            return
        event = output_event(line)
        if event is not None and event[0] == self.pane_id and not self.prompted:
            self.feed(event[1])

    def feed(self, data: bytes) -> None:
        if not self.started:
            buffer = self._tail + data
            at = buffer.find(self.start)
            if at < 0:
                self._tail = buffer[-(len(self.start) - 1) :]
                return
            self.started = True
            self._tail = b""
            data = buffer[at + len(self.start) :]
        if not self.ended:
            buffer = self._tail + data
            at = buffer.find(self.end)
            if at < 0:
                self.newlines += data.count(b"\n")
                self._tail = buffer[-(len(self.end) - 1) :]
                return
            self.newlines += data[: max(0, at - len(self._tail))].count(b"\n")
            self.ended = True
            self.wake.set()
            data = buffer[at + len(self.end) :]
        if not self._end_line:
            at = data.find(b"\n")
            if at < 0:
                return
            self._end_line = True
            data = data[at + 1 :]
        if data:
            self.prompted = True
            self.wake.set()


@dataclass
class Collected:
    lines: list[str]
    exit_status: int | None
    lost: int


class Run:
    """One run_command call, from typing the line to reading the output back."""

    def __init__(
        self, tmux: Tmux, server: Server, pane: PaneRow, flavour: str, limit: float
    ) -> None:
        self.tmux = tmux
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

    async def go(self, command: str, suppress: bool, max_lines: int) -> RunCommandOutput:
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
                    await on_pane(self.server, self.pane_id, *typing)
                    outcome = await self.follow(process, watch.client)
            finally:
                remove()
        pane = await pane_state(self.server, self.pane_id) if outcome != "gone" else None
        if pane is None:
            raise UnknownTarget(
                f"Pane {self.pane_id} on tmux {self.server.socket} went away after "
                f"{self.elapsed:.1f}s, while the command ran (did it exit the shell?). Call "
                "list_panes to see the panes that exist."
            )
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

    def waiter(self) -> contextlib.AbstractAsyncContextManager[anyio.abc.Process]:
        """``tmux wait-for CHANNEL`` running while the block runs; killed if it still is."""
        return channels.waiter(
            self.server.socket, self.tmux.tmux_bin, self.tmux.environ, self.markers.channel
        )

    async def follow(self, process: anyio.abc.Process, client: ControlClient) -> str:
        """``finished``, ``timeout`` or ``gone``, sleeping until something may have changed.

        Woken by the wait-for process ending, by the end marker in the pane's output,
        by a notification after which the pane may be gone, or by the clock (the
        progress notification about once a second, and the deadline).
        """
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
            finally:
                group.cancel_scope.cancel()
        return outcome

    async def next_wake(self) -> None:
        await self.count.wake.wait()
        self.count.wake = anyio.Event()  # the flags, not the event, say what happened

    async def sleep(self, process: anyio.abc.Process) -> str:
        while True:
            if self.signalled and process.returncode not in (None, 0) and not self.count.ended:
                raise ToolError(
                    f"tmux wait-for ended with status {process.returncode} on "
                    f"{self.server.socket}: the tmux server may have stopped. Call "
                    "list_sessions to check it."
                )
            if self.signalled or self.count.ended:
                return "finished"
            if self.count.maybe_gone:
                self.count.maybe_gone = False
                if await pane_state(self.server, self.pane_id) is None:
                    return "gone"
            now = anyio.current_time()
            if now >= self.deadline:
                return "timeout"
            if now >= self.next_progress:
                elapsed = now - self.started
                await progress.report(
                    elapsed,
                    self.limit,
                    f"running in pane {self.pane_id}: {elapsed:.0f}s of {self.limit:g}s",
                )
                self.next_progress = now + PROGRESS_EVERY
            with anyio.move_on_after(min(self.deadline, self.next_progress) - now):
                await self.next_wake()

    # --- reading the output back ----------------------------------------------------

    async def collect(self, pane: PaneRow, start_row: int, *, finished: bool) -> Collected:
        """The rows between the markers (after a timeout, from the start marker on)."""
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
        args = ["capture-pane", "-p", "-J", "-t", self.pane_id]
        args += ["-S", "-" if first is None else str(first), "-E", str(last)]
        lines = (await on_pane(self.server, self.pane_id, args))[0]
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
