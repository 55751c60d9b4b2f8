"""The python profile (the libtmux-mcp surface)."""

from __future__ import annotations

from collections.abc import Mapping

from ..services import Runtime
from ..tmux.core import Tmux
from .handlers import PythonHandlers

Handlers = PythonHandlers


def create_handlers(environ: Mapping[str, str], runtime: Runtime) -> PythonHandlers:
    return PythonHandlers(Tmux(environ), runtime)
