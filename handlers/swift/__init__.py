"""The swift profile (the Swift libtmux MCP contract family).

One socket per process, camelCase shapes, and a ref beside every id: parts
that each do one job, sharing the tmux core, the refs and the lookups. The
environment is read once (``config``); the served server is pinned before its
first command (``launch``).
"""

from __future__ import annotations

from collections.abc import Mapping

from ...generated.swift.interface import SwiftProfileHandlers
from ..compose import compose
from ..services import Runtime
from ..tmux.core import Tmux
from ..tmux.ledger import Ledger
from ..tmux.refs import Refs
from .arranging import Arranging
from .batch import BatchTools
from .capabilities import Capabilities
from .channels import Channels
from .config import read_config
from .launch import Pin
from .lifecycle import Lifecycle
from .listing import Listing
from .lookup import Lookups
from .reading import Reading
from .running import Running
from .server import ServerInfo
from .settings import Settings


def create_handlers(environ: Mapping[str, str], runtime: Runtime) -> SwiftProfileHandlers:
    config = read_config(environ)
    pin = Pin(config, environ)
    tmux = Tmux(environ, socket=config.socket, prepare=pin.prepare)
    refs = Refs()
    lookups = Lookups(tmux, refs)
    ledger = Ledger()  # one per served server: what this process typed and reserved
    parts = [
        Lifecycle(tmux, pin),
        Listing(lookups, refs),
        Reading(lookups, refs),
        ServerInfo(lookups),
        Settings(lookups, refs),
        BatchTools(runtime),
        Capabilities(config, pin, lookups, runtime),
        Arranging(lookups, refs),
        Channels(tmux, lookups, config),
        Running(tmux, lookups, refs, config, ledger),
    ]
    handlers: SwiftProfileHandlers = compose(SwiftProfileHandlers, parts)
    return handlers
