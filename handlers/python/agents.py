"""The agents tool set: waiting for quiet, submitting text, a program's state, launching.

For an agent that drives coding agents and long jobs in panes. Every wait here is
driven by the panes' ``%output`` (``objects.quiet``) and a timer per pane, bounded
by ``LIBTMUX_MCP_WAIT_MAX_SECONDS``, sends progress about once a second and ends at
once when cancelled. Nothing here presses a key unless the tool is asked to type.
"""

from __future__ import annotations

import math
import re
import secrets
from contextlib import suppress
from dataclasses import dataclass
from typing import Literal

import anyio
import regex

from ...errors import InvalidArgument, ToolError
from ...generated.python.models.launch_panes import (
    LaunchPanesInput,
    LaunchPanesOutput,
    LaunchPanesOutputPane,
)
from ...generated.python.models.pane_state import PaneStateInput, PaneStateOutput
from ...generated.python.models.submit_text import SubmitTextInput, SubmitTextOutput
from ...generated.python.models.wait_for_quiet import (
    WaitForQuietInput,
    WaitForQuietOutput,
    WaitForQuietOutputPane,
)
from ...seam import Call
from ..tmux.errors import NoServer, NotFound
from ..tmux.objects import capture
from ..tmux.objects.blocked import type_checked
from ..tmux.objects.patterns import LINE_CHARS, MATCH_BUDGET, MATCHED_LINES
from ..tmux.objects.quiet import Clock, listening
from ..tmux.objects.redact import redacted
from ..tmux.objects.rows import PaneRow
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.spawn import no_nul
from ..tmux.objects.targets import check_pane_id
from ..tmux.policy.limits import effective_timeout
from ..tmux.transport.formats import format_of, literal_format, parse_rows
from .agent_state import classify
from .arguments import typeable
from .pane_input import typing_check

Reason = Literal["quiet", "matched", "exited", "timeout", "pending"]
PROGRESS_EVERY = 1.0
TAIL_LINES = 20
SHELLS = re.compile(r"^-?(ba|da|z|k|tc|c|fi)?sh$")
PANE_FIELDS = ("pane_id", "window_id", "session_id", "pane_dead", "pane_current_command")
SCREEN_FIELDS = ("pane_id", "cursor_y", "history_size")
ECHO_SETTLE = 0.15  # seconds of silence that end the echo of a paste or a key
TOOK_IT_WITHIN = 1.0  # seconds a program has to show it took an Enter
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


def _seconds(field: str, value: float) -> float:
    if math.isnan(value):
        raise InvalidArgument(field, value, "is not a number", "Pass seconds, e.g. 2.")
    return value


@dataclass(frozen=True)
class Expression:
    """A caller's regular expression, named by its field, bounded in matching time."""

    field: str
    source: str
    pattern: regex.Pattern[str]

    def search(self, line: str) -> bool:
        try:
            return self.pattern.search(line, timeout=MATCH_BUDGET) is not None
        except TimeoutError:
            raise InvalidArgument(
                self.field,
                self.source,
                f"took over {MATCH_BUDGET:g}s to match one line of the pane",
                "Simplify the regular expression (nested repeats backtrack badly).",
            ) from None


def _regex(field: str, value: str | None) -> Expression | None:
    if value is None:
        return None
    try:
        return Expression(field, value, regex.compile(value))
    except regex.error as exc:
        raise InvalidArgument(
            field, value, f"is not a valid regular expression ({exc})", "Fix or escape it."
        ) from None


async def _rows(server: Server, pane_ids: list[str], field: str) -> list[PaneRow]:
    """Each pane as it is now, read in one round trip where the transport can; one that
    does not exist is refused, naming ``field``."""
    shown = format_of(PANE_FIELDS)
    replies = await server.run_many(
        *(("display-message", "-p", "-t", pane_id, shown) for pane_id in pane_ids)
    )
    rows = []
    for pane_id, lines in zip(pane_ids, replies, strict=True):
        found = parse_rows(lines, PANE_FIELDS)
        if not found or found[0]["pane_id"] != pane_id:
            raise NotFound("pane", pane_id, socket=server.socket, field=field)
        rows.append(PaneRow(found[0]))
    return rows


