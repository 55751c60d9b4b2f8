"""What keeps a pane from taking typed input now, checked by tmux in the very command that types.

A pane takes no typed input while it is in a mode (copy mode, view mode, a chooser, the
clock: the mode's key table takes typed keys, and a paste reaches the program unseen
behind the mode while the Enter meant to submit it goes to the mode), while it is dead
(its program has exited and remain-on-exit keeps the pane), or while tmux has its input
off (``select-pane -d``). Keys typed into a synchronized pane reach every synchronized
pane tmux shows in its window, so those count too (``recipients_of``).

Every tool that types or pastes asks this in the same round trip as the typing, and
tmux answers it at the instant it types: ``type_checked`` wraps the typing commands in
the transport's guard (``transport.keyguard.guarded``), whose condition reads those
states in the pane and, for keys, its synchronized panes; when one is blocked, tmux
types nothing and lists the window's panes instead, and ``refusal`` words the error
from that list: which pane (and how it came into the call), on which tmux socket, its
mode or its exit status, and what to call next. A family's way out of a mode
(``InputCheck.leave``: python has ``exit_copy_mode``; rust and swift have no such tool)
is the profile's to say. Profiles that check more before typing (``input.PaneInput``:
who is watching, who holds the pane, the caller's own pane) word these same states with
``refusal`` too.

A command list of typing is cut into guards of at most ``GUARD_BYTES`` (a tmux process
takes a command of about 16 KB); a long text in several guards is checked before each,
and a refusal after the first says how much was typed before the pane changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InputRefused
from ..transport.formats import SEP, cached_format, parse_rows
from ..transport.keyguard import MARK, guarded
from ..transport.quoting import command_list
from ..transport.sockets import Socket
from .deadpanes import how_it_ended
from .rows import SERVER_FIELDS, PaneRow

if TYPE_CHECKING:
    from .server import Server

INPUT_FIELDS: tuple[str, ...] = (
    "pane_id",
    "pane_index",
    "pane_active",
    "pane_dead",
    "pane_dead_status",
    "pane_dead_signal",
    "pane_input_off",
    "pane_in_mode",
    "pane_mode",
    "pane_synchronized",
    "window_id",
    "window_zoomed_flag",
    "session_id",
    *SERVER_FIELDS,
)
"""What a check of typed input reads of each pane."""

_BLOCKED = "#{||:#{pane_in_mode},#{||:#{pane_dead},#{pane_input_off}}}"
_ONE = "#{?" + _BLOCKED + ",1,}"
_SHOWN = "#{?window_zoomed_flag,#{pane_active},1}"
PANE_BLOCKED = _ONE
"""Non-empty while the pane is in a mode, dead or has its input off."""
COHORT_BLOCKED = (
    _ONE + "#{?pane_synchronized,#{P:#{?#{&&:#{pane_synchronized}," + _SHOWN + "}," + _ONE + ",}},}"
)
"""Non-empty while the pane, or a synchronized pane of its window that tmux shows (and so
copies typed keys to), is in a mode, dead or has its input off."""

GUARD_BYTES = 12_000  # typing per guard: a tmux process's command is about 16 KB in all
_MARK_FIELD = "blocked"

# What tmux names a mode (``pane_mode``), in words.
MODE_WORDS = {
    "copy-mode": "copy mode",
    "view-mode": "view mode (output tmux shows in the pane)",
    "tree-mode": "the choose-tree chooser",
    "buffer-mode": "the choose-buffer chooser",
    "client-mode": "the choose-client chooser",
    "options-mode": "the customize-mode chooser",
    "clock-mode": "clock mode",
}

NO_MODE_TOOL = (
    "No tool of this server leaves a mode: have it left where it was entered (q in the "
    "pane, or `tmux send-keys -t {pane} -X cancel`), then call {tool} again."
)
"""``InputCheck.leave`` for a family with no tool that leaves a mode."""


@dataclass(frozen=True, slots=True)
class InputCheck:
    """How one call's typing is checked and its refusal worded.

    ``tool``: the tool typing; ``leave``: what to do about a mode, with ``{pane}`` and
    ``{tool}`` filled in (the family's own tool, else ``NO_MODE_TOOL``); ``field``: the
    argument that named the pane; ``cohort``: keys (which tmux copies to synchronized
    panes) rather than a paste (which reaches its pane alone); ``note``: said of a pane
    that went away.
    """

    tool: str
    leave: str = NO_MODE_TOOL
    field: str = "pane_id"
    cohort: bool = True
    note: str = ""


def recipients_of(rows: Sequence[PaneRow], target: PaneRow) -> tuple[PaneRow, ...]:
    """``target`` and the panes of its window its typed keys are copied to (synchronized
    and shown: a zoomed window shows only its active pane)."""
    if target.flag("pane_synchronized") is not True:
        return (target,)
    zoomed = target.flag("window_zoomed_flag") is True
    others = [
        row
        for row in rows
        if row.pane_id != target.pane_id
        and row.window_id == target.window_id
        and row.flag("pane_synchronized") is True
        and (row.active or not zoomed)
    ]
    return (target, *sorted(others, key=lambda row: row.index))


def via(row: PaneRow, named: str) -> str:
    """How a refused pane came into the call: named, or synchronized with the named pane."""
    if row.pane_id == named:
        return ""
    return f" (synchronized with {named}, so it would receive the same input)"


def refusal(
    socket: Socket, row: PaneRow, named: str, check: InputCheck, before: str = ""
) -> InputRefused | None:
    """The refusal for input reaching ``row`` (in a call naming pane ``named``), or None
    when it can take input. ``before`` says what was typed before the pane changed."""
    where = f"pane {row.pane_id}{via(row, named)} on tmux {socket}"
    done = f"{before} Nothing more was typed." if before else "Nothing was typed."
    if row.flag("pane_dead") is True:
        return InputRefused(
            f"Refused: {check.tool} into {where}: the pane is dead: {how_it_ended(row)}, and "
            f"remain-on-exit keeps the pane, so nothing reads input there. {done} Restart its "
            "program with respawn_pane, or choose a live pane; capture_pane still reads what "
            "it printed."
        )
    if row.flag("pane_input_off") is True:
        return InputRefused(
            f"Refused: {check.tool} into {where}: tmux has input turned off for it "
            f"(select-pane -d). {done} Turn input back on with `tmux select-pane -e -t "
            f"{row.pane_id}`, or choose another pane."
        )
    if row.count("pane_in_mode") > 0:
        mode = row.text("pane_mode") or "a mode"
        leave = check.leave.format(pane=row.pane_id, tool=check.tool)
        return InputRefused(
            f"Refused: {check.tool} into {where}: the pane is in {MODE_WORDS.get(mode, mode)} "
            f"(tmux's pane_mode {mode}), whose keys the mode takes instead of the program in "
            f"the pane (a paste would reach the program unseen, and the Enter after it go to "
            f"the mode). {done} {leave}"
        )
    return None


def refuse_blocked(socket: Socket, rows: Sequence[PaneRow], named: str, check: InputCheck) -> None:
    """Raise the refusal for the first of ``rows`` (recipients, named pane first) that cannot
    take input now."""
    for row in rows:
        found = refusal(socket, row, named, check)
        if found is not None:
            raise found


def condition(cohort: bool) -> str:
    return COHORT_BLOCKED if cohort else PANE_BLOCKED


def report(pane_id: str) -> tuple[str, ...]:
    """The guard's report: every pane of ``pane_id``'s window, each row marked."""
    return ("list-panes", "-t", pane_id, "-F", MARK + SEP + cached_format(INPUT_FIELDS))


def report_rows(lines: Sequence[str]) -> list[PaneRow] | None:
    """The rows of a guard's report, or None when ``lines`` are no report (it typed)."""
    if not lines or not lines[0].startswith(MARK + SEP):
        return None
    rows = parse_rows(lines, (_MARK_FIELD, *INPUT_FIELDS))
    return [PaneRow({k: v for k, v in raw.items() if k != _MARK_FIELD}) for raw in rows]


def guards(pane_id: str, commands: Sequence[Sequence[str]], cohort: bool) -> list[tuple[str, ...]]:
    """``commands`` typing into ``pane_id``, cut into guarded commands of at most
    ``GUARD_BYTES`` of typing each (one guard, typing nothing, for no command)."""
    groups: list[list[Sequence[str]]] = [[]]
    size = 0
    for command in commands:
        width = len(command_list([command]).encode("utf-8"))
        if groups[-1] and size + width > GUARD_BYTES:
            groups.append([])
            size = 0
        groups[-1].append(command)
        size += width
    return [
        guarded(pane_id, group, condition=condition(cohort), report=report(pane_id))
        for group in groups
    ]


async def type_checked(
    server: Server, pane_id: str, commands: Sequence[Sequence[str]], check: InputCheck
) -> None:
    """Run ``commands`` (typing into ``pane_id``) only while it and, for keys, its
    synchronized panes can take input, in one round trip; else the refusal, nothing typed
    (with no command: the check alone)."""
    each = guards(pane_id, commands, check.cohort)
    replies = await server.pane(pane_id, check.field).run(*each, note=check.note)
    for at, lines in enumerate(replies):
        rows = report_rows(lines)
        if rows is None:
            continue
        target = next((row for row in rows if row.pane_id == pane_id), None)
        if target is None:  # the report lists the pane's window: it went away meanwhile
            raise server.pane(pane_id, check.field).not_found(check.note)
        recipients = recipients_of(rows, target) if check.cohort else (target,)
        before = (
            f"The first {at} of {len(each)} parts of the input were typed before the pane "
            "changed: look at it (capture_pane) before typing the rest."
            if at
            else ""
        )
        for row in recipients:
            found = refusal(server.socket, row, pane_id, check, before)
            if found is not None:
                raise found
        raise InputRefused(  # tmux saw a blocked pane that the rows no longer show
            f"Refused: {check.tool} into pane {pane_id} on tmux {server.socket}: the pane "
            "changed while it was being checked. Nothing was typed. Look at it "
            "(capture_pane), then call again."
        )
