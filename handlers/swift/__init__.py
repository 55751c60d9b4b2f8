"""The swift profile (the Swift libtmux MCP contract family).

One socket per process, camelCase shapes, and a ref beside every id: parts
that each do one job, sharing the tmux core, the refs and the lookups. The
environment is read once (``config``); the served server is found, or started, at
startup (``tmux.launch``).
"""

from __future__ import annotations

from collections.abc import Mapping

from ...generated import swift as generated_swift
from ...generated.swift.interface import SwiftProfileHandlers
from ...generated.swift.registry import TOOLSETS
from ..compose import compose
from ..libtmux_family.capabilities import CapabilityDocument
from ..libtmux_family.launch import Pin, PinnedLifecycle
from ..services import Runtime
from ..tmux.objects.refs import Refs
from ..tmux.objects.server import Tmux
from ..tmux.policy.ledger import Ledger
from .arranging import Arranging
from .batch import BatchTools
from .capabilities import Capabilities
from .channels import Channels
from .config import read_config
from .creating import Creating
from .input import Input
from .listing import Listing
from .lookup import Lookups
from .reading import Reading
from .running import Running
from .server import ServerInfo
from .settings import Settings
from .teardown import Teardown

# On by default when this process started the server it serves (see ``tmux.launch``).
OWNER_TOOLSETS = ("teardown",)


def create_handlers(environ: Mapping[str, str], runtime: Runtime) -> SwiftProfileHandlers:
    config = read_config(environ)
    pin = Pin(config, environ)
    tmux = Tmux(environ, socket=config.socket, prepare=pin.prepare)
    refs = Refs()
    lookups = Lookups(tmux, refs)
    ledger = Ledger()  # one per served server: the tools that type and wait share it
    parts = [
        PinnedLifecycle(tmux, pin, OWNER_TOOLSETS),
        Listing(lookups, refs),
        Reading(lookups, refs),
        ServerInfo(lookups),
        Settings(lookups, refs),
        BatchTools(runtime),
        Capabilities(
            CapabilityDocument(
                generated_swift, TOOLSETS, OWNER_TOOLSETS, config, pin, tmux, runtime
            )
        ),
        Arranging(lookups, refs),
        Channels(tmux, lookups, config),
        Creating(lookups, refs),
        Teardown(tmux, lookups),
        Input(lookups, refs, ledger),
        Running(tmux, lookups, refs, config, ledger),
    ]
    handlers: SwiftProfileHandlers = compose(SwiftProfileHandlers, parts)
    return handlers
