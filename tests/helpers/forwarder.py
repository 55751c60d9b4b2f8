"""A loopback forwarder that adds the server's ``Authorization`` header and nothing else: for a
client that cannot send one (the official conformance suite), so the server keeps asking for
its token.

It is transparent otherwise: the method, path, query, body and every other header go on as
sent, the answer (status, headers, an event stream as it flows) comes back as sent. A ``Host``
or ``Origin`` that names the forwarder itself is rewritten to name the server (what the client
meant); any other value goes on untouched, so the server's own Host and Origin checks judge
what the client sent.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from typing import Any

import httpx2
import uvicorn

from scripts.lab.httpserver import HttpServer

Scope = dict[str, Any]
Message = dict[str, Any]


class _Forward:
    def __init__(self, server: HttpServer, own: str) -> None:
        self.server = server
        self.own = own  # host:port of the forwarder

    def headers(self, scope: Scope) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for raw_name, raw_value in scope["headers"]:
            name, value = raw_name.decode("latin-1"), raw_value.decode("latin-1")
            lower = name.lower()
            if lower in {"authorization", "content-length", "connection"}:
                continue
            if lower == "host" and value == self.own:
                value = self.server.host
            elif lower == "origin" and value.split("//", 1)[-1] == self.own:
                value = value.replace(self.own, self.server.host)
            out.append((name, value))
        out.append(("Authorization", f"Bearer {self.server.token}"))
        return out

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        base = self.server.url.split("/mcp", 1)[0]
        query = scope["query_string"].decode("latin-1")
        url = f"{base}{scope['raw_path'].decode('latin-1')}" + (f"?{query}" if query else "")
        async with httpx2.AsyncClient(timeout=None) as client:
            request = client.build_request(
                scope["method"], url, headers=self.headers(scope), content=body
            )
            # httpx sets Host from the URL; keep what the client sent (after the rewrite).
            for name, value in self.headers(scope):
                if name.lower() == "host":
                    request.headers["Host"] = value
            answer = await client.send(request, stream=True)
            try:
                await send(
                    {
                        "type": "http.response.start",
                        "status": answer.status_code,
                        "headers": [
                            (name.encode("latin-1"), value.encode("latin-1"))
                            for name, value in answer.headers.multi_items()
                            if name.lower()
                            not in {"content-length", "transfer-encoding", "connection"}
                        ],
                    }
                )
                with contextlib.suppress(httpx2.HTTPError):  # the server ended a stream early
                    async for chunk in answer.aiter_raw():
                        await send({"type": "http.response.body", "body": chunk, "more_body": True})
                await send({"type": "http.response.body", "body": b"", "more_body": False})
            finally:
                await answer.aclose()


@contextlib.contextmanager
def forwarding(server: HttpServer) -> Iterator[str]:
    """Serve the forwarder on a free loopback port while the block runs; yields its MCP URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    own = f"127.0.0.1:{sock.getsockname()[1]}"
    config = uvicorn.Config(_Forward(server, own), log_level="warning", lifespan="off")
    runner = uvicorn.Server(config)
    thread = threading.Thread(target=runner.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not runner.started:
            if not thread.is_alive():
                raise RuntimeError("the forwarder did not start")
            threading.Event().wait(0.01)
        yield f"http://{own}/mcp"
    finally:
        runner.should_exit = True
        thread.join(10)
        sock.close()
