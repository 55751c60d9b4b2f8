"""The tmux core's entry point: one ``Tmux`` per MCP server process.

It knows the caller, the default socket and one transport per socket, and
hands out ``Server`` objects that speak to exactly one tmux server.
"""

from __future__ import annotations

from collections.abc import Mapping

from .formats import PANE_FORMAT, PaneRow, pane_rows
from .identity import Caller, Relation
from .sockets import Socket, default_socket, socket_for_name, tmux_binary
from .transport import SubprocessTransport, Transport


class Server:
    """One tmux server, reached through its transport."""

    def __init__(self, transport: Transport, caller: Caller) -> None:
        self.transport = transport
        self.caller = caller

    @property
    def socket(self) -> Socket:
        return self.transport.socket

    async def run(self, *args: str) -> list[str]:
        return await self.transport.run(args)

    async def list_panes(self, *scope: str) -> list[PaneRow]:
        """``list-panes`` with every pane field; ``scope`` is ``-a``, ``-s``, ``-t``…"""
        return pane_rows(await self.run("list-panes", *scope, "-F", PANE_FORMAT))

    def relation(self, pane_id: str) -> Relation:
        return self.caller.relation(self.socket, pane_id)


class Tmux:
    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = dict(environ)
        self.caller = Caller.from_environ(environ)
        self.tmux_bin = tmux_binary(environ)
        self._default: Socket | None = None
        self._servers: dict[str, Server] = {}

    def socket(self, socket_name: str | None = None) -> Socket:
        if socket_name is not None:
            return socket_for_name(socket_name, self.environ)
        if self._default is None:
            self._default = default_socket(self.environ)
        return self._default

    def server(self, socket_name: str | None = None) -> Server:
        """The server on ``socket_name`` (a tmux -L name), else the configured default."""
        socket = self.socket(socket_name)
        server = self._servers.get(socket.path)
        if server is None:
            transport = SubprocessTransport(socket, self.tmux_bin, self.environ)
            server = self._servers[socket.path] = Server(transport, self.caller)
        return server
