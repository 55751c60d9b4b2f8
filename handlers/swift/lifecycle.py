"""Where this process runs, and its end: the core closed, then the server it started killed."""

from __future__ import annotations

from contextlib import suppress

from ...errors import ToolError
from ..tmux.core import Tmux, TmuxHandlers
from .launch import Pin


class Lifecycle(TmuxHandlers):
    """The core's part (``instruction_facts``, ``aclose``), plus the dedicated server's end:
    once every tmux client of this process is gone, the server it started is killed."""

    def __init__(self, tmux: Tmux, pin: Pin) -> None:
        super().__init__(tmux)
        self.pin = pin

    async def aclose(self) -> None:
        try:
            await super().aclose()
        finally:
            with suppress(ToolError):  # tmux gone or unanswering at exit: nothing left to kill
                await self.pin.release()
