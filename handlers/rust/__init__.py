"""The rust profile (the libtmux-rs contract family): one socket per process, ``%``-ids."""

from __future__ import annotations

from collections.abc import Mapping

from ...generated.rust.interface import RustProfileHandlers
from ..compose import compose
from ..services import Runtime
from ..tmux.core import Tmux, TmuxHandlers
from .arranging import Arranging
from .channels import Channels
from .panes import Panes


def create_handlers(environ: Mapping[str, str], runtime: Runtime) -> RustProfileHandlers:
    tmux = Tmux(environ)
    parts = [TmuxHandlers(tmux), Panes(tmux), Arranging(tmux), Channels(tmux)]
    handlers: RustProfileHandlers = compose(RustProfileHandlers, parts)
    return handlers
