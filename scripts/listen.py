"""A 2026-07-28 client session that watches a pane: the SDK's own ``Client`` in its default
mode (``"auto"``: it probes ``server/discover`` and speaks 2026-07-28 to this server) starts
the installed command over stdio, opens a ``subscriptions/listen`` stream naming one pane's
content, sees the pane print, reads it, and closes the stream; the transcript says each step
and what tmux holds for it. ``python -m scripts.listen``; tests/e2e/test_listen_script.py
runs it and checks the transcript. It runs on a private tmux server, killed at the end.
"""

from __future__ import annotations

import sys
from typing import TextIO

import anyio
import mcp.types as types
from mcp.client.client import Client as SdkClient
from mcp.client.stdio import StdioServerParameters
from mcp.shared.subscriptions import ResourceUpdated

from scripts.lab.client import COMMAND
from scripts.lab.tmuxserver import TmuxServer

DEADLINE = 20.0


def output_clients(tmux: TmuxServer) -> int:
    """tmux clients that receive pane output (the stream's watch; the server's own has none)."""
    rows = tmux.lines("list-clients", "-F", "#{client_flags}")
    return sum(1 for row in rows if "control-mode" in row and "no-output" not in row)


async def session(tmux: TmuxServer, out: TextIO) -> None:
    def say(line: str) -> None:
        print(line, file=out, flush=True)

    pane = tmux.new_session(None, "sh", "-c", "stty -echo; exec cat", width=80, height=24).pane
    uri = f"tmux://panes/{pane}/content"
    params = StdioServerParameters(
        command=COMMAND, args=["--profile", "python"], env=tmux.server_env()
    )
    with anyio.fail_after(DEADLINE):
        async with SdkClient(params, cache=None) as sdk:  # mode="auto", the SDK's default
            say(f"connected: protocol {sdk.protocol_version} (server/discover, no initialize)")
            resources = sdk.server_capabilities.resources
            say(f"capabilities: resources.subscribe={resources.subscribe if resources else None}")
            say(f"-> subscriptions/listen resourceSubscriptions=[{uri}]")
            async with sdk.listen(resource_subscriptions=[uri]) as sub:
                say(f"<- acknowledged: {sub.honored.resource_subscriptions}")
                say(f"tmux: {output_clients(tmux)} output client(s) watching")
                say(f"tmux: send-keys -t {pane} 'make test' Enter")
                tmux.tmux("send-keys", "-t", pane, "-l", "make test")
                tmux.tmux("send-keys", "-t", pane, "Enter")
                event = await sub.__anext__()
                assert isinstance(event, ResourceUpdated)
                say(f"<- notifications/resources/updated {event.uri}")
                read = await sdk.read_resource(uri)
                (first,) = read.contents
                assert isinstance(first, types.TextResourceContents)
                say(f"-> resources/read {uri}")
                say(f"<- {first.text.strip()!r}")
                say("closing the stream")
            while output_clients(tmux):
                await anyio.sleep(0.05)
            say(f"tmux: {output_clients(tmux)} output client(s) watching")


async def main_async(out: TextIO) -> None:
    tmux = TmuxServer.start()
    try:
        await session(tmux, out)
    finally:
        tmux.kill()


def main() -> None:
    anyio.run(main_async, sys.stdout)


if __name__ == "__main__":
    main()
