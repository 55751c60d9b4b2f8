"""Who and where: servers, sessions, windows, panes, and format strings."""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio

from ...errors import InvalidArgument
from ...generated.python.models.display_message import DisplayMessageInput, DisplayMessageOutput
from ...generated.python.models.get_pane_info import GetPaneInfoInput, GetPaneInfoOutput
from ...generated.python.models.get_server_info import GetServerInfoInput, GetServerInfoOutput
from ...generated.python.models.get_session_info import GetSessionInfoInput, GetSessionInfoOutput
from ...generated.python.models.get_window_info import GetWindowInfoInput, GetWindowInfoOutput
from ...generated.python.models.list_panes import (
    ListPanesInput,
    ListPanesOutput,
    ListPanesOutputResultItem,
)
from ...generated.python.models.list_servers import (
    ListServersInput,
    ListServersOutput,
    ListServersOutputResultItem,
)
from ...generated.python.models.list_sessions import (
    ListSessionsInput,
    ListSessionsOutput,
    ListSessionsOutputResultItem,
)
from ...generated.python.models.list_windows import (
    ListWindowsInput,
    ListWindowsOutput,
    ListWindowsOutputResultItem,
)
from ..tmux.errors import CommandFailed, NoServer, NotFound, TmuxError, no_sessions
from ..tmux.objects.rows import LinkRow, PaneRow, SessionRow, each_pane_once
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.targets import (
    WindowSelector,
    check_pane_id,
    check_session_id,
)
from ..tmux.transport.formats import counts_clients
from ..tmux.transport.process import SubprocessTransport
from ..tmux.transport.sockets import Socket, socket_dir
from .shapes import SHAPE_FIELDS, pane_fields

# A probe of a socket nobody answers on gives up after this long (a stale socket file
# answers "no server running" at once; only a stopped or wedged server makes us wait).
PROBE_TIMEOUT = 3.0
PROBES_AT_ONCE = 8
SERVER_PROBE = (("display-message", "-p", "#{version}"), ("list-sessions", "-F", "#{session_id}"))

# `#{pane_id}` in a list-sessions / list-windows row is the active pane of the active window.
ACTIVE_PANE = ("pane_id",)

RowT = TypeVar("RowT", LinkRow, PaneRow)


class ListingTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    # --- servers ------------------------------------------------------------------------

    async def list_servers(self, params: ListServersInput) -> ListServersOutput:
        self.tmux.require_supported()  # the probes below run tmux without a Server
        extra = [_check_socket_path(path) for path in params.extra_socket_paths or ()]
        directory = socket_dir(self.tmux.environ)
        remote = self.tmux.remote  # the directory is one of the host tmux runs on
        paths = (
            _sockets_in(directory)
            if remote is None
            else await anyio.to_thread.run_sync(remote.sockets_in, directory)
        )
        seen = {os.path.realpath(path) for path in paths}
        for path in extra:
            if os.path.realpath(path) not in seen:
                seen.add(os.path.realpath(path))
                paths.append(path)
        found: list[dict[str, Any] | None] = [None] * len(paths)
        failures: list[TmuxError] = []
        limiter = anyio.CapacityLimiter(PROBES_AT_ONCE)

        async def probe(index: int, path: str) -> None:
            async with limiter:
                try:
                    found[index] = await self._probe(path, directory)
                except TmuxError as exc:  # tmux itself cannot run: no probe can answer
                    failures.append(exc)

        async with anyio.create_task_group() as group:
            for index, path in enumerate(paths):
                group.start_soon(probe, index, path)
        if failures:
            raise failures[0]
        rows = [ListServersOutputResultItem(**row) for row in found if row is not None]
        return ListServersOutput(result=rows)

    async def _probe(self, path: str, directory: str) -> dict[str, Any]:
        """One socket, asked by a short-lived tmux process: listing servers never leaves a
        client attached to a server nobody asked to work with."""
        socket = Socket(path, f"socket {path}")
        transport = SubprocessTransport(socket, self.tmux.tmux_bin, self.tmux.environ)
        answers: list[list[str]] | None = None
        # NoServer: nothing listens there; CommandFailed: no tmux socket. Either: not alive.
        with anyio.move_on_after(PROBE_TIMEOUT), suppress(NoServer, CommandFailed):
            answers = await transport.run_many(SERVER_PROBE, retry=True)
        return _server_fields(path, directory, answers)

    async def get_server_info(self, params: GetServerInfoInput) -> GetServerInfoOutput:
        server = self.tmux.server(params.socket_name)
        answers: list[list[str]] | None
        try:
            answers = await server.run_many(*SERVER_PROBE)
        except NoServer:
            answers = None
        fields = _server_fields(server.socket.path, socket_dir(self.tmux.environ), answers)
        return GetServerInfoOutput(**fields)

    # --- sessions -----------------------------------------------------------------------

    async def list_sessions(self, params: ListSessionsInput) -> ListSessionsOutput:
        keep = Filters.parse(params.filters, ListSessionsOutputResultItem)
        server = self.tmux.server(params.socket_name)
        sessions, attached = await server.sessions_and_clients(extra=ACTIVE_PANE)
        rows = keep([_session_fields(row, attached) for row in sessions])
        return ListSessionsOutput(result=[ListSessionsOutputResultItem(**row) for row in rows])

    async def get_session_info(self, params: GetSessionInfoInput) -> GetSessionInfoOutput:
        session_id, session_name = _session_target(params.session_id, params.session_name)
        server = self.tmux.server(params.socket_name)
        sessions, attached = await server.sessions_and_clients(extra=ACTIVE_PANE)
        if not sessions:
            raise no_sessions(server.socket)
        if session_id is None and session_name is None:
            row = sessions[0]
        else:
            found = [s for s in sessions if s.session_id == session_id or s.name == session_name]
            if not found:
                raise _no_session(server, session_id, session_name)
            row = found[0]
        return GetSessionInfoOutput(**_session_fields(row, attached))

    # --- windows ------------------------------------------------------------------------

    async def list_windows(self, params: ListWindowsInput) -> ListWindowsOutput:
        keep = Filters.parse(params.filters, ListWindowsOutputResultItem)
        session_id, session_name = _session_target(params.session_id, params.session_name)
        server = self.tmux.server(params.socket_name)
        links = await server.list_windows("-a", extra=ACTIVE_PANE)
        if session_id is not None or session_name is not None:
            links = _in_session(server, links, session_id, session_name)
        rows = keep([_window_fields(link) for link in links])
        return ListWindowsOutput(result=[ListWindowsOutputResultItem(**row) for row in rows])

    async def get_window_info(self, params: GetWindowInfoInput) -> GetWindowInfoOutput:
        session_id, session_name = _session_target(params.session_id, params.session_name)
        selector = WindowSelector(params.window_id, params.window_index, session_name, session_id)
        server = self.tmux.server(params.socket_name)
        links = await server.list_windows("-a", extra=ACTIVE_PANE)
        return GetWindowInfoOutput(**_window_fields(_pick_link(server, links, selector)))

    # --- panes --------------------------------------------------------------------------

    async def list_panes(self, params: ListPanesInput) -> ListPanesOutput:
        keep = Filters.parse(params.filters, ListPanesOutputResultItem)
        session_id, session_name = _session_target(params.session_id, params.session_name)
        selector = WindowSelector(params.window_id, params.window_index, session_name, session_id)
        server = self.tmux.server(params.socket_name)
        rows: Sequence[PaneRow]
        if selector.window_id is not None or selector.window_index is not None:
            rows = (await selector.resolve_window(server, fields=SHAPE_FIELDS)).panes
        else:
            rows = await server.list_panes("-a", fields=SHAPE_FIELDS)
            if session_id is not None or session_name is not None:
                rows = _in_session(server, rows, session_id, session_name)
            rows = each_pane_once(rows)
        kept = keep([pane_fields(server, row) for row in rows])
        return ListPanesOutput(result=[ListPanesOutputResultItem(**row) for row in kept])

    async def get_pane_info(self, params: GetPaneInfoInput) -> GetPaneInfoOutput:
        session_id, session_name = _session_target(params.session_id, params.session_name)
        selector = WindowSelector(params.window_id, None, session_name, session_id)
        server = self.tmux.server(params.socket_name)
        row = await selector.resolve_pane(server, params.pane_id, SHAPE_FIELDS)
        return GetPaneInfoOutput(**pane_fields(server, row))

    # --- formats ------------------------------------------------------------------------

    async def display_message(self, params: DisplayMessageInput) -> DisplayMessageOutput:
        """The format is expanded by ``list-panes -t <pane> -f <that pane only> -F <format>``
        rather than ``display-message -p``: list-panes expands formats without a client, so
        ``#{client_*}`` are empty whichever transport asked (display-message would describe
        this server's own control client over one transport and tmux's "best" client over
        the other), and a format expanding to several lines comes back whole. A format
        naming a variable that counts attached clients runs with this process's clients
        detached (``Server.run_unattached``), so that it counts only other clients."""
        check_format(params.format_string)
        session_id, session_name = _session_target(params.session_id, params.session_name)
        selector = WindowSelector(params.window_id, None, session_name, session_id)
        server = self.tmux.server(params.socket_name)
        if params.pane_id is not None:
            pane_id = check_pane_id(params.pane_id)
        else:
            pane_id = (await selector.resolve_pane(server, None)).pane_id
        only = f"#{{==:#{{pane_id}},{pane_id}}}"  # pane_id is '%' and digits: checked above
        run = server.run_unattached if counts_clients(params.format_string) else server.run
        try:
            lines = await run("list-panes", "-t", pane_id, "-f", only, "-F", params.format_string)
        except CommandFailed as exc:
            if exc.not_found:
                raise NotFound("pane", pane_id, socket=server.socket, field="pane_id") from None
            raise
        return DisplayMessageOutput(result="\n".join(lines))


