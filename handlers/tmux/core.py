"""The tmux core's entry point: one ``Tmux`` per MCP server process.

It knows the caller, the default socket and one transport per socket, and
hands out ``Server`` objects that speak to exactly one tmux server.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager

import anyio

from .errors import CommandFailed, TmuxUnavailable
from .formats import (
    CLIENT_FORMAT,
    LINK_FIELDS,
    LINK_FORMAT,
    PANE_FIELDS,
    SESSION_FIELDS,
    SESSION_FORMAT,
    ClientRow,
    LinkRow,
    PaneRow,
    SessionRow,
    client_rows,
    link_rows,
    pane_rows,
    session_rows,
)
from .policy.caller import Caller, Relation
from .transport import kinds
from .transport.control import ControlTransport
from .transport.events import OutputWatchers, Watch
from .transport.formats import cached_format, format_of, parse_rows
from .transport.kinds import TRANSPORT_ENV, TRANSPORTS, Transport, UnknownTransport, is_read
from .transport.sockets import Socket, default_socket, socket_for_name, tmux_binary
from .transport.ssh import remote_for
from .transport.version import refusal_at_startup

# tmux's answer to a command that needs a session, on a server that has none.
NO_CURRENT_TARGET = "no current target"


# A step run once before a server's first command (e.g. starting it): see ``Tmux``.
Prepare = Callable[["Server"], Awaitable[None]]


class Server:
    """One tmux server, reached through its transport."""

    def __init__(
        self,
        transport: Transport,
        caller: Caller,
        watchers: OutputWatchers,
        prepare: Prepare | None = None,
    ) -> None:
        self.transport = transport
        self.caller = caller
        self.watchers = watchers
        self._prepare = prepare
        self._prepared = anyio.Lock() if prepare is not None else None

    @property
    def socket(self) -> Socket:
        return self.transport.socket

    async def ready(self) -> None:
        """Run the prepare step if it has not succeeded yet (one call at a time)."""
        if self._prepared is None or self._prepare is None:
            return
        async with self._prepared:
            if self._prepare is not None:
                await self._prepare(self)
                self._prepare = None

    async def run(self, *args: str) -> list[str]:
        if self._prepare is not None:
            await self.ready()
        return await self.transport.run(args, retry=is_read(args))

    async def run_unattached(self, *args: str) -> list[str]:
        """``run`` with none of this process's tmux clients attached while tmux runs it,
        except the output clients of waits still in progress (see ``waits``)."""
        if self._prepare is not None:
            await self.ready()
        await self.watchers.settle()
        if isinstance(self.transport, ControlTransport):
            return await self.transport.run_detached(args)
        return await self.run(*args)

    async def run_listing(self, *args: str) -> list[str]:
        """``run`` for a listing of the whole server (``list-panes -a``, ``list-clients``...):
        on a server with no session (one kept up by ``exit-empty off``) tmux finds no
        current target and refuses it, and the answer is that there is nothing to list."""
        try:
            return await self.run(*args)
        except CommandFailed as exc:
            if NO_CURRENT_TARGET not in exc.stderr or await self.run("list-sessions"):
                raise
            return []

    async def run_many(self, *commands: Sequence[str]) -> list[list[str]]:
        """Commands run in order and, where the transport can, in one round trip."""
        if self._prepare is not None:
            await self.ready()
        return await self.transport.run_many(commands, retry=all(map(is_read, commands)))

    def output_watch(self, pane: PaneRow) -> AbstractAsyncContextManager[Watch]:
        """Wake on ``pane``'s output while the block runs (see ``waits``)."""
        return self.watchers.watch(pane.session_id, pane.pane_id)

    async def list_panes(self, *scope: str, fields: Sequence[str] = PANE_FIELDS) -> list[PaneRow]:
        """``list-panes``; ``scope`` is ``-a``, ``-s``, ``-t``…

        ``fields`` (``pane_id`` among them) are all a row will hold: tmux spends
        most of a listing expanding them, so a caller that needs fewer asks for fewer.
        """
        lines = await self.run_listing("list-panes", *scope, "-F", cached_format(fields))
        return pane_rows(lines, fields)

    async def pane(self, pane_id: str, fields: Sequence[str] = PANE_FIELDS) -> PaneRow | None:
        """One pane's row (with ``fields``, as ``list_panes``), or None when it does not exist.

        ``display-message -t`` does not fail for a missing pane (tmux 3.3a):
        it expands the format with no pane, so the empty ``pane_id`` tells.
        """
        lines = await self.run("display-message", "-p", "-t", pane_id, cached_format(fields))
        rows = pane_rows(lines, fields)
        return rows[0] if rows and rows[0].pane_id == pane_id else None

    async def list_sessions(self) -> list[SessionRow]:
        return session_rows(await self.run("list-sessions", "-F", SESSION_FORMAT))

    async def list_links(self, *scope: str, extra: Sequence[str] = ()) -> list[LinkRow]:
        """``list-windows`` rows: one per (session, index) a window is linked at.

        ``extra`` names further format fields (ours, never a user's) to ask for; their
        values land in each row's ``raw`` (``pane_id`` there is the window's active pane).
        """
        if not extra:
            return link_rows(await self.run_listing("list-windows", *scope, "-F", LINK_FORMAT))
        fields = (*LINK_FIELDS, *extra)
        lines = await self.run_listing("list-windows", *scope, "-F", format_of(fields))
        return [LinkRow(raw) for raw in parse_rows(lines, fields)]

    async def clients(self) -> list[ClientRow]:
        """The attached clients, without this process's own control clients."""
        return self._others(await self.run_listing("list-clients", "-F", CLIENT_FORMAT))

    def _others(self, lines: list[str]) -> list[ClientRow]:
        own = self.own_client_pids()
        return [row for row in client_rows(lines) if row.pid not in own]

    async def sessions_and_clients(
        self, *, extra: Sequence[str] = (), terminals_only: bool = False
    ) -> tuple[list[SessionRow], dict[str, int]]:
        """Every session, and its attached clients not counting ours (one round trip);
        ``terminals_only`` leaves out every control-mode client, not only ours.

        ``extra`` names further format fields (ours, never a user's) to ask for; their
        values land in each row's ``raw`` (``pane_id`` there is the active pane of the
        session's active window).
        """
        fields = (*SESSION_FIELDS, *extra)
        listing = ("list-sessions", "-F", format_of(fields) if extra else SESSION_FORMAT)
        try:
            sessions, clients = await self.run_many(listing, ("list-clients", "-F", CLIENT_FORMAT))
        except CommandFailed as exc:
            if NO_CURRENT_TARGET not in exc.stderr:
                raise
            sessions, clients = await self.run(*listing), []
            if sessions:  # not the empty server after all
                raise
        counts: dict[str, int] = {}
        for client in self._others(clients):
            if terminals_only and client.control:
                continue
            counts[client.session_id] = counts.get(client.session_id, 0) + 1
        return [SessionRow(raw) for raw in parse_rows(sessions, fields)], counts

    def own_client_pids(self) -> frozenset[int]:
        """Pids of the tmux clients this process keeps attached (none over subprocesses)."""
        return self.transport.own_client_pids() | self.watchers.client_pids()

    def relation(self, pane_id: str, server_pid: int | str | None = None) -> Relation:
        """Whether ``pane_id`` here is the caller's pane (``server_pid``: this server's, if known)."""
        return self.caller.relation(self.socket, pane_id, server_pid)


