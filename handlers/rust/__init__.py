"""The rust profile (the libtmux-rs contract family): one socket per process, ``%``-ids."""

from __future__ import annotations

from collections.abc import Mapping

from ...generated.rust.interface import RustProfileHandlers
from ..compose import compose
from ..services import Runtime
from ..tmux.core import Tmux, TmuxHandlers
from ..tmux.ledger import Ledger
from .input import Input
from .panes import Panes


def create_handlers(environ: Mapping[str, str], runtime: Runtime) -> RustProfileHandlers:
    tmux = Tmux(environ)
    ledger = Ledger()  # one per served server: the tools that type and wait share it
    parts = [TmuxHandlers(tmux), Panes(tmux), Input(tmux, ledger)]
    handlers: RustProfileHandlers = compose(RustProfileHandlers, parts)
    return handlers