# --- display_message's guard ----------------------------------------------------------------

# `#{E:option}` and `#{T:option}` expand an option's value as a format, and a value may
# hold `#(...)`: a shell command the caller never wrote. Modifiers follow `#{` or a `;`.
_EXPANDS_OPTION = re.compile(r"(?:#\{|;)[ET][:;]")


def check_format(format_string: str) -> str:
    """Refuse a format that would make tmux run a shell command (nothing is run)."""
    if "#(" in format_string:
        raise InvalidArgument(
            "format_string",
            format_string,
            "contains '#(', which makes tmux run a shell command; shell commands are refused",
            "Remove the #(...) part; to run a command in a pane use the tools that send keys.",
        )
    if _EXPANDS_OPTION.search(format_string):
        raise InvalidArgument(
            "format_string",
            format_string,
            "uses the E: or T: modifier, which expands an option's value as a format and may "
            "run the shell commands (#(...)) it holds; those modifiers are refused",
            "Read the option with show_option instead, or ask for the variables directly.",
        )
    return format_string


# --- filters ----------------------------------------------------------------------------------


def _exact(text: str, value: str) -> bool:
    return text == value


def _iexact(text: str, value: str) -> bool:
    return text.casefold() == value.casefold()


LOOKUPS: dict[str, Callable[[str, str], bool]] = {
    "exact": _exact,
    "iexact": _iexact,
    "contains": lambda text, value: value in text,
    "icontains": lambda text, value: value.casefold() in text.casefold(),
    "startswith": lambda text, value: text.startswith(value),
    "istartswith": lambda text, value: text.casefold().startswith(value.casefold()),
    "endswith": lambda text, value: text.endswith(value),
    "iendswith": lambda text, value: text.casefold().endswith(value.casefold()),
}
REGEX_LOOKUPS = {"regex": 0, "iregex": re.IGNORECASE}
ALL_LOOKUPS = (*LOOKUPS, *REGEX_LOOKUPS)


