"""The swift profile (the Swift libtmux MCP contract family).

One socket per process, camelCase shapes, and a ref beside every id. Each part
holds the tools of one kind of tmux object (``server``, ``sessions``, ``windows``,
``panes``; a pane's text, input, waits and commands), the options, the channels,
the read batch or the capabilities resource, sharing the tmux core, the refs and
the lookups (``targets``). The environment is read once (``config``); the served
server is found, or started, at startup (``libtmux_family.launch``).
"""

from __future__ import annotations

from collections.abc import Mapping

from ...generated import swift as generated_swift
from ...generated.swift.interface import SwiftProfileHandlers
from ...generated.swift.registry import TOOLSETS
from ..compose import compose
from ..libtmux_family.capabilities import CapabilityDocument
from ..libtmux_family.config import served_socket as served_socket  # doctor reads it
from ..libtmux_family.launch import FamilyLifecycle, ServedServer
from ..services import Runtime
from ..tmux.objects.refs import Refs
from ..tmux.objects.server import Tmux
from ..tmux.policy.ledger import Ledger
from .batch import BatchTools
from .capabilities import Capabilities
from .channels import ChannelTools
from .config import read_config
from .options import OptionTools
from .pane_commands import PaneCommandTools
from .pane_input import PaneInputTools
from .pane_text import PaneTextTools
from .pane_waits import PaneWaitTools
from .panes import PaneTools
from .server import ServerTools
from .sessions import SessionTools
from .targets import Lookups
from .windows import WindowTools

# On by default when this process started the server it serves (see ``libtmux_family.launch``).
OWNER_TOOLSETS = ("teardown",)


def create_handlers(environ: Mapping[str, str], runtime: Runtime) -> SwiftProfileHandlers:
    config = read_config(environ)
    served = ServedServer(config, environ)
    tmux = Tmux(environ, socket=config.socket, prepare=served.prepare)
    refs = Refs()
    lookups = Lookups(tmux, refs)
    ledger = Ledger()  # one per served server: the tools that type and wait share it
    parts = [
        FamilyLifecycle(tmux, served, OWNER_TOOLSETS),
        ServerTools(lookups),
        SessionTools(lookups, refs),
        WindowTools(lookups, refs),
        PaneTools(lookups, refs),
        PaneTextTools(lookups, refs),
        PaneInputTools(lookups, refs, ledger),
        PaneWaitTools(lookups, refs, config, ledger),
        PaneCommandTools(lookups, refs, config, ledger),
        OptionTools(lookups, refs),
        ChannelTools(lookups, config),
        BatchTools(runtime),
        Capabilities(
            CapabilityDocument(
                generated_swift, TOOLSETS, OWNER_TOOLSETS, config, served, tmux, runtime
            )
        ),
    ]
    handlers = compose(SwiftProfileHandlers, parts)
    assert isinstance(handlers, SwiftProfileHandlers)  # compose built it from this interface
    return handlers
