"""The swift profile (the Swift libtmux MCP contract family).

One socket per process, camelCase shapes, and a ref beside every id: parts
that each do one job, sharing the tmux core, the refs and the lookups.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...generated.swift.interface import SwiftProfileHandlers
from ..compose import compose
from ..services import Runtime
from ..tmux.core import Tmux, TmuxHandlers
from ..tmux.refs import Refs
from .batch import BatchTools
from .listing import Listing
from .lookup import Lookups
from .reading import Reading
from .server import ServerInfo
from .settings import Settings


def create_handlers(environ: Mapping[str, str], runtime: Runtime) -> SwiftProfileHandlers:
    tmux = Tmux(environ)
    refs = Refs()
    lookups = Lookups(tmux, refs)
    parts = [
        TmuxHandlers(tmux),
        Listing(lookups, refs),
        Reading(lookups, refs),
        ServerInfo(lookups),
        Settings(lookups, refs),
        BatchTools(runtime),
    ]
    handlers: SwiftProfileHandlers = compose(SwiftProfileHandlers, parts)
    return handlers
