"""The rust profile's configuration: the families' shared settings (``libtmux_family.config``)
and its retired variables, read once, at startup.

Anything wrong (both sockets, a relative path, an empty token in a tool list,
a retired variable) stops startup with one line naming every problem, before
tmux is touched; unknown toolset or tool names are the runtime's to refuse.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...generated.rust.registry import DEFAULT_TOOLSETS
from ..libtmux_family.config import (
    FamilyConfig,
    family_config,
    list_problems,
    retired_problems,
    socket_problems,
)
from ..services import StartupRefused

# Variables of earlier releases of the family: set, they would silently mean nothing.
RETIRED = {
    "LIBTMUX_SAFETY": "use LIBTMUX_TOOLSETS, LIBTMUX_TOOLS and LIBTMUX_EXCLUDE_TOOLS",
    "TMUX_MCP_SAFETY": "use LIBTMUX_TOOLSETS, LIBTMUX_TOOLS and LIBTMUX_EXCLUDE_TOOLS",
    "TMUX_MCP_CONFIRM": "confirmation is the client's to ask for (tool annotations)",
}


def problems(environ: Mapping[str, str]) -> list[str]:
    """Everything wrong with the environment, in the order the variables are read."""
    return socket_problems(environ) + retired_problems(environ, RETIRED) + list_problems(environ)


def read_config(environ: Mapping[str, str]) -> FamilyConfig:
    """The configuration, or ``StartupRefused`` naming every problem on one line."""
    found = problems(environ)
    if found:
        raise StartupRefused("; ".join(found))
    return family_config(environ, DEFAULT_TOOLSETS)
