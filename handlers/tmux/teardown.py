"""Ending panes, windows and sessions, dropping a pane's history, and the history limit.

Every profile's teardown tools end here once their targets are found and their
guard has agreed, so tmux's "can't find" answers are worded in one place. Each
takes the argument's field name, so the message says which argument named the
missing object. The history limit lives here because lowering it is how the
families let an agent drop scrollback for panes to come.
"""

from __future__ import annotations

from .core import Server
from .errors import CommandFailed, NotFound

# tmux's own bound for history-limit (options-table.c: INT_MAX).
HISTORY_LIMIT_MAXIMUM = 2**31 - 1


async def _run_on(server: Server, kind: str, object_id: str, field: str, *args: str) -> None:
    try:
        await server.run(*args)
    except CommandFailed as exc:
        if exc.not_found:
            raise NotFound(kind, object_id, socket=server.socket, field=field) from None
        raise


async def kill_pane(server: Server, pane_id: str, field: str) -> None:
    """``kill-pane``: the pane and its process end; a window left empty closes."""
    await _run_on(server, "pane", pane_id, field, "kill-pane", "-t", pane_id)


async def kill_window(server: Server, window_id: str, field: str) -> None:
    """``kill-window`` by id ends the window in every session it is linked into."""
    await _run_on(server, "window", window_id, field, "kill-window", "-t", window_id)


async def kill_session(server: Server, session_id: str, field: str) -> None:
    """``kill-session``: windows linked into another session live on there."""
    await _run_on(server, "session", session_id, field, "kill-session", "-t", session_id)


async def clear_history(server: Server, pane_id: str, field: str) -> None:
    """``clear-history``: the scrollback goes, the visible screen stays as it is."""
    await _run_on(server, "pane", pane_id, field, "clear-history", "-t", pane_id)


async def set_history_limit(server: Server, limit: int, session_id: str | None = None) -> str:
    """Set history-limit globally (or on one session) and read back what tmux holds.

    tmux 3.3a reads the option when it creates a pane's grid, so only panes
    created afterwards are affected.
    """
    scope = ("-g",) if session_id is None else ("-t", session_id)
    _, value = await server.run_many(
        ("set-option", *scope, "history-limit", str(limit)),
        ("show-options", "-v", *scope, "history-limit"),
    )
    return value[0] if value else str(limit)
