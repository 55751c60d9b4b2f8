"""What tmux shows, watched for as long as someone asks: resource subscribers, and the rows
a pane prints for continued reads.

Everything here hears tmux's own events through the output clients waits already share
(``transport.events``: one control client per session, attached without ``no-output``).
A ``Feed`` is one such client as seen from here: each line it delivers is parsed once
and handed to the watches and row counters it concerns, a pane's ``%output`` by a
dictionary lookup, so a flood costs one lookup a line whatever the number of watches.
Nothing here runs on a timer: a watch reads tmux only after tmux said something that
may have moved or ended what it watches.

``Watch`` is one subscriber's watch (``Live.pane``, ``window``, ``session``,
``sessions``). It tells its ``Report`` ``changed()`` when what it watches may read
differently, and ``ended(why)`` once when it is gone: a pane killed, its program exited
(dead under ``remain-on-exit``), its window, session or server gone, or a session
renamed away from the name its URI gives. A gone pane's ``NotFound`` is kept
(``Live.departed``), so a later read says which went. tmux tells some changes only
through a format subscription (``refresh-client -B``), which it checks about once a
second: a pane's current command, directory, title, active flag and mode. A feed holds
that subscription while a watch needs it and drops it when the last one leaves; every
subscription, like the client, ends with the client.

``Counter`` counts the rows one pane's output advances (``transport.printed``), so a
continued read can tell rows lost to the history's limit whatever the pane showed when
its cursor opened. A counter lasts ``COUNT_IDLE`` seconds after the last cursor that
relies on it was issued (that timer only lets go; it reads nothing).

tmux sends ``%output`` only to a client attached to the pane's session, so panes spread
over N sessions cost N clients; panes of one session share one.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

import anyio

from ..errors import NoServer, NotFound, TmuxError
from ..transport.control import ControlClient
from ..transport.events import DEAD_SUBSCRIPTION, Lease
from ..transport.printed import RowCount
from .rows import PaneRow

if TYPE_CHECKING:
    from .server import Server

log = logging.getLogger(__name__)

FACTS = "tcm-facts"
# What tmux tells only through a format subscription: a change in any of these of a
# pane of the client's session sends ``%subscription-changed tcm-facts $S @W I %P … : V``.
FACTS_FORMAT = (
    "#{pane_current_command}|#{pane_current_path}|#{pane_title}|#{pane_active}|#{pane_mode}"
)
SUBSCRIBE_FACTS = ("refresh-client", "-B", f"{FACTS}:%*:{FACTS_FORMAT}")
UNSUBSCRIBE_FACTS = ("refresh-client", "-B", FACTS)
COUNT_IDLE = 600.0  # seconds a row counter outlives the last cursor issued on it
PANE_PLACE_FIELDS = ("pane_id", "session_id", "window_id", "pane_dead", "pane_dead_status")
DEPARTED_KEPT = 256  # gone panes whose NotFound a read may still give

Kind = Literal["pane", "window", "session", "sessions"]


class Report(Protocol):
    """Where a watch reports (the runtime's side of a subscription)."""

    def changed(self) -> None: ...

    def ended(self, why: str) -> None: ...


@dataclass(frozen=True)
class Place:
    """Where a watched thing is now: its session, and its window and pane when it has them;
    ``dead`` is a pane's exit status when its program has exited (None while it runs)."""

    session_id: str
    window_id: str | None = None
    pane_id: str | None = None
    dead: str | None = None


Resolve = Callable[[], Awaitable[Place]]
"""Finds what a watch watches, now: its place, or ``NotFound`` / ``NoServer``."""


# --- one client's lines ------------------------------------------------------------------


class Feed:
    """One output client as the watches and counters of its session hear it."""

    def __init__(self, client: ControlClient) -> None:
        self.client = client
        self.watches: set[Watch] = set()
        self.printing: dict[str, set[Watch]] = {}  # pane -> watches woken by its output
        self.counters: dict[str, Counter] = {}
        self.facts: dict[str, str] = {}  # pane -> the facts tmux last reported
        self.facts_on = False
        self._remove = client.add_listener(self._on_line)
        self._forget = client.on_ended(self._on_ended)

    @property
    def empty(self) -> bool:
        return not self.watches and not self.counters

    def add(self, watch: Watch) -> None:
        self.watches.add(watch)
        if watch.kind == "pane" and watch.place is not None and watch.place.pane_id:
            self.printing.setdefault(watch.place.pane_id, set()).add(watch)

    def discard(self, watch: Watch) -> None:
        self.watches.discard(watch)
        for pane, watches in list(self.printing.items()):
            watches.discard(watch)
            if not watches:
                del self.printing[pane]

    async def facts_wanted(self, wanted: bool) -> None:
        """Hold the facts subscription while ``wanted`` (a watch needs it), else drop it."""
        if wanted == self.facts_on or not self.client.usable:
            return
        self.facts_on = wanted
        if wanted:
            self.facts.clear()  # tmux sends every pane's value first: the baseline
        with contextlib.suppress(TmuxError):
            await self.client.run(SUBSCRIBE_FACTS if wanted else UNSUBSCRIBE_FACTS)

    def close(self) -> None:
        self._remove()
        self._forget()

    def _on_line(self, line: str) -> None:
        if line.startswith("%output "):
            space = line.find(" ", 8)
            pane = line[8:space] if space != -1 else line[8:]
            counter = self.counters.get(pane)
            if counter is not None:
                counter.count.feed(line[space + 1 :] if space != -1 else "")
            for watch in self.printing.get(pane, ()):
                watch.report.changed()
            return
        if line.startswith("%subscription-changed "):
            self._subscription(line)
            return
        name, _, rest = line.partition(" ")
        args = rest.split(" ")
        for watch in list(self.watches):
            watch.notice(name, args)

    def _subscription(self, line: str) -> None:
        """``%subscription-changed NAME $S @W INDEX %P … : VALUE``."""
        head, separator, value = line.partition(" : ")
        words = head.split(" ")
        if not separator or len(words) < 6:
            return
        session, window, pane = words[2], words[3], words[5]
        if words[1] == DEAD_SUBSCRIPTION and value == "1":
            for watch in list(self.watches):
                watch.died(pane)
        elif words[1] == FACTS:
            before = self.facts.get(pane)
            self.facts[pane] = value
            if before is not None and before != value:
                for watch in list(self.watches):
                    watch.fact(session, window, pane)

    def _on_ended(self) -> None:
        for watch in list(self.watches):
            watch.check()
        for counter in list(self.counters.values()):
            counter.live.forget_counter(counter)


# --- watches for subscribers -------------------------------------------------------------

# What each kind of watch hears as "it may read differently now" (notification name ->
# which argument must be its window, session or pane; None: any), and as "it may be gone".
_CHANGED: dict[Kind, dict[str, str | None]] = {
    "pane": {
        "%layout-change": "window",
        "%window-pane-changed": "window",
        "%pane-mode-changed": "pane",
    },
    "window": {
        "%layout-change": "window",
        "%window-pane-changed": "window",
        "%window-renamed": "window",
        "%session-window-changed": "session",
    },
    "session": {
        "%window-add": None,
        "%window-close": None,
        # tmux 3.3a tells even the attached session's client of one of its windows
        # closing as unlinked: the window has left the session when it writes.
        "%unlinked-window-close": None,
        "%window-renamed": None,
        "%layout-change": None,
        "%window-pane-changed": None,
        "%session-window-changed": "session",
        "%client-session-changed": None,
        "%client-detached": None,
    },
    "sessions": {
        "%sessions-changed": None,
        "%session-renamed": None,
        "%window-add": None,
        "%unlinked-window-add": None,
        "%window-close": None,
        "%unlinked-window-close": None,
        "%session-window-changed": None,
        "%window-pane-changed": None,
        "%client-session-changed": None,
        "%client-detached": None,
    },
}
_CHECK: dict[Kind, dict[str, str | None]] = {
    "pane": {
        "%layout-change": "window",
        "%window-close": "window",
        "%unlinked-window-close": "window",
        "%session-changed": None,
        "%exit": None,
    },
    "window": {
        "%window-close": "window",
        "%unlinked-window-close": "window",
        "%window-add": None,
        "%session-renamed": "session",
        "%sessions-changed": None,
        "%session-changed": None,
        "%exit": None,
    },
    "session": {
        "%session-renamed": "session",
        "%sessions-changed": None,
        "%session-changed": None,
        "%exit": None,
    },
    "sessions": {"%session-changed": None, "%exit": None},
}


class Watch:
    """One subscriber's watch on a pane, a window, a session, or a server's sessions."""

    def __init__(self, live: Live, kind: Kind, resolve: Resolve, report: Report) -> None:
        self.live = live
        self.kind = kind
        self.resolve = resolve
        self.report = report
        self.place: Place | None = None
        self.lease: Lease | None = None
        self.feed: Feed | None = None
        self._checks: asyncio.Task[None] | None = None
        self._again = False
        self._done = False

    async def start(self) -> None:
        """Find what is watched (``NotFound`` refuses the subscription) and start hearing it;
        a check right after catches what happened between the look and the listening."""
        place = await self.resolve()
        await self._follow(place)
        self.check()

    async def aclose(self) -> None:
        """Stop: nothing more is reported, the client is let go."""
        self._done = True
        task, self._checks = self._checks, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._let_go()

    # --- what the feed hands over (event-loop callbacks: quick, never blocking) ---

    def notice(self, name: str, args: list[str]) -> None:
        if self._done:
            return
        if self._concerns(_CHANGED[self.kind].get(name, "-"), name, args):
            self.report.changed()
        if self._concerns(_CHECK[self.kind].get(name, "-"), name, args):
            self.check()

    def fact(self, session: str, window: str, pane: str) -> None:
        place = self.place
        if self._done or place is None:
            return
        if (self.kind == "pane" and pane == place.pane_id) or (
            self.kind == "window" and window == place.window_id
        ):
            self.report.changed()

    def died(self, pane: str) -> None:
        if not self._done and self.kind == "pane" and self.place and pane == self.place.pane_id:
            self.check()

    def _concerns(self, which: str | None, name: str, args: list[str]) -> bool:
        """Whether notification ``name`` (``args``) is about this watch: ``which`` names the
        argument that must be its own (None: any; "-": the notification is not one of its)."""
        if which == "-":
            return False
        if which is None:
            return True
        place = self.place
        mine = {
            "window": place.window_id if place else None,
            "session": place.session_id if place else None,
            "pane": place.pane_id if place else None,
        }[which]
        return bool(args) and args[0] == mine

    def check(self) -> None:
        """Read tmux again soon: what is watched may have moved or gone."""
        if self._done:
            return
        if self._checks is not None and not self._checks.done():
            self._again = True
            return
        self._checks = asyncio.get_running_loop().create_task(self._check_until_settled())

    # --- reading tmux after an event ---

    async def _check_until_settled(self) -> None:
        self._again = True
        while self._again and not self._done:
            self._again = False
            try:
                await self._verify()
            except Exception:  # a bug here must not end the server; the watch ends
                log.exception("checking a watched %s failed", self.kind)
                await self._end("the server could not follow it any more (an internal error)")

    async def _verify(self) -> None:
        try:
            place = await self.resolve()
        except NoServer as exc:
            await self._end(f"its tmux server went ({exc.message})")
            return
        except NotFound as exc:
            await self._end(await self.live.why_gone(self, exc))
            return
        if place.dead is not None:
            status = f" with status {place.dead}" if place.dead else ""
            await self._end(f"its program exited{status} (remain-on-exit keeps the pane)")
            return
        lease = self.lease
        if lease is None or lease.session_id != place.session_id or not lease.client.usable:
            try:
                await self._follow(place)
            except (NoServer, TmuxError) as exc:
                await self._end(f"it can no longer be watched ({exc.message})")
                return
            self.report.changed()  # it moved, or its client was replaced: read it again
        else:
            self.place = place

    async def _follow(self, place: Place) -> None:
        """Hear ``place``'s session: its output client, held while this watch lasts."""
        old_lease, old_feed = self.lease, self.feed
        lease = await self.live.server.watchers.lease(place.session_id)
        feed = self.live.feed_for(lease.client)
        if old_feed is not None:
            old_feed.discard(self)
        self.place, self.lease, self.feed = place, lease, feed
        feed.add(self)
        if self.kind in ("pane", "window"):
            await feed.facts_wanted(True)
        if old_feed is not None:
            await self.live.left(old_feed)
        if old_lease is not None:
            await old_lease.release()

    async def _end(self, why: str) -> None:
        if self._done:
            return
        self._done = True
        self.report.ended(why)
        await self._let_go()

    async def _let_go(self) -> None:
        self.live.forget_watch(self)
        feed, lease = self.feed, self.lease
        self.feed = self.lease = None
        if feed is not None:
            feed.discard(self)
            await self.live.left(feed)
        if lease is not None:
            await lease.release()


# --- row counters for continued reads ----------------------------------------------------


@dataclass(frozen=True)
class Stamp:
    """A counter's reading, carried by a cursor: which counter, its breaks and its rows."""

    counter: int
    breaks: int
    rows: int


class Counter:
    """The rows one pane's output advanced since the counter began (``transport.printed``)."""

    _ids = itertools.count(1)

    def __init__(self, live: Live, pane_id: str, lease: Lease, feed: Feed) -> None:
        self.id = next(self._ids)
        self.live = live
        self.pane_id = pane_id
        self.lease = lease
        self.feed = feed
        self.count = RowCount()
        self.expiry: asyncio.TimerHandle | None = None

    def stamp(self) -> Stamp:
        return Stamp(self.id, self.count.breaks, self.count.rows)


# --- all of one server's ---------------------------------------------------------------


class Live:
    """The watches and row counters of one tmux server (``Server.live``)."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self._feeds: dict[ControlClient, Feed] = {}
        self._watches: set[Watch] = set()
        self._counters: dict[str, Counter] = {}
        self._departed: dict[str, NotFound] = {}
        self._closing: set[asyncio.Task[None]] = set()
        self._counting = anyio.Lock()  # one counter per pane, however many cursors open at once

    # --- watches ---

    async def pane(self, pane_id: str, field: str, report: Report) -> Watch:
        """Watch pane ``pane_id`` (named by argument ``field``): its output, its size,
        title, command and mode, and its going."""
        pane = self.server.pane(pane_id, field)

        async def resolve() -> Place:
            row = await pane.row(PANE_PLACE_FIELDS)
            dead = row.raw.get("pane_dead_status", "") if row["pane_dead"] == "1" else None
            return Place(row.session_id, row.raw["window_id"], row.pane_id, dead)

        return await self._start(Watch(self, "pane", resolve, report))

    async def window(self, resolve: Resolve, report: Report) -> Watch:
        """Watch the window ``resolve`` finds (again after each event that may move it)."""
        return await self._start(Watch(self, "window", resolve, report))

    async def session(self, resolve: Resolve, report: Report) -> Watch:
        """Watch the session ``resolve`` finds: its windows and its clients."""
        return await self._start(Watch(self, "session", resolve, report))

    async def sessions(self, report: Report) -> Watch:
        """Watch the server's sessions, through the client of any one of them."""
        watch: Watch

        async def resolve() -> Place:
            rows = await self.server.list_sessions()
            ids = [row.session_id for row in rows]
            if not ids:
                raise NotFound("session", None, socket=self.server.socket, note="none is left")
            kept = watch.place.session_id if watch.place else None
            watched = [sid for sid in self.server.watchers.sessions_watched() if sid in ids]
            return Place(kept if kept in ids else (watched or ids)[0])

        watch = Watch(self, "sessions", resolve, report)
        return await self._start(watch)

    async def _start(self, watch: Watch) -> Watch:
        await watch.start()
        self._watches.add(watch)
        return watch

    def forget_watch(self, watch: Watch) -> None:
        self._watches.discard(watch)

    def departed(self, pane_id: str) -> NotFound | None:
        """What a read of pane ``pane_id`` should say if a watch saw it go."""
        return self._departed.get(pane_id)

    async def why_gone(self, watch: Watch, exc: NotFound) -> str:
        """Which went, for a watch whose target is no longer there: for a pane, its
        session, its window, or itself (kept for later reads); else what tmux said."""
        place = watch.place
        if watch.kind != "pane" or place is None or place.pane_id is None:
            return exc.message
        try:
            rows = await self.server.run("list-windows", "-a", "-F", "#{session_id} #{window_id}")
        except NoServer as exc_server:
            return f"its tmux server went ({exc_server.message})"
        pairs = [row.split(" ", 1) for row in rows]
        closed = "was closed (killed, or its last pane exited)"
        if place.session_id not in {pair[0] for pair in pairs}:
            why, lister = f"its session {place.session_id} {closed}", "list_sessions"
        elif place.window_id not in {pair[-1] for pair in pairs}:
            why, lister = f"its window {place.window_id} {closed}", "list_windows"
        else:
            why, lister = "it was killed, or its program exited", "list_panes"
        note = f"it went away while watched: {why}"
        gone = NotFound("pane", place.pane_id, socket=self.server.socket, lister=lister, note=note)
        self._departed[place.pane_id] = gone
        while len(self._departed) > DEPARTED_KEPT:
            del self._departed[next(iter(self._departed))]
        return gone.message

    # --- row counters ---

    async def stamp(self, row: PaneRow) -> Stamp | None:
        """A reading of pane ``row``'s row counter, started if need be (None when no client
        can hear it). Take it after reading what the cursor points at, never before."""
        async with self._counting:
            counter = self._counters.get(row.pane_id)
            if counter is None or not counter.lease.client.usable:
                if counter is not None:
                    self.forget_counter(counter)
                try:
                    lease = await self.server.watchers.lease(row.session_id)
                except TmuxError:
                    return None
                counter = Counter(self, row.pane_id, lease, self.feed_for(lease.client))
                counter.feed.counters[row.pane_id] = counter
                self._counters[row.pane_id] = counter
        if counter.expiry is not None:
            counter.expiry.cancel()
        counter.expiry = asyncio.get_running_loop().call_later(
            COUNT_IDLE, self.forget_counter, counter
        )
        return counter.stamp()

    def rows_since(self, stamp: Stamp | None, pane_id: str) -> int | None:
        """Rows pane ``pane_id`` advanced since ``stamp``, when its counter has held since;
        a reading taken before the read it is compared with, so it never runs ahead."""
        counter = self._counters.get(pane_id)
        if stamp is None or counter is None or counter.id != stamp.counter:
            return None
        if counter.count.breaks != stamp.breaks or not counter.lease.client.usable:
            return None
        return counter.count.rows - stamp.rows

    async def stop_counting(self) -> None:
        """Let every row counter go, and its client with it once no one else uses it; the
        cursors that relied on one find their place by their anchors alone."""
        for counter in list(self._counters.values()):
            self.forget_counter(counter)
        for task in list(self._closing):
            await task

    def stop_counting_pane(self, pane_id: str) -> None:
        """No cursor handed out for ``pane_id`` needs its rows counted any more."""
        counter = self._counters.get(pane_id)
        if counter is not None:
            self.forget_counter(counter)

    def forget_counter(self, counter: Counter) -> None:
        """Stop counting (idle, its client ended, or closing): let its client go."""
        if self._counters.get(counter.pane_id) is counter:
            del self._counters[counter.pane_id]
        if counter.expiry is not None:
            counter.expiry.cancel()
            counter.expiry = None
        if counter.feed.counters.get(counter.pane_id) is counter:
            del counter.feed.counters[counter.pane_id]

        async def let_go() -> None:
            await self.left(counter.feed)
            await counter.lease.release()

        task = asyncio.get_running_loop().create_task(let_go())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    # --- feeds ---

    def feed_for(self, client: ControlClient) -> Feed:
        feed = self._feeds.get(client)
        if feed is None:
            feed = self._feeds[client] = Feed(client)
        return feed

    async def left(self, feed: Feed) -> None:
        """A watch or counter left ``feed``: drop what no one needs any more."""
        if not any(watch.kind in ("pane", "window") for watch in feed.watches):
            await feed.facts_wanted(False)
        if feed.empty and self._feeds.get(feed.client) is feed:
            del self._feeds[feed.client]
            feed.close()

    async def aclose(self) -> None:
        """End every watch and counter (the server is closing)."""
        watches, self._watches = list(self._watches), set()
        for watch in watches:
            await watch.aclose()
        await self.stop_counting()
