"""Whether input typed into one pane reaches that pane alone, and only a pane free to take it.

run_shell_command types a whole line and reads back what it prints, so before
typing it (and again right before) the pane must be: alive, not in a mode
(copy mode would swallow the keys), taking input, not in view of a person at a
real tmux client (control clients, this process's among them, do not count),
the only recipient (no other pane of its window synchronized with it), not
reserved by another run of this process, and not the pane this MCP server runs
in unless the caller says so (``allow_self``).
"""

from __future__ import annotations

from collections.abc import Mapping

from ...errors import ToolError
from .core import Server
from .errors import UnknownTarget
from .formats import SERVER_FIELDS, PaneRow, format_of, parse_rows
from .guard import Guard, Place, Refused
from .ledger import Ledger

FIELDS = (
    "pane_id",
    "window_id",
    "session_id",
    "pane_pid",
    "pane_active",
    "pane_dead",
    "pane_dead_status",
    "pane_in_mode",
    "pane_input_off",
    "pane_synchronized",
    "pane_current_command",
    "alternate_on",
    "window_zoomed_flag",
    "history_size",
    "cursor_y",
    *SERVER_FIELDS,
)


async def pane_now(server: Server, pane_id: str) -> PaneRow | None:
    return await server.pane(pane_id, FIELDS)


def missing(server: Server, pane_id: str) -> UnknownTarget:
    return UnknownTarget(
        f"No pane {pane_id} on tmux {server.socket}. Call list_panes to see the panes that exist."
    )


async def check_sole_input(
    server: Server,
    pane_id: str,
    environ: Mapping[str, str],
    ledger: Ledger,
    tool: str,
    *,
    allow_self: bool = False,
    held_by_caller: bool = False,
) -> PaneRow:
    """The pane, once every rule of the module holds; else the refusal naming the rule.

    ``held_by_caller``: the caller holds the pane's reservation itself (a run checking
    again right before it types), so the reservation is no refusal.
    """
    pane = await pane_now(server, pane_id)
    if pane is None:
        raise missing(server, pane_id)
    where = f"Pane {pane_id} on tmux {server.socket}"
    holder = None if held_by_caller else ledger.holder(pane_id)
    if holder is not None:
        raise ToolError(
            f"{where} is still running a command {holder} typed (its wait ended, the command "
            "did not). Wait for it (wait_for_text), interrupt it (send_keys with keys ['C-c'] "
            "alone), or use another pane.",
            kind="refused",
        )
    if pane["pane_dead"] == "1":
        raise ToolError(
            f"{where} is dead: its program exited and remain-on-exit keeps it. Respawn it "
            "(respawn_pane) or use another pane.",
            kind="refused",
        )
    if pane["pane_in_mode"] == "1":
        raise ToolError(
            f"{where} is in copy mode (or another mode), where typed keys do not reach its "
            "program. Leave the mode first (send_keys with keys ['q']), or use another pane.",
            kind="refused",
        )
    if pane["pane_input_off"] == "1":
        raise ToolError(
            f"{where} has input turned off (select-pane -d). Turn it on (select-pane -e) or "
            "use another pane.",
            kind="refused",
        )
    if pane["pane_synchronized"] == "1":
        others = await synchronized_with(server, pane)
        if others:
            raise ToolError(
                f"{where} is synchronized with {', '.join(others)} in its window "
                f"{pane.window_id}: a line typed there would reach them too. Turn "
                "synchronize-panes off for the window (set_synchronize_panes) or use a pane "
                "that is not synchronized.",
                kind="refused",
            )
    viewer = await viewed_by(server, pane)
    if viewer is not None:
        raise ToolError(
            f"{where} is on screen at tmux client {viewer}, where a person may be typing. "
            "Use a pane nobody is viewing, or ask the person to detach or switch windows.",
            kind="refused",
        )
    if not allow_self:
        await refuse_own_pane(server, environ, pane_id, tool)
    return pane


async def synchronized_with(server: Server, pane: PaneRow) -> list[str]:
    """The other panes of the window that get what is typed into ``pane``."""
    fields = ("pane_id", "pane_synchronized")
    rows = parse_rows(
        await server.run("list-panes", "-t", pane.window_id, "-F", format_of(fields)), fields
    )
    return [
        row["pane_id"]
        for row in rows
        if row["pane_id"] != pane.pane_id and row["pane_synchronized"] == "1"
    ]


async def viewed_by(server: Server, pane: PaneRow) -> str | None:
    """A real client (not this process's) showing ``pane``, if any: one on its window,
    unless the window is zoomed on another pane."""
    if pane["window_zoomed_flag"] == "1" and pane["pane_active"] != "1":
        return None
    for client in await server.clients():
        if client.window_id == pane.window_id:
            return client.name
    return None


async def refuse_own_pane(
    server: Server, environ: Mapping[str, str], pane_id: str, tool: str
) -> None:
    """``self_protection`` when ``pane_id`` is (or cannot be ruled out as) this server's own."""
    where = await Guard(server, environ).locate()
    if where.place is Place.UNSURE:
        raise Refused(
            f"Refused: {tool} into pane {pane_id} on tmux {server.socket}: cannot rule out "
            f"that it is the pane this MCP server runs in ({where.reason}), and typing there "
            "would feed this server its own input. Start the MCP server with the TMUX and "
            "TMUX_PANE tmux sets, or outside tmux."
        )
    if where.place is Place.HERE and where.pane_id == pane_id:
        raise Refused(
            f"Refused: pane {pane_id} on tmux {server.socket} is the pane this MCP server runs "
            f"in (TMUX_PANE): {tool} would type into its own input. Use another pane."
        )
