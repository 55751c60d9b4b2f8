"""The transport layer: how a command reaches a tmux server, and how its events come back.

Nothing here knows a pane, a window or a session as an object, nor any rule of
what an agent may do: it runs tmux commands and hands back lines. Above it, the
objects layer (``tmux.objects``) names what the lines mean, and the policy layer
(``tmux.policy``) decides what may be run; this package imports neither.

- ``sockets``: which tmux server a call talks to (``Socket``), the way tmux finds it.
- ``identity``: which server and pane ``TMUX`` and ``TMUX_PANE`` name (``Host``).
- ``kinds``: what a transport is (``Transport``) and the two there are (``TRANSPORTS``);
  ``make_transport`` is the one place one is made.
- ``process``: one tmux process per command (``SubprocessTransport``).
- ``control``: one long-lived control-mode client per server (``ControlTransport``),
  with ``quoting`` for what it writes and reads back.
- ``ssh``: the one ssh connection every tmux process goes through when tmux runs on
  another host (``--ssh``).
- ``events``: the control clients that deliver a pane's output to a wait (``Watch``),
  and ``stream``: that output as text.
- ``channels``: a ``tmux wait-for`` process, waited on with a deadline.
- ``version``: which tmux the server runs, checked once at startup; run as
  ``python -m tmux_contract_mcp.handlers.tmux.transport.version`` by the set-up, so
  this package does not import it.

Errors are the core's (``tmux.errors``).
"""

from .channels import check_connection, wait_for, waiter
from .control import CONTROL_COMMANDS, ControlClient, ControlTransport, output_event
from .events import MAY_HAVE_GONE, OutputWatchers, Watch, dead_pane
from .identity import Host
from .kinds import (
    TRANSPORT_ENV,
    TRANSPORT_KINDS,
    TRANSPORTS,
    Transport,
    UnknownTransport,
    is_read,
    make_transport,
)
from .process import DEFAULT_TIMEOUT, SubprocessTransport, run_fed
from .quoting import command_line, quote_argument, unescape_output
from .sockets import (
    SOCKET_ENV,
    SOCKET_PATH_ENV,
    TMUX_BIN_ENV,
    Socket,
    default_socket,
    named_socket,
    path_socket,
    process_environ,
    socket_dir,
    socket_for_name,
    tmux_args,
    tmux_binary,
)
from .ssh import (
    SSH_ENV,
    SSH_FAILED,
    BadSshTarget,
    Remote,
    SshTarget,
    parse_target,
    remote_for,
    tmux_command,
    tmux_invocation,
)
from .stream import KEEP_BYTES, Lines, PaneStream, plain

__all__ = [
    "CONTROL_COMMANDS",
    "DEFAULT_TIMEOUT",
    "KEEP_BYTES",
    "MAY_HAVE_GONE",
    "SOCKET_ENV",
    "SOCKET_PATH_ENV",
    "SSH_ENV",
    "SSH_FAILED",
    "TMUX_BIN_ENV",
    "TRANSPORTS",
    "TRANSPORT_ENV",
    "TRANSPORT_KINDS",
    "BadSshTarget",
    "ControlClient",
    "ControlTransport",
    "Host",
    "Lines",
    "OutputWatchers",
    "PaneStream",
    "Remote",
    "Socket",
    "SshTarget",
    "SubprocessTransport",
    "Transport",
    "UnknownTransport",
    "Watch",
    "check_connection",
    "command_line",
    "dead_pane",
    "default_socket",
    "is_read",
    "make_transport",
    "named_socket",
    "output_event",
    "parse_target",
    "path_socket",
    "plain",
    "process_environ",
    "quote_argument",
    "remote_for",
    "run_fed",
    "socket_dir",
    "socket_for_name",
    "tmux_args",
    "tmux_binary",
    "tmux_command",
    "tmux_invocation",
    "unescape_output",
    "wait_for",
    "waiter",
]
