"""A tour of what an agent does with tmux, on a private tmux server.

The real MCP client (the SDK's ``ClientSession``) starts the installed
``tmux-contract-mcp`` over stdio, exactly as an agent's client would, and makes
each call; the tour prints the call and the text the agent reads back. Run with
``make demo``; tests/e2e/test_demo.py runs the same tour and checks its answers.
Nothing outside the private server is touched: it lives under its own
TMUX_TMPDIR and is killed at the end.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any, TextIO

import anyio
import mcp.types as types

from scripts.lab.client import Client, open_client
from scripts.lab.tmuxserver import TmuxServer

# Three steps a second apart, like a small build: the wait below sleeps until the last.
BUILD = 'for step in fetch compile test; do sleep 1; echo "$step ok"; done'
WIDTH = 400  # characters of an answer shown; the agent gets all of it


@dataclass
class Step:
    tool: str
    arguments: dict[str, Any]
    is_error: bool
    text: str
    result: dict[str, Any]


class Tour:
    """The calls, printed as they happen and kept so a test can check them."""

    def __init__(self, client: Client, out: TextIO) -> None:
        self.client = client
        self.out = out
        self.steps: list[Step] = []

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    async def call(self, note: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        self.say(f"# {note}")
        self.say(f"→ {tool} {json.dumps(arguments)}")
        result = await self.client.call(tool, arguments)
        text = " ".join(c.text for c in result.content if isinstance(c, types.TextContent))
        shown = text if len(text) <= WIDTH else text[: WIDTH - 1] + "…"
        self.say(f"{'✗' if result.is_error else '←'} {shown}")
        self.say()
        answer = dict(result.structured_content or {})
        self.steps.append(Step(tool, arguments, result.is_error, text, answer))
        return answer

    def answers(self, tool: str) -> list[Step]:
        return [step for step in self.steps if step.tool == tool]


async def tour(run: Tour) -> None:
    """List, split, type, wait, read, snapshot, search, run, and clean up after itself."""
    await run.call("what is there: the sessions on this tmux server", "list_sessions", {})
    await run.call("and the panes of session main", "list_panes", {"session_name": "main"})
    pane = await run.call(
        "split the window: a new pane below to work in",
        "split_window",
        {"session_name": "main", "direction": "below"},
    )
    work = pane["pane_id"]
    await run.call(
        "type a command into it (Enter is pressed for you)",
        "send_keys",
        {"pane_id": work, "keys": BUILD},
    )
    await run.call(
        "sleep until the pane prints the last step (tmux wakes the wait; nothing polls)",
        "wait_for_text",
        {"pane_id": work, "patterns": ["^test ok$"], "regex": True, "timeout": 15},
    )
    await run.call("read the pane's last lines", "capture_pane", {"pane_id": work, "max_lines": 4})
    await run.call(
        "a snapshot: the screen, the cursor and the pane's state",
        "snapshot_pane",
        {"pane_id": work, "max_lines": 6},
    )
    await run.call(
        "search every pane's text", "search_panes", {"pattern": "compile ok", "limit": 5}
    )
    await run.call(
        "run a command and get its output and exit status",
        "run_command",
        {"pane_id": work, "command": "echo $((6 * 7))", "timeout": 10},
    )
    await run.call(
        "a failing command: its exit status says so",
        "run_command",
        {"pane_id": work, "command": "ls /no/such/directory", "timeout": 10},
    )
    await run.call(
        "bad input is refused before tmux runs anything, with what to do next",
        "capture_pane",
        {"pane_id": work, "max_lines": -1},
    )
    await run.call("clean up: kill the pane the tour made", "kill_pane", {"pane_id": work})
    await run.call("back to how it started", "list_panes", {"session_name": "main"})


async def main_async(tmux: TmuxServer, out: TextIO) -> Tour:
    # Killing is opt-in; the tour kills only the pane it made.
    env = tmux.server_env(LIBTMUX_TOOLSETS="inspect,manage,execute,teardown")
    async with open_client(env, "python") as client:
        run = Tour(client, out)
        await tour(run)
    return run


def main() -> None:
    tmux = TmuxServer.start(width=120, height=30)
    try:
        print(f"a private tmux server on {tmux.socket_path}, session main, one pane\n")
        anyio.run(main_async, tmux, sys.stdout)
    finally:
        tmux.kill()
    print("the private tmux server is killed")


if __name__ == "__main__":
    main()
