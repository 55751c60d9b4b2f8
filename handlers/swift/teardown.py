"""The swift family's teardown toolset: kill a pane, window or session, clear a pane's
history.

Targets are found as everywhere in this profile (a raw id or a ref, see
``lookup``) before anything changes. Self-protection follows the family:
kill_pane refuses the pane this process runs in; kill_window and kill_session
refuse every target while this process runs inside the same tmux server, since
what a window or session holds can change between check and kill. ``force``
lifts both. Clearing history ends no process and consults no guard.
"""

from __future__ import annotations

from ...generated.swift.models.clear_pane_scrollback import (
    ClearPaneScrollbackInput,
    ClearPaneScrollbackOutput,
)
from ...generated.swift.models.kill_pane import KillPaneInput, KillPaneOutput
from ...generated.swift.models.kill_session import KillSessionInput, KillSessionOutput
from ...generated.swift.models.kill_window import KillWindowInput, KillWindowOutput
from ..tmux.objects.server import Tmux
from ..tmux.policy.guard import Guard
from .lookup import Lookups, given

FORCE = "Pass force: true to go ahead all the same."


class Teardown:
    def __init__(self, tmux: Tmux, lookups: Lookups) -> None:
        self.tmux = tmux
        self.lookups = lookups

    def _guard(self, force: object) -> Guard | None:
        """The guard to ask, or None when ``force`` lifts it."""
        if given(force, False):
            return None
        return Guard(self.lookups().server, self.tmux.environ, caller_shown="")

    async def kill_pane(self, params: KillPaneInput) -> KillPaneOutput:
        lookup = self.lookups()
        pane = await lookup.pane(params.paneId)
        guard = self._guard(params.force)
        if guard is not None:
            await guard.pane("kill_pane", pane.pane_id, override=FORCE)
        await lookup.server.pane(pane.pane_id, "paneId").kill_pane()
        return KillPaneOutput(deleted=True, paneId=pane.pane_id)

    async def kill_window(self, params: KillWindowInput) -> KillWindowOutput:
        lookup = self.lookups()
        window_id = (await lookup.window_links(params.windowId))[0].window_id
        guard = self._guard(params.force)
        if guard is not None:
            await guard.whole_server("kill_window", f"window {window_id}", override=FORCE)
        await lookup.server.window(window_id, "windowId").kill_window()
        return KillWindowOutput(deleted=True, windowId=window_id)

    async def kill_session(self, params: KillSessionInput) -> KillSessionOutput:
        lookup = self.lookups()
        session = await lookup.session(params.session)
        guard = self._guard(params.force)
        if guard is not None:
            what = f"session '{session.name}' ({session.session_id})"
            await guard.whole_server("kill_session", what, override=FORCE)
        await lookup.server.session(session.session_id, "session").kill_session()
        return KillSessionOutput(deleted=True, sessionId=session.session_id)

    async def clear_pane_scrollback(
        self, params: ClearPaneScrollbackInput
    ) -> ClearPaneScrollbackOutput:
        lookup = self.lookups()
        pane_id = await lookup.pane_target(params.paneId)
        await lookup.server.pane(pane_id, "paneId").clear_history()
        return ClearPaneScrollbackOutput(deleted=True, paneId=pane_id)
