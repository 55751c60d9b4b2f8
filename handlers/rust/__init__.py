"""The rust profile (the libtmux-rs contract family): one socket per process, ``%``-ids."""

from __future__ import annotations

from collections.abc import Mapping

from ...generated.rust.interface import RustProfileHandlers
from ..compose import compose
from ..services import Runtime
from ..tmux.core import Tmux, TmuxHandlers
from .panes import Panes
from .teardown import Teardown


def create_handlers(environ: Mapping[str, str], runtime: Runtime) -> RustProfileHandlers:
    tmux = Tmux(environ)
    handlers: RustProfileHandlers = compose(
        RustProfileHandlers, [TmuxHandlers(tmux), Panes(tmux), Teardown(tmux)]
    )
    return handlers
