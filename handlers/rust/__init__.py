"""The rust profile (the libtmux-rs contract family): one socket per process, ``%``-ids.

The environment is read once (``config``); the served server is found, or
started on the dedicated socket, at startup (``tmux.launch``).
"""

from __future__ import annotations

from collections.abc import Mapping

from ...generated import rust as generated_rust
from ...generated.rust.interface import RustProfileHandlers
from ...generated.rust.registry import TOOLSETS
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
from .panes import Panes
from .reading import Reading
from .running import Running
from .settings import Settings
from .teardown import Teardown

# On by default when this process started the server it serves (see ``tmux.launch``).
OWNER_TOOLSETS = ("teardown",)


def create_handlers(environ: Mapping[str, str], runtime: Runtime) -> RustProfileHandlers:
    config = read_config(environ)
    pin = Pin(config, environ)
    tmux = Tmux(environ, socket=config.socket, prepare=pin.prepare)
    ledger = Ledger()  # one per served server: the tools that type and wait share it
    document = CapabilityDocument(
        generated_rust, TOOLSETS, OWNER_TOOLSETS, config, pin, tmux, runtime
    )
    parts = [
        PinnedLifecycle(tmux, pin, OWNER_TOOLSETS),
        Listing(tmux),
        Panes(tmux),
        Capabilities(document),
        Creating(tmux),
        Teardown(tmux),
        Arranging(tmux),
        Channels(tmux),
        Input(tmux, ledger),
        Running(tmux, ledger),
        Settings(tmux, environ),
        Reading(tmux, Refs()),
        BatchTools(runtime),
    ]
    handlers: RustProfileHandlers = compose(RustProfileHandlers, parts)
    return handlers
