"""What a transport is, and the transports there are: the one list the command line offers.

A transport runs tmux commands on one server (``Transport``); the kinds are a
long-lived control-mode client (``control``) and one tmux process per command
(``process``). ``make_transport`` is the one place a transport is made, so a
benchmark or a test can put its own in by replacing it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from .control import ControlTransport
from .process import SubprocessTransport
from .sockets import Socket


class Transport(Protocol):
    """Runs one tmux command on one server and returns its output lines.

    ``retry=True`` marks a read: a transport whose connection died while the
    command was in flight may run it again rather than fail.
    """

    socket: Socket

    async def run(self, args: Sequence[str], *, retry: bool = False) -> list[str]: ...

    async def run_many(
        self, commands: Sequence[Sequence[str]], *, retry: bool = False
    ) -> list[list[str]]:
        """Run commands in order; a transport that can pipelines them."""
        ...

    def own_client_pids(self) -> frozenset[int]:
        """Pids of tmux clients this transport keeps attached (hidden from reports)."""
        ...


TRANSPORT_ENV = "TMUX_CONTRACT_MCP_TRANSPORT"
TransportClass = Callable[[Socket, str, Mapping[str, str]], Transport]
# The one list of transports: name -> (its class, what it is). The first is the default;
# the command line offers these names and describes them with these words.
TRANSPORT_KINDS: dict[str, tuple[TransportClass, str]] = {
    "control": (ControlTransport, "one long-lived tmux control-mode client per tmux server"),
    "subprocess": (SubprocessTransport, "one tmux process per command"),
}
TRANSPORTS = tuple(TRANSPORT_KINDS)

# Commands that only read: safe to run again if the connection died under them.
READS = frozenset(
    {
        "capture-pane",
        "display-message",
        "list-buffers",
        "list-clients",
        "list-panes",
        "list-sessions",
        "list-windows",
        "show-buffer",
        "show-environment",
        "show-hooks",
        "show-options",
    }
)


def is_read(args: Sequence[str]) -> bool:
    return bool(args) and args[0] in READS


class UnknownTransport(ValueError):
    pass


def make_transport(
    kind: str, socket: Socket, tmux_bin: str, environ: Mapping[str, str]
) -> Transport:
    """The transport ``kind`` (one of ``TRANSPORTS``) to the server on ``socket``."""
    cls, _ = TRANSPORT_KINDS[kind]
    return cls(socket, tmux_bin, environ)