class Tmux:
    """``socket`` replaces the default socket the environment names (``default_socket``);
    ``prepare`` runs once before the first command on that socket's server."""

    def __init__(
        self,
        environ: Mapping[str, str],
        *,
        socket: Socket | None = None,
        prepare: Prepare | None = None,
    ) -> None:
        self.environ = dict(environ)
        self.remote = remote_for(environ)  # a bad host is refused here, before any ssh
        # Caller identity is only known for a local server: a remote pane is never ours.
        self.caller = Caller.from_environ({} if self.remote else environ)
        self.tmux_bin = tmux_binary(environ)
        self.transport_kind = environ.get(TRANSPORT_ENV) or TRANSPORTS[0]
        if self.transport_kind not in TRANSPORTS:
            raise UnknownTransport(
                f"{TRANSPORT_ENV}={self.transport_kind!r} is not a transport; "
                f"choose one of {', '.join(TRANSPORTS)}"
            )
        self._default: Socket | None = socket
        self._prepare = prepare
        self._servers: dict[str, Server] = {}
        self.refusal = refusal_at_startup(environ)  # a tmux too old to serve

    async def aclose(self) -> None:
        """End every long-lived tmux client this process started."""
        servers = list(self._servers.values())
        self._servers.clear()
        for server in servers:
            close = getattr(server.transport, "aclose", None)
            if close is not None:
                await close()
            await server.watchers.aclose()
        if self.remote is not None:
            await anyio.to_thread.run_sync(self.remote.close)

    def require_supported(self) -> None:
        """Refuse to work with a tmux older than the oldest this server supports."""
        if self.refusal is not None:
            raise TmuxUnavailable(self.refusal, kind="unsupported_version")

    def socket(self, socket_name: str | None = None) -> Socket:
        if socket_name is not None:
            return socket_for_name(socket_name, self.environ)
        if self._default is None:
            self._default = default_socket(self.environ)
        return self._default

    def server(self, socket_name: str | None = None) -> Server:
        """The server on ``socket_name`` (a tmux -L name), else the configured default."""
        self.require_supported()
        socket = self.socket(socket_name)
        server = self._servers.get(socket.path)
        if server is None:
            transport = kinds.make_transport(
                self.transport_kind, socket, self.tmux_bin, self.environ
            )
            watchers = OutputWatchers(socket, self.tmux_bin, self.environ)
            prepare = self._prepare if socket == self._default else None
            server = self._servers[socket.path] = Server(transport, self.caller, watchers, prepare)
        return server


class TmuxHandlers:
    """The part every profile's handlers are composed with: where this process runs
    (``instruction_facts``) and the one ``Tmux``, closed when the server stops (``aclose``)."""

    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    def instruction_facts(self) -> dict[str, str]:
        """What the server instructions may state about where this process runs."""
        return self.tmux.caller.facts()

    async def aclose(self) -> None:
        await self.tmux.aclose()
