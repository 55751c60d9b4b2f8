"""Where this process runs, from ``TMUX`` and ``TMUX_PANE``: one parser and one rule.

tmux gives every process it starts in a pane ``TMUX`` =
``<socket path>,<server pid>,<session>`` and ``TMUX_PANE`` = ``%<n>``. Pane ids
are only unique per server, so "is this pane the caller" (``policy.caller``) needs
both facts, and so does the guard of the destructive tools (``policy.guard``); the
default socket (``sockets``) is the one in ``TMUX``. All read them here:

- ``TMUX`` is parsed only when it is the value tmux writes (an absolute path,
  which may itself hold commas, a numeric pid and a session index); anything
  else names no server we can compare with.
- ``TMUX_PANE`` counts only when it is a pane id.
- A server is the caller's when its socket is the same file as the socket in
  ``TMUX`` (same device and inode, so a symlink or a hard link counts, a missing
  file never does), or when its pid, where known, is the pid in ``TMUX`` (a
  socket file moved or renamed still reaches the same server).
- A server reached through ssh (``--ssh``) is the caller's only when it proves to be
  the one in ``TMUX`` on this very machine: its host name (``#{host}``) is this
  machine's, its socket path (``#{socket_path}``) is the path in ``TMUX``, its pid
  (``#{pid}``) the pid in ``TMUX``, and here that pid is a running process and that
  path a socket. The local file and pid cannot be compared alone: another host may
  have the same path and pid by chance; nor the host name alone: hosts may share one.
"""

from __future__ import annotations

import os
import re
import socket as sockets
import stat
from collections.abc import Mapping
from dataclasses import dataclass

_PANE_ID = re.compile(r"^%[0-9]+\Z")
_SESSION_INDEX = re.compile(r"^-?[0-9]+\Z")


@dataclass(frozen=True, slots=True)
class Host:
    """``TMUX`` and ``TMUX_PANE`` as given, and what they say when tmux wrote them."""

    tmux: str  # TMUX as given ("" when unset)
    pane: str  # TMUX_PANE as given ("" when unset)
    socket_path: str | None  # None when TMUX is not the value tmux writes
    server_pid: int | None

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Host:
        tmux = environ.get("TMUX", "")
        pane = environ.get("TMUX_PANE", "")
        # The path may itself hold commas: the pid and session are the last two fields.
        parts = tmux.rsplit(",", 2)
        if (
            len(parts) == 3
            and parts[0].startswith("/")
            and parts[1].isdigit()
            and _SESSION_INDEX.match(parts[2])
        ):
            return cls(tmux, pane, parts[0], int(parts[1]))
        return cls(tmux, pane, None, None)

    @property
    def inside_tmux(self) -> bool:
        """``TMUX`` is set (a process that unset it chose to be treated as outside)."""
        return bool(self.tmux)

    @property
    def pane_id(self) -> str | None:
        return self.pane if _PANE_ID.match(self.pane) else None

    def same_server(self, socket_path: str, server_pid: int | str | None = None) -> bool:
        """Whether the server on ``socket_path`` (with ``server_pid``, when known) is TMUX's."""
        if self.socket_path is None:
            return False
        if server_pid is not None and str(server_pid) == str(self.server_pid):
            return True
        try:
            return os.path.samefile(self.socket_path, socket_path)
        except OSError:
            return False  # a socket that is not there is nobody's

    def same_server_here(self, host_name: str, socket_path: str, server_pid: str) -> bool:
        """Whether a server on another end of ssh, which says it runs on ``host_name`` with
        ``socket_path`` and ``server_pid``, is TMUX's server on this machine."""
        if self.socket_path is None or self.server_pid is None:
            return False
        if (host_name, socket_path, server_pid) != (
            sockets.gethostname(),
            self.socket_path,
            str(self.server_pid),
        ):
            return False
        try:
            os.kill(self.server_pid, 0)
        except PermissionError:
            pass  # running, as another user
        except OSError:
            return False
        try:
            return stat.S_ISSOCK(os.stat(self.socket_path).st_mode)
        except OSError:
            return False
