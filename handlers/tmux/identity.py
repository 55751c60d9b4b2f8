"""Is a pane the one this MCP server runs in?

The answer needs two facts: the pane id (``TMUX_PANE``) and the server, told
by the real path of the socket in ``TMUX``. Pane ids are only unique per
server, so an id match on another socket is not the caller.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Mapping
from dataclasses import dataclass

from .sockets import Socket


class Relation(enum.Enum):
    SELF = "self"  # same socket (by real path) and same pane id
    OTHER = "other"  # not the caller, or cannot be proven to be
    UNKNOWN = "unknown"  # this process does not run inside tmux

    @property
    def as_bool(self) -> bool | None:
        """The python profile's ``is_caller``: true, false or null."""
        return None if self is Relation.UNKNOWN else self is Relation.SELF


@dataclass(frozen=True, slots=True)
class Caller:
    """Where this process runs, from ``TMUX`` and ``TMUX_PANE``."""

    socket_path: str | None
    pane_id: str | None
    inside_tmux: bool

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Caller:
        tmux = environ.get("TMUX", "")
        if not tmux:
            return cls(None, None, inside_tmux=False)
        # Inside tmux but with no pane (e.g. run-shell): no pane can be ours.
        return cls(
            tmux.rsplit(",", 2)[0] or None, environ.get("TMUX_PANE") or None, inside_tmux=True
        )

    def facts(self) -> dict[str, str]:
        """The pane and socket this process runs in, when both are known (else nothing)."""
        if not self.inside_tmux or self.pane_id is None or self.socket_path is None:
            return {}
        return {"caller_pane": self.pane_id, "caller_socket": self.socket_path}

    def relation(self, socket: Socket, pane_id: str) -> Relation:
        if not self.inside_tmux:
            return Relation.UNKNOWN
        if self.pane_id is None or pane_id != self.pane_id or self.socket_path is None:
            return Relation.OTHER
        caller_socket = os.path.realpath(self.socket_path)
        if not os.path.exists(caller_socket):
            return Relation.OTHER  # cannot prove it: not the caller
        return Relation.SELF if caller_socket == socket.real_path else Relation.OTHER
