"""Waiting, in an async test, for what tmux or a server under test does next."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from scripts.lab.client import Client
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.tmux import DEADLINE, screen_lines, tmux_clients, type_line

RUNNING = (
    20.0  # how long a pane of quiet_cat gets to start (only there to turn a hang into a failure)
)


async def eventually(check: Callable[[], bool], what: str, deadline: float = DEADLINE) -> None:
    """Poll ``check`` (run in a thread: it may call tmux) until it holds, or fail."""
    with anyio.move_on_after(deadline):
        while not await anyio.to_thread.run_sync(check):
            await anyio.sleep(0.02)
        return
    raise AssertionError(f"timed out waiting for {what}")


async def until(check: Callable[[], bool], what: str) -> None:
    await eventually(check, what, deadline=RUNNING)


async def showing(server: TmuxServer, pane: str, text: str) -> None:
    await eventually(lambda: any(text in line for line in screen_lines(server, pane)), repr(text))


async def waiting_on(server: TmuxServer, session: str) -> None:
    """Until a wait's output client is attached to ``session`` (no one else attaches there)."""
    await eventually(lambda: session in {name for _, name in tmux_clients(server)}, "the wait")


async def wait_while(
    client: Client,
    server: TmuxServer,
    session: str,
    arguments: dict[str, Any],
    *lines: str,
) -> dict[str, Any]:
    """Call wait_for_text; once it waits, type each of ``lines`` into the pane."""
    result: dict[str, Any] = {}
    pane = arguments["pane_id"]
    # An earlier wait's output client leaves on its own time: until it has, it would pass
    # for this wait's, and a line typed then would be on the screen before this wait began.
    await eventually(
        lambda: session not in {name for _, name in tmux_clients(server)}, "an earlier wait to end"
    )

    async def wait() -> None:
        result.update(await client.ok("wait_for_text", arguments))

    with anyio.fail_after(DEADLINE):
        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await waiting_on(server, session)
            for line in lines:
                await anyio.to_thread.run_sync(type_line, server, pane, line)
    return result


def pane_in_main(server: TmuxServer, *command: str, history: int | None = None) -> str:
    """A new window in session main running ``command`` (a shell without one): its pane."""
    if history is not None:
        server.tmux("set-option", "-g", "history-limit", str(history))
    try:
        return server.tmux(
            "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:", *command
        ).strip()
    finally:
        if history is not None:
            server.tmux("set-option", "-g", "history-limit", "2000")


def joined_screen(server: TmuxServer, pane: str) -> list[str]:
    return server.tmux("capture-pane", "-p", "-J", "-t", pane).splitlines()


async def quiet_cat(server: TmuxServer, *, into: Path | None = None, vis: bool = False) -> str:
    """A pane whose program echoes back each line it reads (the terminal's echo off),
    or writes it to ``into``; ``vis`` turns bracketed paste on and shows control bytes."""
    sink = f"cat > {shlex.quote(str(into))}" if into is not None else "cat"
    start = "stty -echo; "
    if vis:
        sink = "cat -v"
        start += "printf '\\033[?2004h'; "
    pane = pane_in_main(server, "sh", "-c", f"{start}echo ready; exec {sink}")
    await until(lambda: "ready" in joined_screen(server, pane), "the pane to be ready")
    return pane
