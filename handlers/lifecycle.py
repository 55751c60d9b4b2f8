"""The part every profile's handlers are composed with: where this process runs, and
the end of its tmux clients when the server stops."""

from __future__ import annotations

from .tmux.objects import Tmux


class Lifecycle:
    """The part every profile's handlers are composed with: where this process runs
    (``instruction_facts``) and the one ``Tmux``, closed when the server stops (``aclose``)."""

    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    def instruction_facts(self) -> dict[str, str]:
        """What the server instructions may state about where this process runs."""
        return self.tmux.caller.facts()

    async def aclose(self) -> None:
        await self.tmux.aclose()
