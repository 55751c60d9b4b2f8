"""The python profile's resources: the listing tools' answers, read by URI.

Each resource answers with exactly what the matching tool returns (a JSON
resource's result is that tool's result, or the tool's object with the
rows of its children added), so a client gets one shape whichever way it asks.
A target that does not exist is NotFound, which the runtime answers as
resource-not-found.

Every resource can be subscribed to: its watch method starts a watch of the tmux core
(``tmux.objects.live``) on what the URI names, found the way the read finds it, so a
window or session named by a name and an index is found again by them after each event
that may have moved it. A pane a watch saw go is read as gone with what went.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from pydantic import BaseModel

from ...errors import NotFound
from ...generated.python.interface import CompletionKind
from ...generated.python.models.capture_pane import CapturePaneInput
from ...generated.python.models.get_pane_info import GetPaneInfoInput
from ...generated.python.models.get_session_info import GetSessionInfoInput
from ...generated.python.models.get_window_info import GetWindowInfoInput
from ...generated.python.models.list_panes import ListPanesInput
from ...generated.python.models.list_sessions import ListSessionsInput
from ...generated.python.models.list_windows import ListWindowsInput
from ...generated.python.models.resource_get_pane import (
    GetPaneResourceResult,
    GetPaneResourceVariables,
)
from ...generated.python.models.resource_get_pane_content import GetPaneContentResourceVariables
from ...generated.python.models.resource_get_session import (
    GetSessionResourceResult,
    GetSessionResourceVariables,
)
from ...generated.python.models.resource_get_session_windows import (
    GetSessionWindowsResourceResult,
    GetSessionWindowsResourceVariables,
)
from ...generated.python.models.resource_get_sessions import (
    GetSessionsResourceResult,
    GetSessionsResourceVariables,
)
from ...generated.python.models.resource_get_window import (
    GetWindowResourceResult,
    GetWindowResourceVariables,
)
from ...seam import Call, Changes, Watching
from ..tmux.errors import NoServer
from ..tmux.errors import NotFound as Missing
from ..tmux.objects.live import Place
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.targets import check_pane_id
from .pane_text import PaneTextTools
from .panes import PaneTools
from .sessions import SessionTools
from .windows import WindowTools


@asynccontextmanager
async def missing_server_is_not_found() -> AsyncIterator[None]:
    """A missing server is the resource's absence, as a missing pane, window or session
    is (the core's ``NotFound`` is the runtime's)."""
    try:
        yield
    except NoServer as exc:
        raise NotFound(exc.message) from None


def _json(model: BaseModel) -> Any:
    return model.model_dump(mode="json", by_alias=True)


NO_CALL = Call()
"""A resource read is no tools/call: no progress to report, and its answer is no tool's."""


