"""The ``tmux://capabilities`` resource: the served tools, the selection and the socket.

Each served tool's row is what ``tools/list`` says of it (name, title,
description, schemas, the four hints) with its capability record, the
``_meta`` entry every tool of the family carries, spread beside it. Reading
the resource looks at the socket first (starting the dedicated server, as any
first call does), so the server state it reports is what was found.
"""

from __future__ import annotations

import json
from contextlib import suppress
from functools import cache
from importlib import resources
from typing import Any

from ...errors import ToolError
from ...generated import swift as generated_swift
from ...generated.swift.models.resource_capabilities import (
    CapabilitiesResourceResult,
    CapabilitiesResourceVariables,
)
from ..services import Runtime
from .config import SwiftConfig
from .launch import Pin
from .lookup import Lookups

CAPABILITY_KEY = "com.git-pull.libtmux-mcp/capability"
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


@cache
def advertised_tools() -> tuple[dict[str, Any], ...]:
    """Every tool of the profile as tools/list gives it (the generated listing)."""
    listing = json.loads(resources.files(generated_swift).joinpath("tools.json").read_text("utf-8"))
    return tuple(listing["tools"])


def row(tool: dict[str, Any]) -> dict[str, Any]:
    annotations = tool.get("annotations", {})
    return {
        "name": tool["name"],
        "title": tool.get("title", ""),
        "description": tool.get("description", ""),
        "inputSchema": tool["inputSchema"],
        "outputSchema": tool["outputSchema"],
        "annotations": {hint: annotations[hint] for hint in HINTS},
        **tool["_meta"][CAPABILITY_KEY],
    }


class Capabilities:
    def __init__(self, config: SwiftConfig, pin: Pin, lookups: Lookups, runtime: Runtime) -> None:
        self.config = config
        self.pin = pin
        self.lookups = lookups
        self.runtime = runtime

    async def resource_capabilities(
        self, variables: CapabilitiesResourceVariables
    ) -> CapabilitiesResourceResult:
        with suppress(ToolError):  # tmux cannot be reached: the state stays as found
            await self.lookups().server.ready()
        served = sorted(
            (tool for tool in advertised_tools() if self.runtime.tool(tool["name"]) is not None),
            key=lambda tool: str(tool["name"]),
        )
        found = self.pin.provenance
        selection = self.config.selection
        return CapabilitiesResourceResult.model_validate(
            {
                "schemaVersion": 1,
                "frozen": True,
                "hostCommandTools": 0,
                "toolFilteringBoundary": "interface-shaping-not-authorization",
                "executionAuthority": "tmux-user",
                "operatingSystemBoundary": "none",
                "boundary": {
                    "oneSocketPerProcess": True,
                    "perCallSocketSelection": False,
                    "hostCommandExecution": False,
                    "dynamicResources": False,
                },
                "connection": {
                    "socketSelector": found.selector,
                    "socketProvenance": found.selection,
                    "resolvedSocketPath": found.socket_path,
                    "serverState": found.server_state,
                    "configurationProvenance": found.configuration,
                    "attachCommand": found.attach_command,
                },
                "toolCount": len(served),
                "effectiveTools": [tool["name"] for tool in served],
                "tools": [row(tool) for tool in served],
                "selection": {
                    "toolsets": list(selection.toolsets),
                    "includedTools": list(selection.included),
                    "excludedTools": list(selection.excluded),
                },
                "socket": {
                    "namespaceBoundary": "tmux-objects-only",
                    "selector": found.selector,
                    "selectionProvenance": found.selection,
                    "serverState": found.server_state,
                    "configurationProvenance": found.configuration,
                },
            }
        )
