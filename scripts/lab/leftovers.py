"""What MCP servers left behind on a private tmux server: clients, children, strays.

A server under test may keep one tmux client attached (its control transport's).
Anything else once its calls have ended is a leak: an output client still
attached, a child process that is not an attached client (a ``tmux wait-for``, a
zombie), or a tmux process of the socket that nobody accounts for (an orphan of
a server that exited).
"""

from __future__ import annotations

from collections.abc import Iterable

from scripts.lab import processes
from scripts.lab.tmuxserver import TmuxServer


def leftovers(tmux: TmuxServer, owners: Iterable[int]) -> list[str]:
    """What is wrong, one line each; empty when nothing was left behind.

    ``owners`` are the MCP servers meant to be running against ``tmux``.
    """
    owners = set(owners)
    problems: list[str] = []
    server_pid = int(tmux.tmux("display-message", "-p", "#{pid}").strip())
    attached: dict[int, str] = {}
    for row in tmux.lines("list-clients", "-F", "#{client_pid} #{session_name}"):
        client_pid, _, session_name = row.partition(" ")
        attached[int(client_pid)] = session_name
    per_owner: dict[int, list[int]] = {}
    for client, session in attached.items():
        parent = processes.parent_of(client)
        if parent not in owners:
            problems.append(f"client {client} (session {session}) belongs to no server under test")
        else:
            per_owner.setdefault(parent, []).append(client)
    for owner, clients in per_owner.items():
        if len(clients) > 1:
            sessions = [attached[client] for client in clients]
            problems.append(f"server {owner} keeps {len(clients)} clients attached: {sessions}")
    for owner in owners:
        for child in processes.children(owner):
            if not processes.alive(child):
                problems.append(f"server {owner} left a zombie child {child}")
            elif child not in attached:
                problems.append(f"server {owner} runs {child}: {processes.cmdline(child)}")
    known = {server_pid, *attached}
    for stray in processes.tmux_processes(tmux.name):
        if stray not in known:
            problems.append(f"stray tmux process {stray}: {processes.cmdline(stray)}")
    return problems