async def _exited(server: Server, pane_id: str) -> bool:
    """The pane is dead or gone (or its server is)."""
    try:
        lines = await server.run("display-message", "-p", "-t", pane_id, format_of(PANE_FIELDS))
    except (NoServer, NotFound):
        return True
    except ToolError as exc:
        if "can't find" in str(exc):
            return True
        raise
    rows = parse_rows(lines, PANE_FIELDS)
    return not rows or rows[0]["pane_id"] != pane_id or rows[0]["pane_dead"] == "1"


async def _tail(server: Server, pane_id: str) -> list[str]:
    try:
        lines = await server.pane(pane_id).capture_pane()
    except ToolError:
        return []
    return redacted(capture.trim_blank_tail(lines)[-TAIL_LINES:])


def _last_line(screen: list[str]) -> str:
    lines = capture.trim_blank_tail(screen)
    return lines[-1] if lines else ""


@dataclass
class Ended:
    reason: Reason
    at: float
    silent: float


class AgentTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    # --- wait_for_quiet -------------------------------------------------------------

    async def wait_for_quiet(self, call: Call, params: WaitForQuietInput) -> WaitForQuietOutput:
        pane_ids = list(dict.fromkeys(params.pane_ids))
        for pane_id in pane_ids:
            check_pane_id(pane_id, "pane_ids")
        quiet = _seconds("quiet_seconds", params.quiet_seconds)
        prompt = _regex("prompt", params.prompt)
        shell_back = bool(params.shell_back)
        limit = effective_timeout(_seconds("timeout", params.timeout), self.tmux.environ)
        started = anyio.current_time()
        server = self.tmux.server(params.socket_name)
        rows = await _rows(server, pane_ids, "pane_ids")
        ended: dict[str, Ended] = {}
        failure: list[BaseException] = []

        def elapsed() -> float:
            return anyio.current_time() - started

        async def holds(pane_id: str) -> bool:
            """The condition beyond quiet, read once now."""
            if shell_back:
                (row,) = await _rows(server, [pane_id], "pane_ids")
                if not SHELLS.match(row["pane_current_command"]):
                    return False
            if prompt is not None:
                screen = await server.pane(pane_id).capture_pane()
                return prompt.search(_last_line(screen))
            return True

        async def follow(clock: Clock) -> Reason:
            armed, heard = True, clock.outputs
            while True:
                if clock.suspect:
                    clock.suspect = False
                    if await _exited(server, clock.pane_id):
                        return "exited"
                    if clock.lost:
                        raise ToolError(
                            f"The tmux client watching pane {clock.pane_id} ended. "
                            "Call wait_for_quiet again."
                        )
                if clock.outputs != heard:
                    armed, heard = True, clock.outputs
                if not armed:  # quiet, the condition did not hold: sleep until it prints
                    await clock.changed()
                    continue
                due = clock.last + quiet
                now = anyio.current_time()
                if now < due:
                    with anyio.move_on_after(due - now):
                        await clock.changed()
                    continue
                if prompt is None and not shell_back:
                    return "quiet"
                if await holds(clock.pane_id):
                    return "matched"
                armed = False

        async with listening(server, [r for r in rows if r["pane_dead"] != "1"]) as clocks:
            for row in rows:
                if row["pane_dead"] == "1":
                    ended[row.pane_id] = Ended("exited", 0.0, 0.0)
            needed = 1 if params.mode != "all" else len(rows)
            if len(ended) < needed and limit > 0:
                with anyio.move_on_after(limit - elapsed()):
                    async with anyio.create_task_group() as group:

                        async def one(clock: Clock) -> None:
                            try:
                                reason = await follow(clock)
                            except ToolError as exc:
                                failure.append(exc)
                                group.cancel_scope.cancel()
                                return
                            ended[clock.pane_id] = Ended(reason, elapsed(), clock.silent_for())
                            if len(ended) >= needed:
                                group.cancel_scope.cancel()

                        async def progress() -> None:
                            while True:
                                await anyio.sleep(PROGRESS_EVERY)
                                await call.progress(
                                    elapsed(), limit, f"{len(ended)} of {len(rows)} panes done"
                                )

                        for clock in clocks.values():
                            group.start_soon(one, clock)
                        group.start_soon(progress)
            if failure:
                raise failure[0]
            silent = {pane_id: clock.silent_for() for pane_id, clock in clocks.items()}
        done = len(ended) >= needed
        panes = []
        for row in rows:
            end = ended.get(row.pane_id)
            reason: Reason = end.reason if end else ("pending" if done else "timeout")
            panes.append(
                WaitForQuietOutputPane(
                    pane_id=row.pane_id,
                    reason=reason,
                    elapsed_seconds=round(end.at if end else elapsed(), 3),
                    silent_seconds=round(end.silent if end else silent.get(row.pane_id, 0.0), 3),
                    tail=await _tail(server, row.pane_id),
                )
            )
        return WaitForQuietOutput(
            done=done,
            panes=panes,
            elapsed_seconds=round(elapsed(), 3),
            effective_timeout=limit,
        )

    # --- submit_text ----------------------------------------------------------------

    async def submit_text(self, call: Call, params: SubmitTextInput) -> SubmitTextOutput:
        check_pane_id(params.pane_id)
        text = typeable("text", params.text, nul=True)
        if not text:
            raise InvalidArgument("text", text, "is empty", "Pass the text to submit.")
        wait_for = _regex("wait_for", params.wait_for)
        limit = effective_timeout(_seconds("timeout", params.timeout), self.tmux.environ)
        started = anyio.current_time()
        server = self.tmux.server(params.socket_name)
        pane_id = params.pane_id
        (row,) = await _rows(server, [pane_id], "pane_id")
        check = typing_check("submit_text", cohort=False)
        evidence: list[str] = []
        presses = 0
        matched_lines: list[str] = []
        async with listening(server, [row]) as clocks:
            clock = clocks[pane_id]
            buffer = server.buffer(f"tcm-submit-{secrets.token_hex(8)}")
            await buffer.set_buffer(text)
            try:
                await buffer.paste_buffer(
                    server.pane(pane_id), bracket=True, delete=True, check=check
                )
            except BaseException:
                with anyio.CancelScope(shield=True), suppress(ToolError):
                    await buffer.delete_buffer()
                raise
            await _settle(clock, within=ECHO_SETTLE)
            before = await _screen(server, pane_id)
            clock.take()
            while presses < 2:
                presses += 1
                enter = ("send-keys", "-t", pane_id, "Enter")
                await type_checked(server, pane_id, [enter], typing_check("submit_text"))
                await _settle(clock, within=TOOK_IT_WITHIN)
                after = await _screen(server, pane_id)
                evidence = _took_it(before, after)
                if evidence:
                    break
            submitted = bool(evidence)
            if not submitted:
                evidence = [
                    f"after {presses} Enter presses the cursor stayed on row "
                    f"{before.row} and its line stayed {before.line!r}"
                ]
            if wait_for is not None and submitted:
                matched_lines = await _wait_for(clock, wait_for, text, started + limit)
        return SubmitTextOutput(
            pane_id=pane_id,
            submitted=submitted,
            enter_presses=presses,
            evidence=redacted(evidence),
            matched=None if wait_for is None else bool(matched_lines),
            matched_lines=redacted(matched_lines),
            elapsed_seconds=round(anyio.current_time() - started, 3),
        )

    # --- pane_state -----------------------------------------------------------------

    async def pane_state(self, call: Call, params: PaneStateInput) -> PaneStateOutput:
        check_pane_id(params.pane_id)
        server = self.tmux.server(params.socket_name)
        (row,) = await _rows(server, [params.pane_id], "pane_id")
        screen = await server.pane(params.pane_id).capture_pane()
        command = row["pane_current_command"]
        verdict = classify(command, screen, dead=row["pane_dead"] == "1")
        return PaneStateOutput(
            pane_id=params.pane_id,
            state=verdict.state,
            program=verdict.program,
            rules_version=verdict.version,
            reason=verdict.reason,
            current_command=command,
            evidence=verdict.evidence,
        )

    # --- launch_panes ---------------------------------------------------------------

    async def launch_panes(self, call: Call, params: LaunchPanesInput) -> LaunchPanesOutput:
        for at, item in enumerate(params.commands):
            no_nul(f"commands[{at}].command", item.command)
            no_nul(f"commands[{at}].title", item.title)
        server = self.tmux.server(params.socket_name)
        session = await server.find_session(params.session_name, "session_name")
        made = format_of(("pane_id", "window_id"))
        panes: list[LaunchPanesOutputPane] = []
        window_id = ""
        for at, item in enumerate(params.commands):
            title = literal_format(item.title)
            if params.layout == "panes" and at > 0:
                args = ["split-window", "-d", "-P", "-F", made, "-t", panes[0].pane_id]
            else:
                args = ["new-window", "-d", "-P", "-F", made, "-t", f"{session.session_id}:"]
                args += ["-n", title]
            lines = await server.run(*args, "--", item.command)
            (new,) = parse_rows(lines, ("pane_id", "window_id"))
            window_id = new["window_id"]
            # select-pane -T sets the title only: it selects nothing.
            commands: list[tuple[str, ...]] = [("select-pane", "-t", new["pane_id"], "-T", title)]
            if params.layout == "panes" and at > 0:
                commands.append(("select-layout", "-t", window_id, "tiled"))
            await server.run_many(*commands)
            panes.append(
                LaunchPanesOutputPane(pane_id=new["pane_id"], window_id=window_id, title=item.title)
            )
        return LaunchPanesOutput(panes=panes)


