"""Which tmux server a call talks to, and that server's real socket path.

The socket path is worked out here, the way tmux itself does, and passed to
tmux as ``-S``: the path the identity check compares is then the path every
command really used. When tmux runs on another host (``ssh``), a socket name
is looked up in that host's tmux directory (asked of the host once), a socket
path is a path there, and every label names the host.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import TmuxError
from .identity import Host
from .ssh import remote_for

SOCKET_ENV = "LIBTMUX_SOCKET"
SOCKET_PATH_ENV = "LIBTMUX_SOCKET_PATH"
TMUX_BIN_ENV = "LIBTMUX_TMUX_BIN"

_SOCKET_NAME = re.compile(r"^[^/\x00]+\Z")


@dataclass(frozen=True, slots=True)
class Socket:
    """One tmux server's address: the path passed as ``-S`` and how the user named it.

    ``config`` is the configuration file (``-f``) a server started through this
    address reads; None leaves tmux's own choice.
    """

    path: str
    label: str
    config: str | None = None

    @property
    def real_path(self) -> str:
        return os.path.realpath(self.path)

    def __str__(self) -> str:
        return self.label


UTF8 = "-u"
"""tmux's flag for a client that takes UTF-8. Without it, a client whose locale is not UTF-8
(``LC_ALL=C``) gets every byte outside printable ASCII of what tmux prints as ``_``: the
field separator of every listing (``formats.SEP``) and every non-ASCII character of a
capture. So every tmux client this process starts passes it."""


def tmux_args(socket: Socket) -> list[str]:
    """The global tmux flags that reach ``socket`` (and start a server there with its config),
    as a client that takes UTF-8 whatever the locale."""
    return [UTF8, "-S", socket.path, *(("-f", socket.config) if socket.config else ())]


def socket_dir(environ: Mapping[str, str]) -> str:
    """tmux's directory for named sockets on the host tmux runs on."""
    remote = remote_for(environ)
    if remote is not None:
        return remote.socket_dir()
    base = environ.get("TMUX_TMPDIR") or "/tmp"
    return os.path.join(os.path.realpath(base), f"tmux-{os.getuid()}")


def on_host(environ: Mapping[str, str]) -> str:
    """The end of a socket's label: which host, when tmux runs on another one."""
    remote = remote_for(environ)
    return "" if remote is None else f" on host {remote.target}"


def path_socket(path: str, environ: Mapping[str, str], config: str | None = None) -> Socket:
    """The socket at ``path`` (on the host tmux runs on)."""
    return Socket(path, f"socket {path}{on_host(environ)}", config)


def socket_for_name(name: str, environ: Mapping[str, str]) -> Socket:
    if not _SOCKET_NAME.match(name):
        raise TmuxError(
            f"Invalid argument `socket_name`: {name!r} is not a tmux socket name "
            "(it must be non-empty and contain no '/'). Use the name given to tmux -L."
        )
    return named_socket(name, environ)


def named_socket(name: str, environ: Mapping[str, str], config: str | None = None) -> Socket:
    """The socket tmux -L ``name`` reaches on the host tmux runs on."""
    path = os.path.join(socket_dir(environ), name)
    return Socket(path, f"socket '{name}' ({path}){on_host(environ)}", config)


def default_socket(environ: Mapping[str, str]) -> Socket:
    """LIBTMUX_SOCKET_PATH, else LIBTMUX_SOCKET, else the caller's tmux, else 'default'.

    The caller's tmux is the socket in ``TMUX`` when tmux wrote it (see ``identity``);
    it is a tmux of this host, so with tmux on another host that host's 'default' is.
    """
    if environ.get(SOCKET_PATH_ENV):
        return path_socket(environ[SOCKET_PATH_ENV], environ)
    if environ.get(SOCKET_ENV):
        return socket_for_name(environ[SOCKET_ENV], environ)
    caller = None if remote_for(environ) else Host.from_environ(environ).socket_path
    if caller is not None:
        return Socket(caller, f"socket {caller}")
    return socket_for_name("default", environ)


def process_environ(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a tmux process of ours runs in: ``environ`` (default: this
    process's) without ``TMUX``, since the socket is always explicit (``-S``)."""
    env = dict(environ if environ is not None else os.environ)
    env.pop("TMUX", None)
    return env


def tmux_binary(environ: Mapping[str, str]) -> str:
    return environ.get(TMUX_BIN_ENV) or "tmux"
