"""The rust family's teardown toolset: kill a pane, window or session, clear a pane's
history, set the history limit.

Each target is judged (shape, then existence) before anything changes, and every
tool that ends or wipes something asks the guard first: it refuses, with kind
``self_protection``, a target that is or holds the pane this process runs in. The
family leaves clearing unguarded; here it is guarded like killing.
"""

from __future__ import annotations

from ...errors import InvalidArgument
from ...generated.rust.models.clear_pane_scrollback import (
    ClearPaneScrollbackInput,
    ClearPaneScrollbackOutput,
)
from ...generated.rust.models.kill_pane import KillPaneInput, KillPaneOutput
from ...generated.rust.models.kill_session import KillSessionInput, KillSessionOutput
from ...generated.rust.models.kill_window import KillWindowInput, KillWindowOutput
from ...generated.rust.models.set_history_limit import (
    SetHistoryLimitInput,
    SetHistoryLimitOutput,
)
from ..tmux.objects import HISTORY_LIMIT_MAXIMUM, Session
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.targets import check_pane_id, check_window_id
from ..tmux.policy.guard import Guard

CALLER_SHOWN = 'list_panes shows it with caller "self"'


class Teardown:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    def _guard(self, server: Server) -> Guard:
        return Guard(server, self.tmux.environ, caller_shown=CALLER_SHOWN)

    async def kill_pane(self, params: KillPaneInput) -> KillPaneOutput:
        pane_id = check_pane_id(params.pane, field="pane")
        server = self.tmux.server()
        await self._guard(server).pane("kill_pane", pane_id)
        await server.pane(pane_id, "pane").kill_pane()
        return KillPaneOutput(id=pane_id)

    async def kill_window(self, params: KillWindowInput) -> KillWindowOutput:
        window_id = check_window_id(params.window, field="window")
        server = self.tmux.server()
        await self._guard(server).kill_window(window_id)
        await server.window(window_id, "window").kill_window()
        return KillWindowOutput(id=window_id)

    async def kill_session(self, params: KillSessionInput) -> KillSessionOutput:
        server = self.tmux.server()
        session = await server.find_session(params.session, "session")
        await self._guard(server).kill_session(session.session_id, session.name)
        await server.session(session.session_id, "session").kill_session()
        return KillSessionOutput(id=session.session_id)

    async def clear_pane_scrollback(
        self, params: ClearPaneScrollbackInput
    ) -> ClearPaneScrollbackOutput:
        pane_id = check_pane_id(params.pane, field="pane")
        server = self.tmux.server()
        await self._guard(server).pane("clear_pane_scrollback", pane_id)
        await server.pane(pane_id, "pane").clear_history()
        return ClearPaneScrollbackOutput(pane=pane_id)

    async def set_history_limit(self, params: SetHistoryLimitInput) -> SetHistoryLimitOutput:
        if params.limit > HISTORY_LIMIT_MAXIMUM:
            raise InvalidArgument(
                "limit",
                params.limit,
                f"is more than tmux takes for history-limit ({HISTORY_LIMIT_MAXIMUM})",
                f"Pass a number of lines from 0 to {HISTORY_LIMIT_MAXIMUM}.",
            )
        server = self.tmux.server()
        session_id = None
        scope: Server | Session = server
        if isinstance(params.session, str):
            session_id = (await server.find_session(params.session, "session")).session_id
            scope = server.session(session_id, "session")
        value = await scope.set_history_limit(params.limit)
        return SetHistoryLimitOutput(name="history-limit", target=session_id, value=value)