@dataclass(frozen=True)
class Screen:
    row: int  # the cursor's row
    history: int  # lines scrolled into history
    line: str  # the cursor's row's text


async def _screen(server: Server, pane_id: str) -> Screen:
    lines = await server.run("display-message", "-p", "-t", pane_id, format_of(SCREEN_FIELDS))
    (found,) = parse_rows(lines, SCREEN_FIELDS)
    row = int(found["cursor_y"] or 0)
    (line,) = await server.pane(pane_id).capture_pane(row, row)
    return Screen(row, int(found["history_size"] or 0), line.rstrip())


def _took_it(before: Screen, after: Screen) -> list[str]:
    """What shows the program took an Enter; nothing when nothing does."""
    seen = []
    if after.history > before.history:
        seen.append(f"the screen scrolled by {after.history - before.history} lines")
    if after.row != before.row:
        seen.append(f"the cursor moved from row {before.row} to row {after.row}")
    elif after.line != before.line:
        seen.append(f"the input line changed from {before.line!r} to {after.line!r}")
    return seen


async def _settle(clock: Clock, *, within: float) -> None:
    """Wait up to ``within`` for the pane to print, then until it has been silent for
    ``ECHO_SETTLE`` (at most a second more)."""
    heard = clock.outputs
    with anyio.move_on_after(within):
        while clock.outputs == heard:
            await clock.changed()
    if clock.outputs == heard:
        return
    with anyio.move_on_after(1.0):
        while clock.silent_for() < ECHO_SETTLE:
            with anyio.move_on_after(ECHO_SETTLE - clock.silent_for()):
                await clock.changed()


def _lines(data: bytes) -> list[str]:
    text = _ANSI.sub("", data.decode("utf-8", "replace"))
    return [line.strip() for line in re.split(r"[\r\n]+", text) if line.strip()]


async def _wait_for(clock: Clock, pattern: Expression, text: str, deadline: float) -> list[str]:
    """Lines the pane prints until one matches ``pattern``, its echo of ``text`` left out."""
    echo = [part.strip() for part in text.splitlines() if part.strip()]
    printed = bytearray(clock.take())
    with anyio.move_on_after(max(0.0, deadline - anyio.current_time())):
        while True:
            lines = [line for line in _lines(bytes(printed)) if not any(e in line for e in echo)]
            found = [line[:LINE_CHARS] for line in lines if pattern.search(line)]
            if found:
                return found[:MATCHED_LINES]
            await clock.changed()
            printed += clock.take()
    return []
