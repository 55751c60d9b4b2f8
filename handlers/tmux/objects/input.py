"""Typing and pasting into panes, shared by every profile that offers it.

Who receives input: ``send-keys`` into a pane whose synchronize-panes is on
also reaches every other synchronized pane of its window that tmux shows
(a zoomed window shows only its active pane). tmux reads the option per pane,
so a pane's own value (tmux 3.2 and newer) wins over its window's; the
``pane_synchronized`` format is that value. ``paste-buffer`` reaches only
its target.

When input must not be sent, before anything is typed, for every recipient:
it is dead, its input is off, it is in a mode (copy mode...) (``blocked`` words
these three, and tmux checks them again in the command that types), a person may be
looking at it through an attached tmux client (control clients, this process's
own among them, are programs, not people), it is the pane this MCP server runs
in, or a tool of this process holds it (``Ledger``: a send under way, or a
command typed by a run whose call has returned; a lone interrupt key still goes
through, to stop what holds it). One refusal refuses the whole call. Input that
must reach its pane alone (a command line whose output is read back) is refused
when synchronize-panes would copy it to other panes.

Every user value reaches tmux as an argument of its own after ``--``:
``send-keys -l`` types text as characters, a key name is one argument, and
paste text goes into a buffer with ``set-buffer``, none of which expand formats.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio

from ....errors import InvalidArgument, ToolError
from ..errors import GONE_DURING_CALL, CommandFailed, InputRefused, Refused
from ..transport.quoting import CHUNK_BYTES, pieces
from ..transport.sockets import Socket
from .blocked import (
    INPUT_FIELDS,
    NO_MODE_TOOL,
    InputCheck,
    recipients_of,
    refusal,
    type_checked,
    via,
)
from .rows import PaneRow, pane_rows

if TYPE_CHECKING:
    from .server import Server, Tmux
from ..policy.guard import Guard, Place
from ..policy.ledger import Ledger
from ..transport.formats import cached_format, format_of, parse_rows

_VIEWER_FIELDS = ("client_name", "client_control_mode", "session_name", "window_id")

# Keys that interrupt what runs in a pane: sent alone, they pass a reservation.
INTERRUPTS: frozenset[tuple[str, ...]] = frozenset({("C-c",), ("C-\\",)})

_buffers = itertools.count(1)
NOTHING_TYPED = "nothing was typed"


@dataclass(frozen=True, slots=True)
class Typing:
    """What one call types: ``text`` as characters, then ``keys`` by name, then Enter."""

    text: str = ""
    keys: tuple[str, ...] = ()
    enter: bool = False

    @property
    def empty(self) -> bool:
        return not self.text and not self.keys and not self.enter

    @property
    def interrupt(self) -> bool:
        """Only an interrupt key: it may reach a pane a running command holds."""
        return not self.text and not self.enter and self.keys in INTERRUPTS

    def commands(self, pane_id: str) -> list[tuple[str, ...]]:
        """The send-keys commands, in order: text in pieces, key names, Enter."""
        found: list[tuple[str, ...]] = [
            ("send-keys", "-l", "-t", pane_id, "--", piece) for piece in pieces(self.text)
        ]
        names = [*self.keys, *(("Enter",) if self.enter else ())]
        group: list[str] = []
        size = 0
        for name in names:
            width = len(name.encode("utf-8"))
            if group and size + width > CHUNK_BYTES:
                found.append(("send-keys", "-t", pane_id, "--", *group))
                group, size = [], 0
            group.append(name)
            size += width
        if group:
            found.append(("send-keys", "-t", pane_id, "--", *group))
        return found

    def submitted_lines(self) -> list[str]:
        """The lines this input submits with Enter (for the echo a wait discounts)."""
        return self.text.split("\n") if self.enter else []


@dataclass(frozen=True, slots=True)
class Recipients:
    """The pane named, then the other panes tmux copies its typed input to."""

    pane: PaneRow
    panes: tuple[PaneRow, ...]

    @property
    def ids(self) -> list[str]:
        return [row.pane_id for row in self.panes]


class PaneInput:
    """Checks and sends input for one profile: its ``Tmux``, the caller's place, its ``Ledger``.

    In a profile whose calls take ``force`` (``forceable``), it lifts the one check a
    caller may lift: that a recipient is the pane this MCP server runs in (never the
    doubt whether it is). ``leave`` is the family's way out of a mode, as a refusal
    says it (``blocked.InputCheck``).
    """

    def __init__(
        self, tmux: Tmux, ledger: Ledger, *, forceable: bool = False, leave: str = NO_MODE_TOOL
    ) -> None:
        self.tmux = tmux
        self.ledger = ledger
        self.forceable = forceable
        self.leave = leave

    def input_check(self, tool: str, field: str, *, cohort: bool) -> InputCheck:
        """How ``tool``'s typing into the pane ``field`` names is checked by tmux as it types."""
        return InputCheck(tool, self.leave, field, cohort, GONE_DURING_CALL)

    async def typed(
        self,
        server: Server,
        pane_id: str,
        commands: Sequence[Sequence[str]],
        *,
        tool: str,
        field: str,
        cohort: bool = True,
    ) -> None:
        """Run ``commands`` typing into ``pane_id`` while tmux finds it (and, for keys, its
        synchronized panes) able to take input, in the same command (``blocked``)."""
        await type_checked(server, pane_id, commands, self.input_check(tool, field, cohort=cohort))

    async def recipients(
        self, server: Server, pane_id: str, *, field: str, amplify: bool
    ) -> tuple[Recipients, list[dict[str, str]]]:
        """The recipients of input to ``pane_id`` (its synchronized panes too only if ``amplify``) and the
        tmux clients attached now, in one round trip."""
        try:
            panes, clients = await server.run_many(
                ("list-panes", "-t", pane_id, "-F", cached_format(INPUT_FIELDS)),
                ("list-clients", "-F", format_of(_VIEWER_FIELDS)),
            )
        except CommandFailed as exc:
            if exc.not_found:
                raise server.pane(pane_id, field).not_found(NOTHING_TYPED) from None
            raise
        rows = pane_rows(panes, INPUT_FIELDS)
        target = next((row for row in rows if row.pane_id == pane_id), None)
        if target is None:
            raise server.pane(pane_id, field).not_found(NOTHING_TYPED)
        panes_reached = recipients_of(rows, target) if amplify else (target,)
        return Recipients(target, panes_reached), parse_rows(clients, _VIEWER_FIELDS)

    async def check(
        self,
        server: Server,
        pane_id: str,
        *,
        tool: str,
        field: str,
        amplify: bool,
        force: bool = False,
        interrupt: bool = False,
        held: bool = False,
        alone: bool = False,
    ) -> Recipients:
        """The recipients, once every check has passed (else the refusal, nothing typed).

        ``interrupt``: the input is a lone interrupt key, which may reach a held pane;
        ``held``: the caller holds the recipients itself (a check made again);
        ``alone``: the input must reach ``pane_id`` only, so synchronized panes are refused.
        """
        found, clients = await self.recipients(server, pane_id, field=field, amplify=amplify)
        if alone:
            _check_alone(server.socket, found, tool)
        check = self.input_check(tool, field, cohort=amplify)
        for row in found.panes:
            refused = refusal(server.socket, row, pane_id, check)
            if refused is not None:
                raise refused
        for row in found.panes:
            _check_viewers(server.socket, row, clients, tool)
        if not (interrupt or held):
            for row in found.panes:
                self._check_free(server.socket, row, found, tool)
        await self._check_caller(server, found, tool, force)
        return found

    def _check_free(self, socket: Socket, row: PaneRow, found: Recipients, tool: str) -> None:
        holder = self.ledger.holder(row.pane_id)
        if holder is not None:
            raise InputRefused(
                f"Refused: {tool} into pane {row.pane_id}{via(row, found.pane.pane_id)} on tmux "
                f"{socket}: {holder} of this MCP server is using it (a command it typed "
                "may still run after its call returned), and input now would land inside that. "
                "Nothing was typed. Wait for it to finish (wait_for_text), stop it with send_keys "
                "sending the key C-c alone, or choose another pane."
            )

    async def _check_caller(
        self, server: Server, found: Recipients, tool: str, force: bool
    ) -> None:
        where = await Guard(server, self.tmux.environ).locate()
        if where.place is Place.UNSURE:
            raise Refused(
                f"Refused: {tool} on tmux {server.socket}: cannot rule out that the pane this MCP "
                f"server runs in is among {', '.join(found.ids)} ({where.reason}). Nothing was "
                "typed. Start the MCP server with the TMUX and TMUX_PANE tmux sets in its pane, "
                "or outside tmux."
            )
        if where.place is Place.HERE and where.pane_id in found.ids and not force:
            row = next(row for row in found.panes if row.pane_id == where.pane_id)
            raise Refused(
                f"Refused: {tool} into pane {where.pane_id}{via(row, found.pane.pane_id)} on tmux "
                f"{server.socket}: it is the pane this MCP server runs in (TMUX_PANE), and the "
                "input would reach this server's own terminal. Nothing was typed. Choose another "
                "pane" + (", or pass force: true if that is meant." if self.forceable else ".")
            )

    @contextmanager
    def holding(
        self, server: Server, found: Recipients, tool: str, interrupt: bool = False
    ) -> Iterator[None]:
        """Hold the recipients for ``tool`` while the block types into them; a pane taken
        since the check refuses the call (an interrupt leaves the holder its pane)."""
        with ExitStack() as stack:
            for row in found.panes:
                if self.ledger.holder(row.pane_id) is None:
                    stack.enter_context(self.ledger.reserve(row.pane_id, tool))
                elif not interrupt:
                    self._check_free(server.socket, row, found, tool)
            yield

    async def send(
        self,
        server: Server,
        pane_id: str,
        typing: Typing,
        *,
        tool: str,
        field: str,
        force: bool = False,
    ) -> Recipients:
        """Type ``typing`` into ``pane_id`` after every check; the recipients it reached."""
        found = await self.check(
            server,
            pane_id,
            tool=tool,
            field=field,
            amplify=True,
            force=force,
            interrupt=typing.interrupt,
        )
        commands = typing.commands(pane_id)
        with self.holding(server, found, tool, typing.interrupt):
            await self.typed(server, pane_id, commands, tool=tool, field=field)
        lines = typing.submitted_lines()
        if lines:
            for recipient in found.ids:
                self.ledger.submitted(recipient, lines)
        return found

    async def paste(
        self,
        server: Server,
        pane_id: str,
        text: str,
        *,
        enter: bool,
        tool: str,
        field: str,
        force: bool = False,
    ) -> Recipients:
        """Paste ``text`` (and a newline, for ``enter``) into ``pane_id`` alone, bracketed,
        through a buffer of this call that is always deleted; checked before the buffer is
        made and again just before the paste."""
        found = await self.check(
            server, pane_id, tool=tool, field=field, amplify=False, force=force
        )
        data = text + ("\n" if enter else "")
        if not data:
            return found
        buffer = server.buffer(f"tmux-mcp-{os.getpid()}-{next(_buffers)}")
        pasted = False
        with self.holding(server, found, tool):
            try:
                await buffer.set_buffer(data)
                await self.check(
                    server, pane_id, tool=tool, field=field, amplify=False, force=force, held=True
                )
                pane = server.pane(pane_id, field)
                check = self.input_check(tool, field, cohort=False)
                await buffer.paste_buffer(pane, bracket=True, delete=True, check=check)
                pasted = True  # -d deleted the buffer
            finally:
                if not pasted:  # one never made, or the server gone, leaves nothing to delete
                    with anyio.CancelScope(shield=True), suppress(ToolError):
                        await buffer.delete_buffer()
        if enter:
            self.ledger.submitted(pane_id, text.split("\n"))
        return found


