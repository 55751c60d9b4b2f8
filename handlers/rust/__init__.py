"""The rust profile (the libtmux-rs contract family)."""

from __future__ import annotations

from collections.abc import Mapping

from ..tmux.core import Tmux
from .handlers import RustHandlers

Handlers = RustHandlers


def create_handlers(environ: Mapping[str, str]) -> RustHandlers:
    return RustHandlers(Tmux(environ))
