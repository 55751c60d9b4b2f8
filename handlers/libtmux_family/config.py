"""The configuration the libtmux MCP families share, read from the environment once.

One socket per process: by default the dedicated socket ``libtmux-mcp`` (never
tmux's ``default``, never the tmux this process runs in), else
``LIBTMUX_SOCKET`` or ``LIBTMUX_SOCKET_PATH`` (one of them), and
``LIBTMUX_TMUX_CONFIG``, the file a server started through that socket reads.
With tmux on another host (``--ssh``) the socket name is looked up in that host's
tmux directory and both paths are paths of that host, checked there at startup.
Each profile adds its own checks (retired variables, its wait ceiling) and
refuses startup with one line naming every problem, before tmux is touched.
The runtime checks toolset and tool names themselves (``toolsets``); the
stricter list syntax of the families (no empty token) is checked here.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from ...toolsets import EXCLUDE_TOOLS_ENV, TOOLS_ENV, TOOLSETS_ENV
from ..tmux.errors import TmuxUnavailable
from ..tmux.transport.sockets import (
    SOCKET_ENV,
    SOCKET_PATH_ENV,
    Socket,
    named_socket,
    path_socket,
    tmux_binary,
)
from ..tmux.transport.ssh import remote_for

DEDICATED_SOCKET = "libtmux-mcp"
CONFIG_ENV = "LIBTMUX_TMUX_CONFIG"
LIST_VARIABLES = (TOOLSETS_ENV, TOOLS_ENV, EXCLUDE_TOOLS_ENV)


@dataclass(frozen=True, slots=True)
class Selection:
    """The tool selection as the environment states it, each list sorted."""

    toolsets: tuple[str, ...]  # LIBTMUX_TOOLSETS, else the profile's default
    included: tuple[str, ...]  # LIBTMUX_TOOLS
    excluded: tuple[str, ...]  # LIBTMUX_EXCLUDE_TOOLS
    chosen: bool  # LIBTMUX_TOOLSETS was set: no default applies


@dataclass(frozen=True, slots=True)
class FamilyConfig:
    """Where this process's one tmux server is, how it was chosen, and the tool selection."""

    socket: Socket
    selector: str  # "name:<socket name>" or "path:<socket path>"
    dedicated: bool  # no socket and no config chosen: the family's own daemon
    config: str | None  # LIBTMUX_TMUX_CONFIG
    tmux_bin: str
    socket_name: str | None  # the -L name, when the socket was chosen by name
    selection: Selection
    ssh: str | None  # ``ssh -t [-p port] destination`` when tmux runs on another host

    @property
    def attach_command(self) -> str:
        """The shell command a person runs to look at this server (through ssh, quoted
        once more for the remote shell, when it runs on another host)."""
        where = (
            f"-L {shell_quote(self.socket_name)}"
            if self.socket_name is not None
            else f"-S {shell_quote(self.socket.path)}"
        )
        command = f"{shell_quote(self.tmux_bin)} -N {where} attach"
        return command if self.ssh is None else f"{self.ssh} -- {shell_quote(command)}"


def shell_quote(value: str) -> str:
    return "'" + value.replace("'", "'\"'\"'") + "'"


def socket_problems(environ: Mapping[str, str]) -> list[str]:
    """What is wrong with the socket and configuration settings."""
    found: list[str] = []
    name = environ.get(SOCKET_ENV)
    path = environ.get(SOCKET_PATH_ENV)
    config = environ.get(CONFIG_ENV)
    if name is not None and path is not None:
        found.append(f"set only one of {SOCKET_PATH_ENV} and {SOCKET_ENV}")
    if name is not None and (not name or "/" in name or "\0" in name):
        found.append(f"{SOCKET_ENV} must be a socket name (not empty, no '/'), not {name!r}")
    if path is not None and not os.path.isabs(path):
        found.append(f"{SOCKET_PATH_ENV} must be an absolute path, not {path!r}")
    if config is not None and not os.path.isabs(config):
        found.append(f"{CONFIG_ENV} must be an absolute path, not {config!r}")
    remote = remote_for(environ)
    if remote is None:
        if config is not None and os.path.isabs(config) and not os.path.isfile(config):
            found.append(f"{CONFIG_ENV} names no file: {config}")
        return found
    # Paths are paths of the host tmux runs on: asked there, over the one connection.
    try:
        if path is None:
            remote.socket_dir()
        if config is not None and os.path.isabs(config) and not remote.is_file(config):
            found.append(f"{CONFIG_ENV} names no file on host {remote.target}: {config}")
    except TmuxUnavailable as exc:
        found.append(exc.message)
    return found


def retired_problems(environ: Mapping[str, str], retired: Mapping[str, str]) -> list[str]:
    """A line for each retired variable set (``retired``: name -> what to use instead)."""
    return [f"{name} is retired; {instead}" for name, instead in retired.items() if name in environ]


def list_problems(environ: Mapping[str, str]) -> list[str]:
    """A line for each tool list with an empty token (``inspect,`` or ``a,,b``); an empty
    value is not one: it names nothing."""
    found: list[str] = []
    for variable in LIST_VARIABLES:
        value = environ.get(variable)
        if value and any(not token.strip() for token in value.split(",")):
            found.append(f"{variable} contains an empty token: {value!r}")
    return found


def names(value: str | None) -> tuple[str, ...]:
    """A comma-separated list's names, sorted (its syntax was checked by ``list_problems``)."""
    return tuple(sorted({name.strip() for name in (value or "").split(",") if name.strip()}))


def selection(environ: Mapping[str, str], default_toolsets: Collection[str]) -> Selection:
    chosen = TOOLSETS_ENV in environ
    toolsets = names(environ[TOOLSETS_ENV]) if chosen else tuple(sorted(default_toolsets))
    return Selection(
        toolsets, names(environ.get(TOOLS_ENV)), names(environ.get(EXCLUDE_TOOLS_ENV)), chosen
    )


def family_config(environ: Mapping[str, str], default_toolsets: Collection[str]) -> FamilyConfig:
    """The configuration of an environment ``socket_problems`` and ``list_problems`` passed."""
    name = environ.get(SOCKET_ENV)
    path = environ.get(SOCKET_PATH_ENV)
    config = environ.get(CONFIG_ENV)
    dedicated = name is None and path is None and config is None
    tmux_bin, tools = tmux_binary(environ), selection(environ, default_toolsets)
    ssh = ssh_prefix(environ)
    if path is not None:
        socket = path_socket(path, environ, config)
        return FamilyConfig(socket, f"path:{path}", False, config, tmux_bin, None, tools, ssh)
    chosen = name if name is not None else DEDICATED_SOCKET
    socket = named_socket(chosen, environ, config)
    return FamilyConfig(socket, f"name:{chosen}", dedicated, config, tmux_bin, chosen, tools, ssh)


def ssh_prefix(environ: Mapping[str, str]) -> str | None:
    remote = remote_for(environ)
    if remote is None:
        return None
    port = f"-p {remote.target.port} " if remote.target.port is not None else ""
    return f"ssh -t {port}{shell_quote(remote.target.destination)}"


def served_socket(environ: Mapping[str, str]) -> tuple[Socket, bool]:
    """The socket a process of the family serves, and whether it starts a server there
    itself when none runs (the dedicated socket): what ``doctor`` checks."""
    chosen = family_config(environ, ())
    return chosen.socket, chosen.dedicated