def _text(value: object) -> str:
    """A row value as the text a filter compares with: JSON spelling for booleans, "" for null."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


_FLAG_WORDS = {"1": "true", "0": "false", "true": "true", "false": "false"}


@dataclass(frozen=True)
class Condition:
    field: str
    lookup: str
    value: str
    pattern: re.Pattern[str] | None

    def __call__(self, row: Mapping[str, Any]) -> bool:
        raw = row.get(self.field)
        text = _text(raw)
        if self.pattern is not None:
            return self.pattern.search(text) is not None
        value = self.value
        if isinstance(raw, bool) and self.lookup in ("exact", "iexact"):
            value = _FLAG_WORDS.get(value.lower(), value)  # "1"/"0" as tmux spells flags
        return LOOKUPS[self.lookup](text, value)


class Filters:
    """libtmux-style row filters (``field`` or ``field__lookup`` → string), all must hold."""

    def __init__(self, conditions: Sequence[Condition]) -> None:
        self.conditions = tuple(conditions)

    def __call__(self, rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        return [row for row in rows if all(holds(row) for holds in self.conditions)]

    @classmethod
    def parse(cls, given: Mapping[str, str] | str | None, model: type[Any]) -> Filters:
        """Checked before any tmux command runs; ``model`` is the tool's row model."""
        fields: tuple[str, ...] = tuple(model.model_fields)
        return cls([_condition(key, value, fields) for key, value in _filter_items(given).items()])


def _filter_items(given: Mapping[str, str] | str | None) -> dict[str, str]:
    if given is None:
        return {}
    if not isinstance(given, str):
        return dict(given)
    if not given.strip():
        return {}
    how = 'Pass an object such as {"session_name": "build"}, or that object as a JSON string.'
    try:
        decoded = json.loads(given)
    except ValueError:
        raise InvalidArgument("filters", given, "is not a JSON object", how) from None
    if not isinstance(decoded, dict):
        raise InvalidArgument("filters", given, "is not a JSON object", how)
    items: dict[str, str] = {}
    for key, value in decoded.items():
        if isinstance(value, (dict, list)) or value is None:
            raise InvalidArgument(
                "filters",
                given,
                f"gives {key!r} a {type(value).__name__ if value is not None else 'null'}; "
                "a filter value is a string",
                how,
            )
        items[key] = _text(value)
    return items


def _condition(key: str, value: str, fields: Sequence[str]) -> Condition:
    field, lookup = key, "exact"
    if key not in fields and "__" in key:
        field, _, lookup = key.rpartition("__")
    if field not in fields:
        raise InvalidArgument(
            "filters",
            {key: value},
            f"names no field of these rows ({field!r}); valid fields: {', '.join(fields)}",
            "Filter on one of those fields, optionally with a lookup suffix such as __contains.",
        )
    if lookup not in ALL_LOOKUPS:
        raise InvalidArgument(
            "filters",
            {key: value},
            f"uses the unknown lookup {lookup!r}; lookups: {', '.join(ALL_LOOKUPS)}",
            f"Write the key as {field}__<lookup>, or just {field} for an exact match.",
        )
    pattern = None
    if lookup in REGEX_LOOKUPS:
        try:
            pattern = re.compile(value, REGEX_LOOKUPS[lookup])
        except re.error as exc:
            raise InvalidArgument(
                "filters",
                {key: value},
                f"is not a valid regular expression ({exc})",
                "Fix the pattern (Python re syntax), or use __contains for a literal match.",
            ) from None
    return Condition(field, lookup, value, pattern)


# --- helpers --------------------------------------------------------------------------------


def _check_socket_path(path: str) -> str:
    if not path or "\0" in path or not os.path.isabs(path):
        raise InvalidArgument(
            "extra_socket_paths",
            path,
            "is not an absolute socket path",
            "Pass full paths such as /tmp/my-tmux.sock (what tmux -S was given).",
        )
    return path


