"""The rust profile (the libtmux-rs contract family): one socket per process, ``%``-ids."""

from __future__ import annotations

from collections.abc import Mapping

from ...generated.rust.interface import RustProfileHandlers
from ..compose import compose
from ..services import Runtime
from ..tmux.core import Tmux, TmuxHandlers
from ..tmux.refs import Refs
from .batch import BatchTools
from .panes import Panes
from .reading import Reading
from .settings import Settings


def create_handlers(environ: Mapping[str, str], runtime: Runtime) -> RustProfileHandlers:
    tmux = Tmux(environ)
    parts = [
        TmuxHandlers(tmux),
        Panes(tmux),
        Settings(tmux, environ),
        Reading(tmux, Refs()),
        BatchTools(runtime),
    ]
    handlers: RustProfileHandlers = compose(RustProfileHandlers, parts)
    return handlers
