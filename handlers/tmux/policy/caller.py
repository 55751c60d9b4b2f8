"""Is a pane the one this MCP server runs in? The answer every listing gives (``is_caller``,
``caller``), and the facts the server instructions may state.

The facts are ``TMUX`` and ``TMUX_PANE`` as ``transport.identity.Host`` reads them,
and its rule of "the same server"; a pane is the caller's only when both its
server and its id are.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from ..transport.identity import Host
from ..transport.sockets import Socket


class Relation(enum.Enum):
    SELF = "self"  # the caller's server (see ``transport.identity``) and the caller's pane id
    OTHER = "other"  # not the caller, or cannot be proven to be
    UNKNOWN = "unknown"  # this process does not run inside tmux

    @property
    def as_bool(self) -> bool | None:
        """The python profile's ``is_caller``: true, false or null."""
        return None if self is Relation.UNKNOWN else self is Relation.SELF


@dataclass(frozen=True, slots=True)
class Caller:
    """Is a pane the one this MCP server runs in?"""

    host: Host

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Caller:
        return cls(Host.from_environ(environ))

    @property
    def inside_tmux(self) -> bool:
        return self.host.inside_tmux

    def facts(self) -> dict[str, str]:
        """The pane and socket this process runs in, when both are known (else nothing)."""
        pane_id, socket_path = self.host.pane_id, self.host.socket_path
        if pane_id is None or socket_path is None:
            return {}
        return {"caller_pane": pane_id, "caller_socket": socket_path}

    def relation(
        self, socket: Socket, pane_id: str, server_pid: int | str | None = None
    ) -> Relation:
        """``pane_id`` on the server at ``socket`` (whose pid, when known, is ``server_pid``)."""
        if not self.host.inside_tmux:
            return Relation.UNKNOWN
        if pane_id != self.host.pane_id:  # inside tmux with no pane (run-shell): none is ours
            return Relation.OTHER
        if self.host.same_server(socket.path, server_pid):
            return Relation.SELF
        return Relation.OTHER