def _sockets_in(directory: str) -> list[str]:
    """The unix sockets in the tmux socket directory, by name (none when it is missing)."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    found = []
    for entry in entries:
        try:
            if stat.S_ISSOCK(entry.stat(follow_symlinks=False).st_mode):
                found.append(entry.path)
        except OSError:
            continue  # gone meanwhile
    return sorted(found)


def _server_fields(path: str, directory: str, answers: list[list[str]] | None) -> dict[str, Any]:
    """``answers``: what ``SERVER_PROBE`` printed, None when no server answered."""
    real = os.path.realpath(path)
    name = os.path.basename(real) if os.path.dirname(real) == directory else None
    if answers is None:
        return {"is_alive": False, "socket_name": name, "socket_path": path, "session_count": 0}
    version, sessions = answers
    return {
        "is_alive": True,
        "socket_name": name,
        "socket_path": path,
        "session_count": len([line for line in sessions if line]),
        "version": (version[0] if version else "") or None,
    }


def _session_target(
    session_id: str | None, session_name: str | None
) -> tuple[str | None, str | None]:
    """The session fields to go by: the id's shape checked, and the id winning over a name."""
    if session_id is not None:
        return check_session_id(session_id), None
    return None, session_name


def _session_fields(row: SessionRow, attached: Mapping[str, int]) -> dict[str, Any]:
    return {
        "session_id": row.session_id,
        "session_name": row.name,
        "window_count": row.count("session_windows"),
        "session_attached": str(attached.get(row.session_id, 0)),
        "session_created": row.text("session_created"),
        "active_pane_id": row.text("pane_id"),
    }


def _window_fields(link: LinkRow) -> dict[str, Any]:
    return {
        "window_id": link.window_id,
        "window_name": link["window_name"],
        "window_index": link["window_index"],
        "session_id": link.session_id,
        "session_name": link["session_name"],
        "pane_count": link.count("window_panes"),
        "window_layout": link.text("window_layout"),
        "window_active": link["window_active"],
        "window_width": link["window_width"],
        "window_height": link["window_height"],
        "active_pane_id": link.text("pane_id"),
    }


def _in_session(
    server: Server, rows: Sequence[RowT], session_id: str | None, session_name: str | None
) -> list[RowT]:
    """The rows of the session named by id (exactly) or else by exact name."""
    if session_id is not None:
        found = [row for row in rows if row.session_id == session_id]
    else:
        found = [row for row in rows if row["session_name"] == session_name]
    if not found:
        raise _no_session(server, session_id, session_name)
    return found


def _pick_link(server: Server, links: list[LinkRow], selector: WindowSelector) -> LinkRow:
    """The window a get_window_info call names, as linked at one place."""
    session_id, session_name = selector.session_id, selector.session_name
    named_session = session_id is not None or session_name is not None
    if selector.window_id is not None:
        found = [link for link in links if link.window_id == selector.window_id]
        if not found:
            raise NotFound("window", selector.window_id, socket=server.socket, field="window_id")
        # Linked in several sessions: the place in the named session, if it is linked there.
        there = [
            link
            for link in found
            if link.session_id == session_id or link["session_name"] == session_name
        ]
        return (there or found)[0]
    if not links:
        raise no_sessions(server.socket)
    if named_session:
        in_session = _in_session(server, links, session_id, session_name)
    else:
        in_session = [link for link in links if link.session_id == links[0].session_id]
    if selector.window_index is not None:
        at = [link for link in in_session if link["window_index"] == selector.window_index]
        if not at:
            name = in_session[0]["session_name"]
            raise NotFound(
                "window",
                selector.window_index,
                socket=server.socket,
                field="window_index",
                by="index",
                within=f"session {name!r} ({in_session[0].session_id})",
            )
        return at[0]
    active = [link for link in in_session if link["window_active"] == "1"]
    return (active or in_session)[0]


def _no_session(server: Server, session_id: str | None, session_name: str | None) -> NotFound:
    if session_id is not None:
        return NotFound("session", session_id, socket=server.socket, field="session_id")
    return NotFound("session", session_name, socket=server.socket, field="session_name", by="name")
