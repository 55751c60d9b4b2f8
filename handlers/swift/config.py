"""The swift profile's configuration: the families' shared settings (``libtmux_family.config``)
plus its own wait ceiling and retired variables, read once, at startup.

Anything wrong (both sockets, a relative path, an empty token in a tool list,
a retired variable, a wait ceiling that is not a number) stops startup with
one line naming every problem, before tmux is touched. LIBTMUX_MCP_WAIT_MAX_SECONDS
(120 s when unset) is held within 1 to 300 s.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields

from ...generated.swift.registry import DEFAULT_TOOLSETS
from ..libtmux_family.config import (
    FamilyConfig,
    family_config,
    list_problems,
    retired_problems,
    socket_problems,
)
from ..services import StartupRefused

WAIT_MAX_ENV = "LIBTMUX_MCP_WAIT_MAX_SECONDS"
DEFAULT_WAIT_MAX = 120.0
WAIT_BOUNDS = (1.0, 300.0)
# Variables of earlier releases of the family: set, they would silently mean nothing.
RETIRED = {
    "LIBTMUX_SAFETY": "use LIBTMUX_TOOLSETS, LIBTMUX_TOOLS and LIBTMUX_EXCLUDE_TOOLS",
    "LIBTMUX_MCP_TOOLS": "use LIBTMUX_TOOLSETS with LIBTMUX_TOOLS",
    "LIBTMUX_TMUX_CONF": "use LIBTMUX_TMUX_CONFIG",
}


@dataclass(frozen=True, slots=True)
class SwiftConfig(FamilyConfig):
    """The shared configuration, and the longest wait."""

    wait_ceiling: float  # seconds: LIBTMUX_MCP_WAIT_MAX_SECONDS, clamped to 1..300


def problems(environ: Mapping[str, str]) -> list[str]:
    """Everything wrong with the environment, in the order the variables are read."""
    found = socket_problems(environ) + retired_problems(environ, RETIRED)
    ceiling = environ.get(WAIT_MAX_ENV)
    if ceiling is not None and not math.isfinite(number(ceiling)):
        found.append(f"{WAIT_MAX_ENV} must be a number of seconds, not {ceiling!r}")
    return found + list_problems(environ)


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


def read_config(environ: Mapping[str, str]) -> SwiftConfig:
    """The configuration, or ``StartupRefused`` naming every problem on one line."""
    found = problems(environ)
    if found:
        raise StartupRefused("; ".join(found))
    shared = family_config(environ, DEFAULT_TOOLSETS)
    values = {field.name: getattr(shared, field.name) for field in fields(shared)}
    return SwiftConfig(**values, wait_ceiling=wait_ceiling(environ))
