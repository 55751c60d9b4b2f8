"""A short tour on a private tmux server: the real MCP client drives the real server.

Run with ``make demo``. Nothing outside the private server is touched: it
lives under its own TMUX_TMPDIR and is killed at the end.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

import anyio

from tests.mcpclient import Client, error_text, open_client
from tests.tmuxenv import TmuxServer


def show(label: str, value: Any) -> None:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    print(textwrap.indent(textwrap.fill(text, 100, subsequent_indent="  "), f"{label} "))


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    show("→", f"{tool} {json.dumps(arguments)}")
    result = await client.call(tool, arguments)
    if result.is_error:
        show("✗", error_text(result))
        return None
    assert result.structured_content is not None
    show("←", result.structured_content)
    return dict(result.structured_content)


async def tour(tmux: TmuxServer) -> None:
    grid = tmux.grid()
    print(f"private tmux server on {tmux.socket_path}: one window split 2x2 {grid}\n")

    async with open_client(tmux.server_env(), "python") as client:
        tools = await client.session.list_tools()
        print("python profile serves:", ", ".join(tool.name for tool in tools.tools), "\n")
        await call(client, "find_pane_by_position", {"corner": "bottom-right"})
        await call(client, "select_pane", {"pane_id": grid["top-left"], "direction": "right"})
        await call(client, "select_pane", {"direction": "last"})
        await call(client, "select_pane", {"pane_id": grid["top-left"], "direction": "next"})
        print("\nbad input is refused before tmux runs anything:")
        await call(client, "select_pane", {"direction": "sideways"})
        await call(client, "select_pane", {"pane_id": "%999"})

    async with open_client(tmux.server_env(), "rust") as client:
        print("\nrust profile, same tmux server:")
        await call(client, "select_pane", {"pane": grid["bottom-left"], "direction": "up"})
    print(f"\nactive pane now: {tmux.active_pane()}")


def main() -> None:
    tmux = TmuxServer.start()
    try:
        anyio.run(tour, tmux)
    finally:
        tmux.kill()
        print("private tmux server killed")


if __name__ == "__main__":
    main()
