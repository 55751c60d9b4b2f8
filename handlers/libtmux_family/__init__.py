"""What the libtmux MCP families (the rust and swift profiles) share above the tmux core.

Both serve one tmux socket per process, read the same settings once at startup
(``config``), find or start their dedicated server and own it when they started it
(``launch``), and describe themselves in the ``tmux://capabilities`` resource
(``capabilities``). The python profile has none of this: it reaches any socket a
call names.
"""

from .capabilities import CapabilityDocument
from .config import FamilyConfig, family_config, list_problems, retired_problems, socket_problems
from .launch import FamilyLifecycle, Provenance, ServedServer

__all__ = [
    "CapabilityDocument",
    "FamilyConfig",
    "FamilyLifecycle",
    "Provenance",
    "ServedServer",
    "family_config",
    "list_problems",
    "retired_problems",
    "socket_problems",
]
