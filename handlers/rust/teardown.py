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
from ..tmux import teardown
from ..tmux.core import Server, Tmux
from ..tmux.formats import SessionRow
from ..tmux.policy.guard import Guard
from ..tmux.targets import check_pane_id, check_window_id, session_row

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
        await teardown.kill_pane(server, pane_id, "pane")
        return KillPaneOutput(id=pane_id)

    async def kill_window(self, params: KillWindowInput) -> KillWindowOutput:
        window_id = check_window_id(params.window, field="window")
        server = self.tmux.server()
        await self._guard(server).kill_window(window_id)
        await teardown.kill_window(server, window_id, "window")
        return KillWindowOutput(id=window_id)

    async def kill_session(self, params: KillSessionInput) -> KillSessionOutput:
        server = self.tmux.server()
        session = await find_session(server, params.session, "session")
        await self._guard(server).kill_session(session.session_id, session.name)
        await teardown.kill_session(server, session.session_id, "session")
        return KillSessionOutput(id=session.session_id)

    async def clear_pane_scrollback(
        self, params: ClearPaneScrollbackInput
    ) -> ClearPaneScrollbackOutput:
        pane_id = check_pane_id(params.pane, field="pane")
        server = self.tmux.server()
        await self._guard(server).pane("clear_pane_scrollback", pane_id)
        await teardown.clear_history(server, pane_id, "pane")
        return ClearPaneScrollbackOutput(pane=pane_id)

    async def set_history_limit(self, params: SetHistoryLimitInput) -> SetHistoryLimitOutput:
        if params.limit > teardown.HISTORY_LIMIT_MAXIMUM:
            raise InvalidArgument(
                "limit",
                params.limit,
                f"is more than tmux takes for history-limit ({teardown.HISTORY_LIMIT_MAXIMUM})",
                f"Pass a number of lines from 0 to {teardown.HISTORY_LIMIT_MAXIMUM}.",
            )
        server = self.tmux.server()
        session_id = None
        if isinstance(params.session, str):
            session_id = (await find_session(server, params.session, "session")).session_id
        value = await teardown.set_history_limit(server, params.limit, session_id)
        return SetHistoryLimitOutput(name="history-limit", target=session_id, value=value)


async def find_session(server: Server, value: str, field: str) -> SessionRow:
    """The session ``value`` names: its ``$`` id, else its exact name."""
    return session_row(await server.list_sessions(), value, socket=server.socket, field=field)