class Resources:
    """Resources answered by the session, window, pane and pane text tools, called as a
    client would."""

    def __init__(
        self,
        tmux: Tmux,
        sessions: SessionTools,
        windows: WindowTools,
        panes: PaneTools,
        text: PaneTextTools,
    ) -> None:
        self.tmux = tmux
        self.sessions = sessions
        self.windows = windows
        self.panes = panes
        self.text = text

    async def resource_get_sessions(
        self, variables: GetSessionsResourceVariables
    ) -> GetSessionsResourceResult:
        async with missing_server_is_not_found():
            sessions = await self.sessions.list_sessions(
                NO_CALL, ListSessionsInput(socket_name=variables.socket_name)
            )
        return GetSessionsResourceResult.model_validate(_json(sessions)["result"])

    async def resource_get_session(
        self, variables: GetSessionResourceVariables
    ) -> GetSessionResourceResult:
        name, socket_name = variables.session_name, variables.socket_name
        async with missing_server_is_not_found():
            session = await self.sessions.get_session_info(
                NO_CALL, GetSessionInfoInput(session_name=name, socket_name=socket_name)
            )
            windows = await self.windows.list_windows(
                NO_CALL, ListWindowsInput(session_id=session.session_id, socket_name=socket_name)
            )
        return GetSessionResourceResult.model_validate(
            {**_json(session), "windows": _json(windows)["result"]}
        )

    async def resource_get_session_windows(
        self, variables: GetSessionWindowsResourceVariables
    ) -> GetSessionWindowsResourceResult:
        async with missing_server_is_not_found():
            windows = await self.windows.list_windows(
                NO_CALL,
                ListWindowsInput(
                    session_name=variables.session_name, socket_name=variables.socket_name
                ),
            )
        return GetSessionWindowsResourceResult.model_validate(_json(windows)["result"])

    async def resource_get_window(
        self, variables: GetWindowResourceVariables
    ) -> GetWindowResourceResult:
        socket_name = variables.socket_name
        async with missing_server_is_not_found():
            window = await self.windows.get_window_info(
                NO_CALL,
                GetWindowInfoInput(
                    session_name=variables.session_name,
                    window_index=variables.window_index,
                    socket_name=socket_name,
                ),
            )
            panes = (
                await self.panes.list_panes(
                    NO_CALL, ListPanesInput(window_id=window.window_id, socket_name=socket_name)
                )
            ).model
        return GetWindowResourceResult.model_validate(
            {**_json(window), "panes": _json(panes)["result"]}
        )

    async def resource_get_pane(self, variables: GetPaneResourceVariables) -> GetPaneResourceResult:
        async with missing_server_is_not_found(), self._departed(variables):
            pane = (
                await self.panes.get_pane_info(
                    NO_CALL,
                    GetPaneInfoInput(pane_id=variables.pane_id, socket_name=variables.socket_name),
                )
            ).model
        return GetPaneResourceResult.model_validate(_json(pane))

    async def resource_get_pane_content(self, variables: GetPaneContentResourceVariables) -> str:
        async with missing_server_is_not_found(), self._departed(variables):
            screen = await self.text.capture_pane(
                NO_CALL,
                CapturePaneInput(
                    pane_id=variables.pane_id, socket_name=variables.socket_name, max_lines=None
                ),
            )
        return screen.result

    @asynccontextmanager
    async def _departed(
        self, variables: GetPaneResourceVariables | GetPaneContentResourceVariables
    ) -> AsyncIterator[None]:
        """A pane a subscriber's watch saw go is not found with what went (its window, its
        session, or itself)."""
        try:
            yield
        except NotFound:
            server = self.tmux.server(variables.socket_name)
            departed = server.live.departed(variables.pane_id)
            if departed is not None:
                raise departed from None
            raise

    # --- watching, for subscribers ----------------------------------------------------------

    async def watch_resource_get_sessions(
        self, variables: GetSessionsResourceVariables, changes: Changes
    ) -> Watching:
        async with missing_server_is_not_found():
            return await self.tmux.server(variables.socket_name).live.sessions(changes)

    async def watch_resource_get_session(
        self, variables: GetSessionResourceVariables, changes: Changes
    ) -> Watching:
        return await self._watch_session(variables.session_name, variables.socket_name, changes)

    async def watch_resource_get_session_windows(
        self, variables: GetSessionWindowsResourceVariables, changes: Changes
    ) -> Watching:
        return await self._watch_session(variables.session_name, variables.socket_name, changes)

    async def _watch_session(
        self, name: str, socket_name: str | None, changes: Changes
    ) -> Watching:
        async def resolve() -> Place:
            session = await self.sessions.get_session_info(
                NO_CALL, GetSessionInfoInput(session_name=name, socket_name=socket_name)
            )
            return Place(session.session_id)

        async with missing_server_is_not_found():
            return await self.tmux.server(socket_name).live.session(resolve, changes)

    async def watch_resource_get_window(
        self, variables: GetWindowResourceVariables, changes: Changes
    ) -> Watching:
        socket_name = variables.socket_name
        window_input = GetWindowInfoInput(
            session_name=variables.session_name,
            window_index=variables.window_index,
            socket_name=socket_name,
        )

        async def resolve() -> Place:
            window = await self.windows.get_window_info(NO_CALL, window_input)
            if window.session_id is None:  # tmux always names it; the schema allows null
                raise Missing("window", window.window_id, socket=self._server(socket_name).socket)
            return Place(window.session_id, window.window_id)

        async with missing_server_is_not_found():
            return await self._server(socket_name).live.window(resolve, changes)

    async def watch_resource_get_pane(
        self, variables: GetPaneResourceVariables, changes: Changes
    ) -> Watching:
        return await self._watch_pane(variables.pane_id, variables.socket_name, changes)

    async def watch_resource_get_pane_content(
        self, variables: GetPaneContentResourceVariables, changes: Changes
    ) -> Watching:
        return await self._watch_pane(variables.pane_id, variables.socket_name, changes)

    async def _watch_pane(
        self, pane_id: str, socket_name: str | None, changes: Changes
    ) -> Watching:
        async with missing_server_is_not_found():
            return await self._server(socket_name).live.pane(
                check_pane_id(pane_id), "pane_id", changes
            )

    def _server(self, socket_name: str | None) -> Server:
        return self.tmux.server(socket_name)

    # --- completion -----------------------------------------------------------------------

    async def complete_argument(
        self, kind: CompletionKind, value: str, context: Mapping[str, str]
    ) -> list[str]:
        """Live ids, names or indexes of the server the context's socket_name names."""
        server = self.tmux.server(context.get("socket_name") or None)
        pool: Sequence[str]
        if kind == "pane_id":
            pool = [row.pane_id for row in await server.list_panes("-a", fields=("pane_id",))]
        elif kind == "session_name":
            pool = [row.name for row in await server.list_sessions()]
        else:
            links = await server.list_windows("-a")
            session = context.get("session_name")
            if session:
                links = [link for link in links if link["session_name"] == session]
            pool = [str(link.index) for link in links]
        unique = dict.fromkeys(item for item in pool if item.startswith(value))
        return sorted(unique, key=_natural)


def _natural(text: str) -> tuple[int, int | str]:
    """Numbers in numeric order (%2 before %10), names alphabetically."""
    digits = text.lstrip("%$@")
    return (0, int(digits)) if digits.isdigit() else (1, text)
