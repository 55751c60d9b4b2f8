"""The python profile (the libtmux-mcp surface)."""

from __future__ import annotations

from collections.abc import Mapping

from .handlers import PythonHandlers

Handlers = PythonHandlers


def create_handlers(environ: Mapping[str, str]) -> PythonHandlers:
    from ..tmux.core import Tmux

    return PythonHandlers(Tmux(environ))
