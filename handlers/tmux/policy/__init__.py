"""The policy layer: what this MCP server may do to a tmux server, decided before it acts.

The rules are the user's and the server's own, never a tool's: the destructive
tools never remove what this process runs in (``guard``), typed input never lands
inside a command this process is running (``ledger``), a pane is the caller's only
when both its server and its id prove it (``caller``), and no wait outlasts the
user's bound (``limits``). The objects layer and the profiles ask these before
they act; this package imports only the transport (a server is what ``guard.Server``
says it is), so the rules do not depend on the objects that obey them.
"""

from .caller import Caller, Relation
from .guard import Guard, Location, Place
from .ledger import ECHO_WINDOW, Ledger
from .limits import DEFAULT_WAIT_MAX, WAIT_MAX_ENV, effective_timeout, wait_ceiling

__all__ = [
    "DEFAULT_WAIT_MAX",
    "ECHO_WINDOW",
    "WAIT_MAX_ENV",
    "Caller",
    "Guard",
    "Ledger",
    "Location",
    "Place",
    "Relation",
    "effective_timeout",
    "wait_ceiling",
]
