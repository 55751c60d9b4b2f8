"""Our control clients start and close one at a time, per tmux server.

tmux 3.3a (and later releases, by reports such as tmux/tmux#4980) crashes its server,
and with it every session the user has, when it tells a control client of an event
while that client is still identifying itself: between its first message (which marks
it a control client) and its last (which gives it the state the event is written to),
tmux's event loop turns at least twice. One of our clients detaching is such an event
for every other control client (``%client-detached``), so a client of ours starting
while another closes can bring the server down: a few hundred such overlaps do, in a
reproduction against tmux 3.3a (``tests/tmux/test_control_turns.py``).

So a start (from the process to the attach's reply: identification is over by then)
and a close (from the detach to the process's exit) take turns: within this process by
a lock per server, and across processes (other servers of this project on the same tmux
server, of this user) by holding a name in Linux's abstract socket namespace, made of
the user's id and the server's address. Binding that name succeeds for one socket at a
time, and the kernel lets it go when the socket closes or its process dies, so nothing
is left on disk and a crashed holder holds nothing. No library offers an async,
fileless, cross-process lock, so it is this short loop of binds. A turn waits for the
other processes at most ``TURN_WAIT`` seconds, then goes ahead: a process stuck holding
the name must not stop this one. Where there is no abstract namespace (not Linux),
turns hold within the process only. Our own commands tell events too (``select-window``, ``select-pane``, a session made
or renamed...), so while a client starts, this process writes no command to its other
clients of that server, and what they already sent is answered first (``quiet``); a
command that is slow to answer is given ``DRAIN_WAIT`` seconds. Commands of other
processes and programs, and the user's own keys, are outside our reach.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import os
import socket
import weakref
from collections.abc import AsyncIterator
from typing import Protocol

import anyio

from .sockets import Socket
from .ssh import Remote

TURN_WAIT = 2.0  # seconds a turn waits for other processes before it goes ahead
STEP = 0.002  # seconds between tries of the name
DRAIN_WAIT = 1.0  # seconds a start waits for commands already sent to be answered


class Drains(Protocol):
    """A client whose sent commands can be waited for."""

    async def drain(self) -> None: ...


class Gate:
    """The turns of one tmux server's control clients."""

    def __init__(self, key: str) -> None:
        self.key = key
        digest = hashlib.sha256(f"{os.getuid()} {key}".encode()).hexdigest()[:32]
        self.name = f"\0tmux-contract-mcp-turn-{digest}"
        self._lock = asyncio.Lock()
        self._calm = asyncio.Event()  # set: commands may be written
        self._calm.set()
        self.clients: weakref.WeakSet[Drains] = weakref.WeakSet()
        self._flying = 0  # commands of ours in a process of their own, not yet answered
        self._landed = asyncio.Event()

    async def calm(self) -> None:
        """Return when no client of ours is starting on this server."""
        if not self._calm.is_set():
            await self._calm.wait()

    @contextlib.asynccontextmanager
    async def command(self) -> AsyncIterator[None]:
        """One command in a process of its own: begun when no client starts, and waited
        for by the next start."""
        await self.calm()
        self._flying += 1
        try:
            yield
        finally:
            self._flying -= 1
            if not self._flying:
                self._landed.set()

    @contextlib.asynccontextmanager
    async def quiet(self) -> AsyncIterator[None]:
        """No command written meanwhile; those already written answered first."""
        self._calm.clear()
        try:
            with anyio.move_on_after(DRAIN_WAIT):
                for client in list(self.clients):
                    await client.drain()
                while self._flying:
                    self._landed.clear()
                    await self._landed.wait()
            yield
        finally:
            self._calm.set()

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        async with self._lock:
            held = await self._take()
            try:
                yield
            finally:
                if held is not None:
                    held.close()

    async def _take(self) -> socket.socket | None:
        """The bound socket that holds the name; None when the wait ran out or there is
        no abstract namespace here."""
        deadline = anyio.current_time() + TURN_WAIT
        while True:
            holder = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                holder.bind(self.name)
                return holder
            except OSError as exc:
                holder.close()
                if exc.errno != errno.EADDRINUSE or anyio.current_time() >= deadline:
                    return None
            await anyio.sleep(STEP)


# Per event loop: a gate's lock and events belong to the loop they first wait in.
_GATES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Gate]] = (
    weakref.WeakKeyDictionary()
)


def gate_for(key: str) -> Gate:
    """The one gate of the tmux server ``key`` names (its socket, and host if remote)."""
    gates = _GATES.setdefault(asyncio.get_running_loop(), {})
    gate = gates.get(key)
    if gate is None:
        gate = gates[key] = Gate(key)
    return gate


def gate_key(socket: Socket, remote: Remote | None) -> str:
    """What names the tmux server for the turns of its clients."""
    if remote is None:
        return socket.real_path
    return f"ssh {remote.target!r} {socket.path}"
