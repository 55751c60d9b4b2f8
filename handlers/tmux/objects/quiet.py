"""Hearing when panes fall quiet: a clock per pane, wound by its ``%output``.

``listening`` attaches to the output client of each session the panes are in
(``transport.events``: one control client per session, shared with every other
wait) and gives each pane a ``Clock``: the time of its last ``%output``, the bytes
printed since the caller last took them, and an event that wakes the waiter when
the pane prints or may have gone or died. Quiet is then a timer per pane,
restarted by each output, never a re-read of the screen.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING

import anyio

from ..transport.control import Listener, output_event
from ..transport.events import MAY_HAVE_GONE, dead_pane

if TYPE_CHECKING:
    from .rows import PaneRow
    from .server import Server

KEPT_BYTES = 65536  # bytes of output a clock keeps for its reader


class Clock:
    """One pane's output as heard: when it last printed, what, and a wake-up."""

    def __init__(self, pane_id: str) -> None:
        self.pane_id = pane_id
        self.last = anyio.current_time()
        self.outputs = 0  # %output notifications heard
        self.data = bytearray()  # output since ``take``
        self.suspect = False  # the pane may have gone or died
        self.lost = False  # the output client ended
        self._event = anyio.Event()

    def printed(self, data: bytes) -> None:
        self.last = anyio.current_time()
        self.outputs += 1
        self.data += data
        del self.data[:-KEPT_BYTES]
        self._event.set()

    def alarm(self, *, lost: bool = False) -> None:
        self.suspect = True
        self.lost = self.lost or lost
        self._event.set()

    async def changed(self) -> None:
        """Return once something happened since the last call (or since the clock began)."""
        await self._event.wait()
        self._event = anyio.Event()

    def take(self) -> bytes:
        data, self.data = bytes(self.data), bytearray()
        return data

    def silent_for(self) -> float:
        return anyio.current_time() - self.last


@asynccontextmanager
async def listening(server: Server, panes: Sequence[PaneRow]) -> AsyncIterator[dict[str, Clock]]:
    """A ``Clock`` per pane while the block runs, fed by its session's output client."""
    by_session: dict[str, dict[str, Clock]] = defaultdict(dict)
    async with AsyncExitStack() as stack:
        for row in panes:
            by_session[row.session_id][row.pane_id] = Clock(row.pane_id)
        for session_id, clocks in by_session.items():
            lease = await server.watchers.lease(session_id)
            stack.push_async_callback(lease.release)
            stack.callback(lease.client.add_listener(_listener(clocks)))
            stack.callback(lease.client.on_ended(_ender(clocks)))
        now = anyio.current_time()
        every = {
            pane_id: clock for clocks in by_session.values() for pane_id, clock in clocks.items()
        }
        for clock in every.values():
            clock.last = now  # quiet counts from when the panes are heard
        yield every


def _listener(clocks: dict[str, Clock]) -> Listener:
    def on_line(line: str) -> None:
        event = output_event(line)
        if event is not None:
            clock = clocks.get(event[0])
            if clock is not None:
                clock.printed(event[1])
        elif line.startswith(MAY_HAVE_GONE) or dead_pane(line) in clocks:
            for clock in clocks.values():
                clock.alarm()

    return on_line


def _ender(clocks: dict[str, Clock]) -> Callable[[], None]:
    def on_ended() -> None:
        for clock in clocks.values():
            clock.alarm(lost=True)

    return on_ended
