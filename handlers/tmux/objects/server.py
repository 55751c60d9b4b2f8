"""The tmux server as an object: ``Server``, the commands that act on a whole server,
and the objects it holds; ``Tmux``, which hands out one ``Server`` per socket.

A ``Server`` runs commands through its transport (``run``, ``run_many``...) and
names its methods after the tmux commands they run (``list_sessions``,
``kill_server``, ``new_session``, ``wait_for``...). ``pane``, ``window``,
``session`` and ``buffer`` give the objects it holds by id, each remembering the
argument that named it, so that one that is not there says so (``NotFound``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TypeVar

import anyio

from ....errors import InvalidArgument
from ..errors import CommandFailed, TmuxError, TmuxUnavailable
from ..policy.caller import Caller, Relation
from ..transport import kinds
from ..transport.channels import wait_for
from ..transport.control import ControlTransport
from ..transport.events import OutputWatchers, Watch
from ..transport.formats import cached_format, format_of, literal_format, parse_rows
from ..transport.hosts import HOST_SEPARATOR, Hosts
from ..transport.kinds import TRANSPORT_ENV, TRANSPORTS, Transport, UnknownTransport, is_read
from ..transport.sockets import Socket, default_socket, socket_for_name, tmux_binary
from ..transport.ssh import SSH_ENV, remote_for
from ..transport.version import refusal_at_startup
from .buffer import Buffer
from .live import Live
from .pane import Pane
from .rows import (
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
from .session import Session
from .settings import (
    Hook,
    OptionValue,
    parse_hooks,
    read_option,
    read_shell_environment,
    set_and_show,
)
from .targets import session_row
from .window import Window

# tmux's answer to a command that needs a session, on a server that has none.
NO_CURRENT_TARGET = "no current target"
# tmux's own bound for history-limit (options-table.c: INT_MAX).
HISTORY_LIMIT_MAXIMUM = 2**31 - 1


T = TypeVar("T")


def check_channel(channel: str, field: str = "channel") -> str:
    """``channel`` unchanged, or ``InvalidArgument`` when it is empty. NUL never gets
    here: the text rule refuses it before any handler runs."""
    if not channel:
        raise InvalidArgument(
            field, channel, "is empty", "Pass the channel's name, e.g. 'build-done'."
        )
    return channel


# A step run once before a server's first command (e.g. starting it): see ``Tmux``.
Prepare = Callable[["Server"], Awaitable[None]]


class Server:
    """One tmux server, reached through its transport; ``tmux_bin`` and ``environ`` start
    the tmux processes of its own a ``wait_for`` needs."""

    def __init__(
        self,
        transport: Transport,
        caller: Caller,
        watchers: OutputWatchers,
        prepare: Prepare | None = None,
        *,
        tmux_bin: str = "tmux",
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.transport = transport
        self.caller = caller
        self.watchers = watchers
        self.tmux_bin = tmux_bin
        self.environ = dict(environ or {})
        self._prepare = prepare
        self._prepared = anyio.Lock() if prepare is not None else None
        self._live: Live | None = None

    @property
    def live(self) -> Live:
        """What is watched on this server for as long as someone asks (``objects.live``):
        resource subscribers' watches, and the row counters of continued reads."""
        if self._live is None:
            self._live = Live(self)
        return self._live

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
        except the output clients of waits and subscriptions in progress (see
        ``transport.events``, ``objects.live``); row counters let theirs go first."""
        if self._prepare is not None:
            await self.ready()
        await self.live.stop_counting()  # a cursor's row counter holds a client: it goes
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
        """Wake on ``pane``'s output while the block runs (see ``transport.events``)."""
        return self.watchers.watch(pane.session_id, pane.pane_id)

    async def list_panes(self, *scope: str, fields: Sequence[str] = PANE_FIELDS) -> list[PaneRow]:
        """``list-panes``; ``scope`` is ``-a``, ``-s``, ``-t``…

        ``fields`` (``pane_id`` among them) are all a row will hold: tmux spends
        most of a listing expanding them, so a caller that needs fewer asks for fewer.
        """
        lines = await self.run_listing("list-panes", *scope, "-F", cached_format(fields))
        return pane_rows(lines, fields)

    async def list_sessions(self) -> list[SessionRow]:
        return session_rows(await self.run("list-sessions", "-F", SESSION_FORMAT))

    async def list_windows(self, *scope: str, extra: Sequence[str] = ()) -> list[LinkRow]:
        """``list-windows`` rows: one per (session, index) a window is linked at.

        ``extra`` names further format fields (ours, never a user's) to ask for; their
        values land in each row's ``raw`` (``pane_id`` there is the window's active pane).
        """
        if not extra:
            return link_rows(await self.run_listing("list-windows", *scope, "-F", LINK_FORMAT))
        fields = (*LINK_FIELDS, *extra)
        lines = await self.run_listing("list-windows", *scope, "-F", format_of(fields))
        return [LinkRow(raw) for raw in parse_rows(lines, fields)]

    async def list_clients(self) -> list[ClientRow]:
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

    # --- the objects it holds ------------------------------------------------------

    def pane(self, pane_id: str, field: str = "pane_id") -> Pane:
        """The pane ``pane_id`` (its shape checked by the caller), named by argument ``field``."""
        return Pane(self, pane_id, field)

    def window(self, window_id: str, field: str = "window_id") -> Window:
        return Window(self, window_id, field)

    def session(self, session_id: str, field: str = "session_id") -> Session:
        return Session(self, session_id, field)

    def buffer(self, name: str, field: str = "buffer_name") -> Buffer:
        return Buffer(self, name, field)

    async def find_session(self, value: str, field: str) -> SessionRow:
        """The session ``value`` names, by id or exact name (``targets.session_named``)."""
        return session_row(await self.list_sessions(), value, socket=self.socket, field=field)

    # --- commands on the whole server ----------------------------------------------

    async def kill_server(self) -> None:
        await self.run("kill-server")

    async def new_session(
        self, name: str, *, field: str, options: Sequence[str] = ()
    ) -> SessionRow:
        """A detached session named ``name`` (checked by the caller); ``options`` are the
        further flags (``-n``, ``-c``, ``-x``, ``-y``), already checked."""
        args = ["new-session", "-d", "-P", "-F", SESSION_FORMAT, "-s", literal_format(name)]
        try:
            lines = await self.run(*args, *options)
        except CommandFailed as exc:
            if "duplicate session" in exc.stderr:
                raise InvalidArgument(
                    field,
                    name,
                    f"is already the name of a session on tmux {self.socket}",
                    "Pick another name, or use that session (list_sessions shows it). "
                    "Nothing was created.",
                ) from None
            raise
        return self.made_one("session", session_rows(lines), lines, "list_sessions")

    def made_one(self, what: str, rows: Sequence[T], lines: list[str], lister: str) -> T:
        """The one row tmux described what it made with (``-P -F``)."""
        if len(rows) != 1:
            raise TmuxError(
                f"tmux on {self.socket} made a {what} but did not say which (it answered "
                f"{lines!r}). Call {lister} to find it."
            )
        return rows[0]

    async def read_option(self, name: str, flags: Sequence[str]) -> OptionValue | None:
        """Option ``name`` as ``show-options`` with ``flags`` sees it (``settings.read_option``)."""
        return await read_option(self, name, tuple(flags))

    async def show_environment(self) -> dict[str, str | None]:
        """The global environment (``show-environment -g``; see ``settings``)."""
        return await read_shell_environment(self, ("-g",))

    async def show_hooks(self) -> list[Hook]:
        """The global hooks that are set (``show-hooks -g``)."""
        return parse_hooks(await self.run("show-hooks", "-g"))

    async def set_history_limit(self, limit: int) -> str:
        """history-limit for panes made from now on, globally; what tmux holds after
        (``settings.set_and_show``: 3.3a reads it when a pane's grid is made)."""
        return await set_and_show(self, ("-g",), "history-limit", str(limit))

    async def wait_for(self, channel: str, timeout: float) -> bool:
        """``wait-for CHANNEL``: True once it is signalled, False after ``timeout`` seconds
        (a tmux process of its own: ``transport.channels``)."""
        return await wait_for(self.socket, self.tmux_bin, self.environ, channel, timeout)

    async def signal_channel(self, channel: str) -> None:
        """``wait-for -S CHANNEL``: wake its waiters (or keep the signal for the next)."""
        await self.run("wait-for", "-S", "--", channel)


