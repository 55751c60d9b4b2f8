"""What the HTTP tests send: the headers of a JSON-RPC POST, a ping and a handshake-era
initialize, and the headers that carry a server's token."""

from __future__ import annotations

from scripts.lab.httpserver import HttpServer

JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "tests", "version": "0"},
    },
}


def authorized(server: HttpServer, **more: str) -> dict[str, str]:
    return {**JSON_HEADERS, **server.headers, **more}
