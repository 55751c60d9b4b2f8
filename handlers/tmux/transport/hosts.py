"""The hosts a configuration file names, as the tmux core sees them: a ``socket_name`` of
the form ``host/socket`` reaches ``socket`` (a ``tmux -L`` name) on that host, through ssh
exactly as ``--ssh`` reaches one host. A ``tmux -L`` name cannot hold ``/``, so no local
socket name takes this form; a host the file does not name is refused, whatever a call says.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ....errors import ToolError

HOST_SEPARATOR = "/"
DEFAULT_IDLE_SECONDS = 300.0
DEFAULT_LIST_SECONDS = 5.0


class UnknownHost(ToolError):
    """A ``host/socket`` whose host the configuration file does not name."""


@dataclass(frozen=True)
class Hosts:
    """``ssh``: each configured host's name and its ``[USER@]HOST[:PORT]``; a connection
    unused for ``idle_seconds`` closes; ``list_servers`` waits ``list_seconds`` per host."""

    ssh: Mapping[str, str] = field(default_factory=dict)
    idle_seconds: float = DEFAULT_IDLE_SECONDS
    list_seconds: float = DEFAULT_LIST_SECONDS

    def split(self, socket_name: str, field: str = "socket_name") -> tuple[str | None, str]:
        """``(host, socket)`` of a ``socket_name``: ``(None, name)`` for a local one."""
        if HOST_SEPARATOR not in socket_name:
            return None, socket_name
        host, socket = socket_name.split(HOST_SEPARATOR, 1)
        if host not in self.ssh:
            named = ", ".join(sorted(self.ssh)) or "none"
            raise UnknownHost(
                f"{field} {socket_name!r} names host {host!r}, which this server's "
                f"configuration file does not name (configured hosts: {named}); use "
                "list_servers to see the servers each configured host has.",
                kind="invalid_input",
            )
        if not socket or HOST_SEPARATOR in socket:
            raise UnknownHost(
                f"{field} {socket_name!r}: after {host + HOST_SEPARATOR!r} give one tmux "
                f"socket name, e.g. {host + HOST_SEPARATOR}default.",
                kind="invalid_input",
            )
        return host, socket
