"""What the python profile's teardown tests read of a tmux server, in and out of tests/e2e/."""

from __future__ import annotations

from scripts.lab.tmuxserver import TmuxServer


def pane_snapshot(server: TmuxServer) -> list[str]:
    """Sessions, windows, panes and the process in each: a refused call changes none."""
    return server.lines(
        "list-panes", "-a", "-F", "#{session_id} #{window_id} #{pane_id} #{pane_pid}"
    )


def new_window_pane(server: TmuxServer, *command: str, target: str = "main:") -> tuple[str, str]:
    out = server.tmux(
        "new-window", "-d", "-P", "-F", "#{window_id} #{pane_id}", "-t", target, *command
    )
    window_id, pane_id = out.split()
    return window_id, pane_id


def all_pane_ids(server: TmuxServer) -> set[str]:
    return set(server.lines("list-panes", "-a", "-F", "#{pane_id}"))


def all_session_ids(server: TmuxServer) -> set[str]:
    return set(server.lines("list-sessions", "-F", "#{session_id}"))


def pane_field(server: TmuxServer, pane: str, field: str) -> str:
    return server.tmux("display-message", "-p", "-t", pane, f"#{{{field}}}")[:-1]
