"""How long a wait may last: the user's bound, ``LIBTMUX_MCP_WAIT_MAX_SECONDS``.

A wait asked for longer is clamped to it and says so; a bound that is not a
positive number of seconds is an error on every wait, never a silent default.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ....errors import ToolError

WAIT_MAX_ENV = "LIBTMUX_MCP_WAIT_MAX_SECONDS"
DEFAULT_WAIT_MAX = 30.0


def wait_ceiling(environ: Mapping[str, str]) -> float:
    """The longest any wait may last: ``LIBTMUX_MCP_WAIT_MAX_SECONDS`` (default 30 s).

    Read from the environment the server was started with; a value that is not
    a positive number of seconds is an error on every wait, never a silent default.
    """
    raw = environ.get(WAIT_MAX_ENV, "").strip()
    if not raw:
        return DEFAULT_WAIT_MAX
    try:
        ceiling = float(raw)
    except ValueError:
        ceiling = math.nan
    if not (math.isfinite(ceiling) and ceiling > 0):
        raise ToolError(
            f"{WAIT_MAX_ENV}={raw!r} in this server's environment is not a positive number "
            f"of seconds. Set it to one (default {DEFAULT_WAIT_MAX:g}) and restart the server."
        )
    return ceiling


def effective_timeout(timeout: float, environ: Mapping[str, str]) -> float:
    """The timeout a wait uses: clamped to the ceiling (never refused), and 0 for 0 or less."""
    return min(max(timeout, 0.0), wait_ceiling(environ))
