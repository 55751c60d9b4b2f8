"""The tmux server itself: whether it runs, and its version."""

from __future__ import annotations

from ...generated.swift.models.get_server_info import GetServerInfoInput, GetServerInfoOutput
from ...seam import Call
from ..tmux.errors import NoServer
from .targets import Lookups


class ServerTools:
    def __init__(self, lookups: Lookups) -> None:
        self.lookups = lookups

    async def get_server_info(self, call: Call, params: GetServerInfoInput) -> GetServerInfoOutput:
        server = self.lookups.for_call().server
        try:
            lines = await server.run("display-message", "-p", "#{version}")
        except NoServer:
            return GetServerInfoOutput.model_validate(
                {"running": False, "socketPath": server.socket.path}
            )
        version = lines[0] if lines else ""
        return GetServerInfoOutput.model_validate(
            {"running": True, "version": version, "socketPath": server.socket.path}
        )
