"""One set of capabilities for both protocol eras.

mcp 2.3.0 derives the capabilities it advertises in two ways: ``initialize`` (the handshake
era) from the ``NotificationOptions`` it is given (every ``listChanged`` false unless set) and
the handlers registered; ``server/discover`` (2026-07-28) sets every ``listChanged`` true as
soon as ``subscriptions/listen`` is served, whether or not the server ever announces such a
change. This server never changes its tool, prompt or resource list while it runs (toolsets
are chosen at startup), so no ``listChanged`` is due on either era, and a client must read the
same capabilities whichever era it speaks: ``Server`` advertises the handshake era's on both.
Resource subscriptions are served on both eras (``resources/subscribe``;
``subscriptions/listen``), so ``resources.subscribe`` is the same either way.
"""

from __future__ import annotations

from typing import Any

import mcp.types as types
from mcp.server import Server as SdkServer
from mcp.server.lowlevel.server import NotificationOptions


class Server(SdkServer[Any]):
    """The SDK's low-level server, advertising one set of capabilities on both eras."""

    def get_capabilities(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
        *,
        protocol_version: str | None = None,
    ) -> types.ServerCapabilities:
        return super().get_capabilities(notification_options, experimental_capabilities, extensions)
