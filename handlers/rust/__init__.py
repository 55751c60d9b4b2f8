"""The rust profile (the libtmux-rs contract family): one socket per process, ``%``-ids."""

from __future__ import annotations

from collections.abc import Mapping

from ...generated.rust.interface import RustProfileHandlers
from ..compose import compose
from ..services import Runtime
from ..tmux.core import Tmux, TmuxHandlers
from ..tmux.ledger import Ledger
from .panes import Panes
from .running import Running


def create_handlers(environ: Mapping[str, str], runtime: Runtime) -> RustProfileHandlers:
    tmux = Tmux(environ)
    ledger = Ledger()  # one per served server: what this process typed and reserved
    parts = [TmuxHandlers(tmux), Panes(tmux), Running(tmux, ledger)]
    handlers: RustProfileHandlers = compose(RustProfileHandlers, parts)
    return handlers
