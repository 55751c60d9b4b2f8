"""The swift profile (the Swift libtmux MCP contract family)."""

from __future__ import annotations

from collections.abc import Mapping

from ..tmux.core import Tmux
from .handlers import SwiftHandlers

Handlers = SwiftHandlers


def create_handlers(environ: Mapping[str, str]) -> SwiftHandlers:
    return SwiftHandlers(Tmux(environ))
