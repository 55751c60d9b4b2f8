"""The swift profile's handlers: one socket per process, camelCase shapes, refs beside ids."""

from __future__ import annotations

from typing import Any

import anyio
from pydantic import MISSING

from ...errors import InvalidArgument
from ...generated.swift.interface import SwiftProfileHandlers
from ...generated.swift.models.call_read_tools_batch import (
    CallReadToolsBatchInput,
    CallReadToolsBatchOutput,
)
from ...generated.swift.models.capture_pane import CapturePaneInput, CapturePaneOutput
from ...generated.swift.models.capture_since import CaptureSinceInput, CaptureSinceOutput
from ...generated.swift.models.find_pane_by_position import (
    FindPaneByPositionInput,
    FindPaneByPositionOutput,
)
from ...generated.swift.models.get_pane_info import GetPaneInfoInput, GetPaneInfoOutput
from ...generated.swift.models.get_server_info import GetServerInfoInput, GetServerInfoOutput
from ...generated.swift.models.get_session_info import GetSessionInfoInput, GetSessionInfoOutput
from ...generated.swift.models.get_tmux_variables import (
    GetTmuxVariablesInput,
    GetTmuxVariablesOutput,
)
from ...generated.swift.models.get_window_info import GetWindowInfoInput, GetWindowInfoOutput
from ...generated.swift.models.list_panes import ListPanesInput, ListPanesOutput
from ...generated.swift.models.list_sessions import ListSessionsInput, ListSessionsOutput
from ...generated.swift.models.list_windows import ListWindowsInput, ListWindowsOutput
from ...generated.swift.models.search_panes import SearchPanesInput, SearchPanesOutput
from ...generated.swift.models.show_environment import ShowEnvironmentInput, ShowEnvironmentOutput
from ...generated.swift.models.show_hooks import ShowHooksInput, ShowHooksOutput
from ...generated.swift.models.show_option import ShowOptionInput, ShowOptionOutput
from ...generated.swift.models.snapshot_pane import SnapshotPaneInput, SnapshotPaneOutput
from ...reply import Reply
from ..batch import Batch
from ..tmux import capture, panes, search, settings
from ..tmux.core import Tmux, TmuxHandlers
from ..tmux.errors import NoServer
from ..tmux.formats import SEP, PaneRow, counts_clients, each_pane_once, parse_rows
from ..tmux.refs import Refs
from ..tmux.targets import Window
from ..tmux.waits import WatchLost
from . import shapes
from .batch import SwiftRows, run_batch
from .lookup import Lookup

DEFAULT_SCROLLBACK = 500
# Format variables that count clients, recomputed without this process's own clients
# (output clients of waits in progress included).
CLIENT_COUNTS = frozenset(
    {
        "session_attached",
        "session_many_attached",
        "session_attached_list",
        "window_active_clients",
        "window_active_clients_list",
    }
)
DEFAULT_MATCHES_PER_PANE = 20
MAX_WAIT_MS = 10_000


def given(value: Any, default: Any = None) -> Any:
    """An optional argument's value, or ``default`` when the caller left it out."""
    return default if value is MISSING else value


