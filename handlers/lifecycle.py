"""The part every profile's handlers are composed with: where this process runs, and
the end of its tmux clients when the server stops."""

from __future__ import annotations

from .tmux.objects import Tmux

SCOPE_FIELDS = ("session_id", "session_name", "window_id", "pane_id")


class Lifecycle:
    """The part every profile's handlers are composed with: where this process runs
    (``instruction_facts``) and the one ``Tmux``, closed when the server stops (``aclose``)."""

    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    def instruction_facts(self) -> dict[str, str]:
        """What the server instructions may state about where this process runs."""
        return self.tmux.caller.facts()

    async def scope_rows(self, socket: str | None) -> list[tuple[str, str, str, str]]:
        """Every pane of the server as (session id, session name, window id, pane id), read
        with one listing, for the scope of a configuration file."""
        rows = await self.tmux.server(socket).list_panes("-a", fields=SCOPE_FIELDS)
        return [
            (row.raw["session_id"], row.raw["session_name"], row.raw["window_id"], row.pane_id)
            for row in rows
        ]

    async def aclose(self) -> None:
        await self.tmux.aclose()
