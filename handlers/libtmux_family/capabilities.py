"""The families' ``tmux://capabilities`` document: the served tools, the selection, the socket.

Each served tool's row is what ``tools/list`` says of it (name, title,
description, schemas, the four hints; a nested authority lists only tools
served) with its capability record, the
``_meta`` entry every tool of the families carries, spread beside it. Reading
the resource looks at the socket first (starting the dedicated server if it
went, as any first call does), so the server state it reports is what was found.
Each profile's part calls ``document`` with its own generated listing.
"""

from __future__ import annotations

import json
from contextlib import suppress
from importlib import resources
from types import ModuleType
from typing import Any

from ...errors import ToolError
from ..services import Runtime
from ..tmux.objects.server import Tmux
from .config import FamilyConfig
from .launch import ServedServer

CAPABILITY_KEY = "com.git-pull.libtmux-mcp/capability"
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def advertised_tools(package: ModuleType) -> tuple[dict[str, Any], ...]:
    """Every tool of a profile as tools/list gives it (its generated listing)."""
    listing = json.loads(resources.files(package).joinpath("tools.json").read_text("utf-8"))
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


def toolsets_on(
    config: FamilyConfig, server: ServedServer, owner_toolsets: tuple[str, ...]
) -> list[str]:
    """The toolsets on: the environment's choice, else the default plus those this process
    turned on by starting its server (the rule ``startup_toolsets`` gives the runtime)."""
    chosen = config.selection
    if chosen.chosen or not server.started_at_startup:
        return sorted(chosen.toolsets)
    return sorted({*chosen.toolsets, *owner_toolsets})


class CapabilityDocument:
    """What a profile's capabilities part needs: its tools, its socket and its selection."""

    def __init__(
        self,
        package: ModuleType,
        toolsets: tuple[str, ...],
        owner_toolsets: tuple[str, ...],
        config: FamilyConfig,
        server: ServedServer,
        tmux: Tmux,
        runtime: Runtime,
    ) -> None:
        self.tools = advertised_tools(package)
        self.toolsets = toolsets  # every toolset of the profile
        self.owner_toolsets = owner_toolsets
        self.config = config
        self.server = server
        self.tmux = tmux
        self.runtime = runtime

    def served(self) -> list[dict[str, Any]]:
        """Each tool served, as tools/list gives it now (its lists of tools, such as the
        batch's nested authority, hold only the tools served)."""
        found = (self.runtime.tool(str(tool["name"])) for tool in self.tools)
        return [dict(tool.advertised) for tool in found if tool is not None]

    async def read(self) -> dict[str, Any]:
        with suppress(ToolError):  # tmux cannot be reached: the state stays as found
            await self.tmux.server().ready()
        served = sorted(self.served(), key=lambda tool: str(tool["name"]))
        found = self.server.provenance
        selection = self.config.selection
        on = toolsets_on(self.config, self.server, self.owner_toolsets)
        return {
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
                "toolsets": on,
                "toolsetsOff": sorted(set(self.toolsets) - set(on)),
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
