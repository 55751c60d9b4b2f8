"""The rust profile (the libtmux-rs contract family): one socket per process, ``%``-ids.

The environment is read once (``config``); the served server is found, or
started on the dedicated socket, at startup (``libtmux_family.launch``). Each part
holds the tools of one kind of tmux object (``server``, ``sessions``, ``windows``,
``panes``; a pane's text, input, waits and commands), the options, the channels,
the read batch or the capabilities resource.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...generated import rust as generated_rust
from ...generated.rust.interface import RustProfileHandlers
from ...generated.rust.registry import TOOLSETS
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
from .windows import WindowTools

# On by default when this process started the server it serves (see ``libtmux_family.launch``).
OWNER_TOOLSETS = ("teardown",)


def create_handlers(environ: Mapping[str, str], runtime: Runtime) -> RustProfileHandlers:
    config = read_config(environ)
    served = ServedServer(config, environ)
    tmux = Tmux(environ, socket=config.socket, prepare=served.prepare)
    ledger = Ledger()  # one per served server: the tools that type and wait share it
    document = CapabilityDocument(
        generated_rust, TOOLSETS, OWNER_TOOLSETS, config, served, tmux, runtime
    )
    parts = [
        FamilyLifecycle(tmux, served, OWNER_TOOLSETS),
        ServerTools(tmux),
        SessionTools(tmux),
        WindowTools(tmux),
        PaneTools(tmux),
        PaneTextTools(tmux, Refs()),
        PaneInputTools(tmux, ledger),
        PaneWaitTools(tmux, ledger),
        PaneCommandTools(tmux, ledger),
        OptionTools(tmux, environ),
        ChannelTools(tmux),
        BatchTools(runtime),
        Capabilities(document),
    ]
    handlers = compose(RustProfileHandlers, parts)
    assert isinstance(handlers, RustProfileHandlers)  # compose built it from this interface
    return handlers