LOCAL_ONLY = frozenset(
    {"LIBTMUX_SOCKET", "LIBTMUX_SOCKET_PATH", "TMUX", "TMUX_PANE", "TMUX_TMPDIR", SSH_ENV}
)
"""What a configured host's core does not take from this process's environment."""


class Tmux:
    """``socket`` replaces the default socket the environment names (``default_socket``);
    ``prepare`` runs once before the first command on that socket's server."""

    def __init__(
        self,
        environ: Mapping[str, str],
        *,
        socket: Socket | None = None,
        prepare: Prepare | None = None,
        hosts: Hosts | None = None,
    ) -> None:
        self.environ = dict(environ)
        self.hosts = hosts if hosts is not None else Hosts()
        self._hosts: dict[str, Tmux] = {}  # a configured host's own core, made on first use
        self._used: dict[str, float] = {}  # when each was last used (time.monotonic)
        self._closing: set[asyncio.Task[None]] = set()
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
        hosts = list(self._hosts.values())
        self._hosts.clear()
        for host in hosts:
            await host.aclose()
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)
        servers = list(self._servers.values())
        self._servers.clear()
        for server in servers:
            await server.live.aclose()
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

    def host(self, name: str) -> Tmux:
        """The core of a configured host (``transport.hosts``): its environment is this
        one's with ``--ssh`` naming that host and no local socket, made on first use; a
        host unused for ``hosts.idle_seconds`` and watched by no wait or subscription is
        closed meanwhile (its next use connects again)."""
        now = time.monotonic()
        self._close_idle(now, name)
        tmux = self._hosts.get(name)
        if tmux is None:
            environ = {k: v for k, v in self.environ.items() if k not in LOCAL_ONLY}
            environ[SSH_ENV] = self.hosts.ssh[name]
            tmux = self._hosts[name] = Tmux(environ)
        self._used[name] = now
        return tmux

    def _close_idle(self, now: float, keep: str) -> None:
        for name, used in list(self._used.items()):
            if name == keep or now - used < self.hosts.idle_seconds or name not in self._hosts:
                continue
            if self._hosts[name].watching():  # a wait or a subscription holds it: not idle
                continue
            idle = self._hosts.pop(name)
            del self._used[name]
            task = asyncio.get_running_loop().create_task(idle.aclose())
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    def watching(self) -> bool:
        """Whether a wait, a subscription or a cursor's counter watches output here now."""
        return any(server.watchers.sessions_watched() for server in self._servers.values())

    def server(self, socket_name: str | None = None) -> Server:
        """The server on ``socket_name`` (a tmux -L name, or ``host/name`` on a configured
        host), else the configured default."""
        if socket_name is not None and HOST_SEPARATOR in socket_name and self.hosts.ssh:
            host, name = self.hosts.split(socket_name)
            if host is not None:
                return self.host(host).server(name)
        if self._used:  # a local call closes idle hosts too
            self._close_idle(time.monotonic(), "")
        self.require_supported()
        socket = self.socket(socket_name)
        server = self._servers.get(socket.path)
        if server is None:
            transport = kinds.make_transport(
                self.transport_kind, socket, self.tmux_bin, self.environ
            )
            watchers = OutputWatchers(socket, self.tmux_bin, self.environ)
            prepare = self._prepare if socket == self._default else None
            server = self._servers[socket.path] = Server(
                transport,
                self.caller,
                watchers,
                prepare,
                tmux_bin=self.tmux_bin,
                environ=self.environ,
            )
        return server