def _check_alone(socket: Socket, found: Recipients, tool: str) -> None:
    """Refuse when synchronize-panes would copy the input to more panes than the one named."""
    if len(found.panes) == 1:
        return
    pane = found.pane
    others = ", ".join(found.ids[1:])
    raise InputRefused(
        f"Refused: {tool} into pane {pane.pane_id} on tmux {socket}: synchronize-panes "
        f"copies what is typed there to {others} in window {pane.window_id}, and {tool} must "
        "type into one pane alone. Nothing was typed. Turn synchronize-panes off for the window "
        "(set_synchronize_panes), or choose a pane that is not synchronized."
    )


def _check_viewers(socket: Socket, row: PaneRow, clients: list[dict[str, str]], tool: str) -> None:
    """Refuse when an attached, non-control client shows ``row``: its window is that
    client's current window and, when the window is zoomed, ``row`` is the pane shown."""
    if row.flag("window_zoomed_flag") is True and not row.active:
        return
    for client in clients:
        if client["client_control_mode"] == "1" or client["window_id"] != row.window_id:
            continue
        raise InputRefused(
            f"Refused: {tool} into pane {row.pane_id} on tmux {socket}: tmux client "
            f"{client['client_name']} shows it (session {client['session_name']!r}), so a person "
            "may be typing there too. Nothing was typed. Choose a pane no attached client is "
            "showing, or have that client detach or switch window."
        )


def sends_something(typing: Typing, field: str, value: object, next_step: str) -> Typing:
    """``typing``, refused (naming ``field``) when it would send nothing at all."""
    if typing.empty:
        raise InvalidArgument(field, value, "sends nothing", next_step)
    return typing


# Operations in one send_keys_batch: both families state it in prose only, not the schema.
BATCH_MAX = 64


def check_batch_size(count: int) -> None:
    """Refuse a send_keys_batch of no operation or more than ``BATCH_MAX``, before any runs."""
    if not 1 <= count <= BATCH_MAX:
        raise InvalidArgument(
            "operations",
            f"{count} operations",
            f"must hold 1 to {BATCH_MAX} operations",
            f"Send at least one, and split more than {BATCH_MAX} into several batches.",
        )
