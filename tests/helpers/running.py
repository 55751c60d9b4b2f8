"""What the python profile's run_command and send_keys tests share: a login shell at its
prompt, the pane's current command, and a run_command answer free of the server's plumbing."""

from __future__ import annotations

from typing import Any

import anyio

from scripts.lab.client import Client
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.waiting import joined_screen as screen
from tests.helpers.waiting import pane_in_main as window
from tests.helpers.waiting import until

DEADLINE = 20.0  # only there to turn a hang into a failure
# What the server sends tmux for its own ends: never in an answer.
PLUMBING = ("__tcm", "wait-for", "tcm-")


def current_command(server: TmuxServer, pane: str) -> str:
    return server.tmux("display-message", "-p", "-t", pane, "#{pane_current_command}").strip()


async def shell_at_prompt(server: TmuxServer, *, history: int | None = None) -> str:
    """A new window's login shell (/bin/sh), once it shows its prompt."""
    pane = window(server, history=history)
    await until(lambda: at_shell_prompt(server, pane), "the shell's prompt")
    return pane


def at_shell_prompt(server: TmuxServer, pane: str) -> bool:
    rows = [row.strip() for row in screen(server, pane) if row.strip()]
    return current_command(server, pane) == "sh" and bool(rows) and rows[-1] in ("#", "$")


def without_plumbing(lines: list[str]) -> None:
    assert not [line for line in lines if any(mark in line for mark in PLUMBING)], lines


async def run_ok(client: Client, pane: str, command: str, **extra: Any) -> dict[str, Any]:
    with anyio.fail_after(DEADLINE):
        result = await client.ok("run_command", {"pane_id": pane, "command": command, **extra})
    without_plumbing(result["output"])
    return result
