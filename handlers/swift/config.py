"""The swift profile's configuration, read from the environment once, at startup.

As in the family: one socket per process, by default the dedicated socket
``libtmux-mcp`` (never tmux's ``default``, never the tmux this process runs in),
``LIBTMUX_SOCKET`` or ``LIBTMUX_SOCKET_PATH`` (one of them), and
``LIBTMUX_TMUX_CONFIG``, the file a server started through that socket reads.
Anything wrong (both sockets, a relative path, an empty token in a tool list,
a retired variable, a wait ceiling that is not a number) stops startup with
one line naming every problem, before tmux is touched. LIBTMUX_MCP_WAIT_MAX_SECONDS
(120 s when unset) is held within 1 to 300 s. The runtime checks toolset and tool names themselves
(``toolsets``); the stricter list syntax of the family is checked here.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass

from ...generated.swift.registry import DEFAULT_TOOLSETS
from ...toolsets import EXCLUDE_TOOLS_ENV, TOOLS_ENV, TOOLSETS_ENV
from ..services import StartupRefused
from ..tmux.sockets import (
    SOCKET_ENV,
    SOCKET_PATH_ENV,
    Socket,
    socket_dir,
    tmux_binary,
)

DEDICATED_SOCKET = "libtmux-mcp"
WAIT_MAX_ENV = "LIBTMUX_MCP_WAIT_MAX_SECONDS"
DEFAULT_WAIT_MAX = 120.0
WAIT_BOUNDS = (1.0, 300.0)
CONFIG_ENV = "LIBTMUX_TMUX_CONFIG"
LIST_VARIABLES = (TOOLSETS_ENV, TOOLS_ENV, EXCLUDE_TOOLS_ENV)
# Variables of earlier releases of the family: set, they would silently mean nothing.
RETIRED = {
    "LIBTMUX_SAFETY": "use LIBTMUX_TOOLSETS, LIBTMUX_TOOLS and LIBTMUX_EXCLUDE_TOOLS",
    "LIBTMUX_MCP_TOOLS": "use LIBTMUX_TOOLSETS with LIBTMUX_TOOLS",
    "LIBTMUX_TMUX_CONF": "use LIBTMUX_TMUX_CONFIG",
}


@dataclass(frozen=True, slots=True)
class Selection:
    """The tool selection as the environment states it, each list sorted."""

    toolsets: tuple[str, ...]  # LIBTMUX_TOOLSETS, else the profile's default
    included: tuple[str, ...]  # LIBTMUX_TOOLS
    excluded: tuple[str, ...]  # LIBTMUX_EXCLUDE_TOOLS


@dataclass(frozen=True, slots=True)
class SwiftConfig:
    """Where this process's one tmux server is, how it was chosen, and the tool selection."""

    socket: Socket
    selector: str  # "name:<socket name>" or "path:<socket path>"
    dedicated: bool  # no socket and no config chosen: the family's own daemon
    config: str | None  # LIBTMUX_TMUX_CONFIG
    tmux_bin: str
    socket_name: str | None  # the -L name, when the socket was chosen by name
    selection: Selection
    wait_ceiling: float  # seconds: LIBTMUX_MCP_WAIT_MAX_SECONDS, clamped to 1..300

    @property
    def attach_command(self) -> str:
        """The shell command a person runs to look at this server."""
        where = (
            f"-L {shell_quote(self.socket_name)}"
            if self.socket_name is not None
            else f"-S {shell_quote(self.socket.path)}"
        )
        return f"{shell_quote(self.tmux_bin)} -N {where} attach"


def shell_quote(value: str) -> str:
    return "'" + value.replace("'", "'\"'\"'") + "'"


def problems(environ: Mapping[str, str]) -> list[str]:
    """Everything wrong with the environment, in the order the variables are read."""
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
    elif config is not None and not os.path.isfile(config):
        found.append(f"{CONFIG_ENV} names no file: {config}")
    for variable, instead in RETIRED.items():
        if variable in environ:
            found.append(f"{variable} is retired; {instead}")
    ceiling = environ.get(WAIT_MAX_ENV)
    if ceiling is not None and not math.isfinite(number(ceiling)):
        found.append(f"{WAIT_MAX_ENV} must be a number of seconds, not {ceiling!r}")
    for variable in LIST_VARIABLES:
        value = environ.get(variable)
        if value and any(not token.strip() for token in value.split(",")):
            found.append(f"{variable} contains an empty token: {value!r}")
    return found


def number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def wait_ceiling(environ: Mapping[str, str]) -> float:
    """The longest wait, in seconds: the variable (120 when unset) within 1..300."""
    raw = environ.get(WAIT_MAX_ENV)
    seconds = DEFAULT_WAIT_MAX if raw is None else number(raw)
    return min(max(seconds, WAIT_BOUNDS[0]), WAIT_BOUNDS[1])


def names(value: str | None) -> tuple[str, ...]:
    """A comma-separated list's names, sorted (its syntax was checked by ``problems``)."""
    return tuple(sorted({name.strip() for name in (value or "").split(",") if name.strip()}))


def selection(environ: Mapping[str, str]) -> Selection:
    toolsets = (
        names(environ[TOOLSETS_ENV]) if TOOLSETS_ENV in environ else tuple(sorted(DEFAULT_TOOLSETS))
    )
    return Selection(toolsets, names(environ.get(TOOLS_ENV)), names(environ.get(EXCLUDE_TOOLS_ENV)))


def read_config(environ: Mapping[str, str]) -> SwiftConfig:
    """The configuration, or ``StartupRefused`` naming every problem on one line."""
    found = problems(environ)
    if found:
        raise StartupRefused("; ".join(found))
    name = environ.get(SOCKET_ENV)
    path = environ.get(SOCKET_PATH_ENV)
    config = environ.get(CONFIG_ENV)
    dedicated = name is None and path is None and config is None
    tmux_bin, tools, ceiling = tmux_binary(environ), selection(environ), wait_ceiling(environ)
    if path is not None:
        socket = Socket(path, f"socket {path}", config)
        return SwiftConfig(socket, f"path:{path}", False, config, tmux_bin, None, tools, ceiling)
    chosen = name if name is not None else DEDICATED_SOCKET
    full = os.path.join(socket_dir(environ), chosen)
    socket = Socket(full, f"socket '{chosen}' ({full})", config)
    return SwiftConfig(
        socket, f"name:{chosen}", dedicated, config, tmux_bin, chosen, tools, ceiling
    )