class SwiftHandlers(TmuxHandlers, SwiftProfileHandlers):
    def __init__(self, tmux: Tmux, refs: Refs | None = None) -> None:
        super().__init__(tmux)
        self.refs = refs or Refs()
        self.batch = Batch("swift", self, SwiftRows(), tmux.environ)

    @property
    def lookup(self) -> Lookup:
        return Lookup(self.tmux.server(), self.refs)

    # --- panes -------------------------------------------------------------------------

    async def get_pane_info(self, params: GetPaneInfoInput) -> GetPaneInfoOutput:
        row = await self.lookup.pane(params.paneId)
        return GetPaneInfoOutput.model_validate({"pane": shapes.pane(self.refs, row)})

    async def list_panes(self, params: ListPanesInput) -> ListPanesOutput:
        lookup = self.lookup
        session = given(params.session)
        window = given(params.window)
        session_row = await lookup.session(session) if session is not None else None
        if window is not None:
            rows = await lookup.window_panes(window, "window")
            if session_row is not None:
                links = await lookup.window_links(window, "window")
                if session_row.session_id not in {link.session_id for link in links}:
                    raise InvalidArgument(
                        "window",
                        window,
                        f"is not a window of session {session_row.name!r} ({session_row.session_id})",
                        "Pass only one of session and window, or a window of that session.",
                    )
        elif session_row is not None:
            rows = await lookup.server.list_panes("-s", "-t", session_row.session_id)
        else:
            rows = each_pane_once(await lookup.server.list_panes("-a"))
        return ListPanesOutput.model_validate({"panes": [shapes.pane(self.refs, r) for r in rows]})

    async def find_pane_by_position(
        self, params: FindPaneByPositionInput
    ) -> FindPaneByPositionOutput:
        rows = await self.lookup.window_panes(params.windowId)
        row = panes.corner(Window(rows[0].window_id, tuple(rows)), params.corner)
        return FindPaneByPositionOutput.model_validate({"pane": shapes.pane(self.refs, row)})

    async def capture_pane(self, params: CapturePaneInput) -> CapturePaneOutput:
        lookup = self.lookup
        pane_id = await lookup.pane_target(params.paneId)
        end = given(params.end)
        lines = await lookup.on_pane(
            pane_id,
            capture.capture_lines(
                lookup.server, pane_id, given(params.start), end, given(params.joinWrapped, False)
            ),
        )
        if end is None:
            lines = capture.trim_blank_tail(lines)
        kept = capture.newest(lines, given(params.maxLines, capture.DEFAULT_MAX_LINES))
        return CapturePaneOutput.model_validate(shapes.capture(pane_id, kept.lines, kept.dropped))

    async def snapshot_pane(self, params: SnapshotPaneInput) -> SnapshotPaneOutput:
        lookup = self.lookup
        row = await lookup.pane(params.paneId)
        lines = capture.trim_blank_tail(await capture.capture_lines(lookup.server, row.pane_id))
        kept = capture.newest(lines, given(params.maxLines, capture.DEFAULT_MAX_LINES))
        return SnapshotPaneOutput.model_validate(
            {
                "pane": shapes.pane(self.refs, row),
                "capture": shapes.capture(row.pane_id, kept.lines, kept.dropped),
            }
        )

    async def capture_since(self, params: CaptureSinceInput) -> CaptureSinceOutput:
        lookup = self.lookup
        server = lookup.server
        row = await lookup.pane(params.paneId)
        token = given(params.cursor)
        cursor = capture.open_cursor(self.refs, token, row.pane_id) if token is not None else None
        max_lines = given(params.maxLines, capture.DEFAULT_MAX_LINES)
        wait_ms = min(given(params.waitMs, 0), MAX_WAIT_MS)
        since = await capture.read_since(server, row, cursor, max_lines)
        if not since.lines and wait_ms > 0:
            since, row = await self._wait_for_rows(row, cursor, max_lines, wait_ms / 1000)
        return CaptureSinceOutput.model_validate(
            {
                "paneRef": self.refs.make("pane", row.pane_id, row.server_tag),
                "pane": row.pane_id,
                "lines": since.lines,
                "cursor": capture.seal_cursor(self.refs, since.cursor),
                "linesMissed": since.missed,
                "restarted": since.restarted,
                "droppedLines": since.dropped,
            }
        )

    async def _wait_for_rows(
        self, row: PaneRow, cursor: capture.Cursor | None, max_lines: int, timeout: float
    ) -> tuple[capture.Since, PaneRow]:
        """Sleep until the pane prints a complete row after the cursor, or until ``timeout``.

        The watch starts before the re-read, so output printed in between still wakes it.
        """
        lookup = self.lookup
        deadline = anyio.current_time() + timeout
        async with lookup.server.output_watch(row) as watch:
            while True:
                row = await lookup.pane(row.pane_id)
                since = await capture.read_since(lookup.server, row, cursor, max_lines)
                if since.lines:
                    return since, row
                with anyio.move_on_after(deadline - anyio.current_time()) as scope:
                    try:
                        await watch.changed()
                    except WatchLost:
                        scope.cancel()
                if scope.cancel_called:
                    return since, row

    async def search_panes(self, params: SearchPanesInput) -> SearchPanesOutput:
        lookup = self.lookup
        test = search.matcher(params.pattern, given(params.regex, False))
        session = given(params.session)
        if session is not None:
            row = await lookup.session(session)
            rows = await lookup.server.list_panes("-s", "-t", row.session_id)
        else:
            rows = each_pane_once(await lookup.server.list_panes("-a"))
        found = await search.search(
            lookup.server,
            rows,
            test,
            given(params.scrollbackLines, DEFAULT_SCROLLBACK),
            given(params.maxMatchesPerPane, DEFAULT_MATCHES_PER_PANE),
        )
        return SearchPanesOutput.model_validate(
            {
                "matches": [
                    {
                        "paneRef": self.refs.make("pane", m.pane.pane_id, m.pane.server_tag),
                        "pane": m.pane.pane_id,
                        "line": m.line,
                        "text": m.text,
                    }
                    for m in found.matches
                ],
                "panesSearched": found.panes_searched,
                "panesAvailable": len(rows),
                "truncated": bool(found.truncated_by),
                "truncatedBy": found.truncated_by,
            }
        )

    # --- windows and sessions ---------------------------------------------------------

    async def get_window_info(self, params: GetWindowInfoInput) -> GetWindowInfoOutput:
        links = await self.lookup.window_links(params.windowId)
        return GetWindowInfoOutput.model_validate(
            {
                "window": shapes.window(self.refs, links[0]),
                "placements": [shapes.placement(self.refs, link) for link in links],
            }
        )

    async def list_windows(self, params: ListWindowsInput) -> ListWindowsOutput:
        lookup = self.lookup
        session = given(params.session)
        if session is not None:
            row = await lookup.session(session)
            links = await lookup.server.list_links("-t", row.session_id)
        else:
            links = await lookup.server.list_links("-a")
        return ListWindowsOutput.model_validate(
            {"windows": [shapes.occurrence(self.refs, link) for link in links]}
        )

    async def get_session_info(self, params: GetSessionInfoInput) -> GetSessionInfoOutput:
        lookup = self.lookup
        sessions, attached = await lookup.server.sessions_and_clients()
        row = lookup.match_session(sessions, params.session, "session")
        return GetSessionInfoOutput.model_validate(
            {"session": shapes.session(self.refs, row, attached)}
        )

    async def list_sessions(self, params: ListSessionsInput) -> ListSessionsOutput:
        sessions, attached = await self.tmux.server().sessions_and_clients()
        return ListSessionsOutput.model_validate(
            {"sessions": [shapes.session(self.refs, row, attached) for row in sessions]}
        )

    # --- the server and its settings ----------------------------------------------------

    async def get_server_info(self, params: GetServerInfoInput) -> GetServerInfoOutput:
        server = self.tmux.server()
        try:
            lines = await server.run("display-message", "-p", "#{version}")
        except NoServer:
            return GetServerInfoOutput.model_validate(
                {"running": False, "socketPath": server.socket.path}
            )
        version = lines[0] if lines else ""
        return GetServerInfoOutput.model_validate(
            {"running": True, "version": version, "socketPath": server.socket.path}
        )

    async def get_tmux_variables(self, params: GetTmuxVariablesInput) -> GetTmuxVariablesOutput:
        names = [name.root for name in params.names]
        if not names:
            raise InvalidArgument("names", names, "is empty", "Pass 1 to 32 format variable names.")
        lookup = self.lookup
        server = lookup.server
        pane = given(params.paneId)
        fields = ("pane_id", "pane_active", *names)
        fmt = SEP.join(f"#{{{name}}}" for name in fields)  # names passed the schema's pattern
        # list-panes, not display-message: the format then never sees a client, so
        # nothing depends on which transport (or whose control client) asked. A variable
        # counting clients is read with this process's clients detached.
        run = server.run_unattached if counts_clients(fmt) else server.run
        if pane is not None:
            target = (await lookup.pane(pane)).pane_id
            rows = parse_rows(await run("list-panes", "-t", target, "-F", fmt), fields)
            values = next((r for r in rows if r["pane_id"] == target), {})
        else:
            sessions = await server.list_sessions()
            if sessions:
                scope = ("-t", sessions[0].session_id)
                rows = parse_rows(await run("list-panes", *scope, "-F", fmt), fields)
                values = next((r for r in rows if r["pane_active"] == "1"), {})
            else:
                lines = await server.run("display-message", "-p", fmt)
                values = next(iter(parse_rows(lines, fields)), {})
        if CLIENT_COUNTS.intersection(names) and values.get("pane_id"):
            values.update(await self._client_counts(values["pane_id"]))
        return GetTmuxVariablesOutput.model_validate(
            {"values": {name: values.get(name) or None for name in names}}
        )

    async def _client_counts(self, pane_id: str) -> dict[str, str]:
        """The client-counting variables recomputed without this process's own clients."""
        server = self.tmux.server()
        row = await server.pane(pane_id)
        if row is None:
            return {}
        clients = await server.clients()
        in_session = [c for c in clients if c.session_id == row.session_id]
        on_window = [c for c in clients if c.window_id == row.window_id]
        return {
            "session_attached": str(len(in_session)),
            "session_many_attached": "1" if len(in_session) > 1 else "0",
            "session_attached_list": ",".join(c.name for c in in_session),
            "window_active_clients": str(len(on_window)),
            "window_active_clients_list": ",".join(c.name for c in on_window),
        }

    async def show_environment(self, params: ShowEnvironmentInput) -> ShowEnvironmentOutput:
        session_id = await self._session_id(given(params.session))
        environment = await settings.show_environment(self.tmux.server(), session_id)
        return ShowEnvironmentOutput.model_validate({"environment": environment})

    async def show_hooks(self, params: ShowHooksInput) -> ShowHooksOutput:
        session_id = await self._session_id(given(params.session))
        hooks = await settings.show_hooks(self.tmux.server(), session_id)
        return ShowHooksOutput.model_validate(
            {"hooks": [{"name": h.name, "index": h.index, "command": h.command} for h in hooks]}
        )

    async def show_option(self, params: ShowOptionInput) -> ShowOptionOutput:
        name = settings.check_option_name(params.name)
        flags = await self._option_flags(given(params.scope), given(params.target))
        options = await settings.show_option(self.tmux.server(), name, flags)
        return ShowOptionOutput.model_validate(
            {"options": [{"name": o.name, "value": o.value} for o in options]}
        )

    async def _session_id(self, session: str | None) -> str | None:
        return (await self.lookup.session(session)).session_id if session is not None else None

    async def _option_flags(self, scope: str | None, target: str | None) -> tuple[str, ...]:
        """``show-options`` flags for a scope; the target is resolved to a raw id first."""
        if scope is None:
            scope = "global_session" if target is None else _scope_of(self.refs, target)
        needs_target = scope in ("session", "window", "pane")
        if needs_target and target is None:
            raise InvalidArgument(
                "target", None, f"is required with scope {scope!r}", f"Pass the {scope} to read."
            )
        if not needs_target:
            if target is not None:
                raise InvalidArgument(
                    "target",
                    target,
                    f"is not used with scope {scope!r}",
                    "Leave target out, or choose scope session, window or pane.",
                )
            return settings.SCOPE_FLAGS[scope]
        lookup = self.lookup
        assert target is not None
        if scope == "session":
            resolved = (await lookup.session(target, "target")).session_id
        elif scope == "window":
            resolved = (await lookup.window_panes(target, "target"))[0].window_id
        else:
            resolved = (await lookup.pane(target, "target")).pane_id
        return (*settings.SCOPE_FLAGS[scope], "-t", resolved)

    # --- the batch ----------------------------------------------------------------------

    async def call_read_tools_batch(
        self, params: CallReadToolsBatchInput
    ) -> Reply[CallReadToolsBatchOutput]:
        return await run_batch(self.batch, params)


def _scope_of(refs: Refs, target: str) -> str:
    """The scope a target implies without one being given: by its id's shape or ref's kind."""
    kind = refs.kind_of(target)
    if target.startswith("%") or kind == "pane":
        return "pane"
    if target.startswith("@") or kind in ("window", "link"):
        return "window"
    return "session"
