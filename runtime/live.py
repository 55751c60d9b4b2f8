"""Live resources: ``resources/subscribe`` and ``resources/unsubscribe``, fed by tmux's events.

One event source feeds every subscriber. Each URI someone subscribed to is a ``Topic``:
the handlers watch it once (the resource's watch method, ``seam.WatchMethod``) however
many subscribers it has, and report ``changed()`` / ``ended(why)`` from tmux's own
events. A topic turns those reports into ``ResourceUpdated(uri)`` events on the SDK's
subscription bus (``mcp.server.subscriptions.InMemorySubscriptionBus``), and every
subscriber hears the bus:

- a handshake-era connection that subscribed is one bus listener (``Subscriber``) that
  sends ``notifications/resources/updated`` for the URIs it holds, in a task of its own,
  and lets go of all of them when its connection closes;
- the 2026-07-28 revision's ``subscriptions/listen`` is the SDK's ``ListenHandler``
  over the same ``bus``; what a listen stream names is held with ``hold`` while the
  stream lasts, so the same topics, coalescing and last update serve it.

Coalescing happens once, in the topic: the first change after a quiet spell is published
at once, later ones at most once per interval (``UPDATE_INTERVAL_ENV``, 100 ms unless
set), and a change inside an interval is never dropped, only published when it ends.
The interval's timer only delays an update that tmux's events asked for; it never reads
tmux. When what a topic watches is gone, one last update is published (after the
interval, if one is running) and every subscriber's subscription to it ends.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ResourceUpdated,
    ServerEvent,
)
from mcp.shared.exceptions import MCPError

from .errors import InvalidArgument, NotFound, ToolError
from .resources import admitted, checked_variables, match
from .seam import HandlerSet, Watching
from .surfaces import Resource

log = logging.getLogger(__name__)

UPDATE_INTERVAL_ENV = "TMUX_CONTRACT_MCP_UPDATE_INTERVAL_MS"
DEFAULT_INTERVAL_MS = 100


def interval_from(environ: Mapping[str, str]) -> float:
    """Seconds between two updates of one URI: ``UPDATE_INTERVAL_ENV`` in milliseconds (a
    whole number, 0 for no coalescing), else 100 ms; a value that is no such number is
    logged and the default used."""
    raw = environ.get(UPDATE_INTERVAL_ENV, "").strip()
    if not raw:
        return DEFAULT_INTERVAL_MS / 1000
    if raw.isdigit():
        return int(raw) / 1000
    log.warning(
        "%s=%r is not a whole number of milliseconds; using %d",
        UPDATE_INTERVAL_ENV,
        raw,
        DEFAULT_INTERVAL_MS,
    )
    return DEFAULT_INTERVAL_MS / 1000


class Topic:
    """One subscribed URI: watched once, coalesced once, published on the bus."""

    def __init__(self, live: Live, uri: str) -> None:
        self.live = live
        self.uri = uri
        self.holds = 0
        self.watching: Watching | None = None
        self.finished = False  # its target went, its last update went out
        self._gone = False
        self._dirty = False
        self._last = -math.inf
        self._timer: asyncio.TimerHandle | None = None

    # The handlers' reports (``seam.Changes``), in the event loop's callbacks.

    def changed(self) -> None:
        if self._gone:
            return
        if self._timer is not None:
            self._dirty = True
            return
        wait = self._last + self.live.interval - time.monotonic()
        if wait <= 0:
            self._publish()
        else:
            self._dirty = True
            self._timer = asyncio.get_running_loop().call_later(wait, self._tick)

    def ended(self, why: str) -> None:
        if self._gone:
            return
        self._gone = True
        log.info("%s: %s; its subscriptions end", self.uri, why)
        if self._timer is None:
            self._publish()
            self._finish()
        else:
            self._dirty = True  # the last update goes when the running interval ends

    def _tick(self) -> None:
        self._timer = None
        if self._dirty:
            self._publish()
            if self._gone:
                self._finish()

    def _publish(self) -> None:
        self._dirty = False
        self._last = time.monotonic()
        if self.live.interval > 0:
            # The interval starts now: a change inside it waits for its end.
            self._timer = asyncio.get_running_loop().call_later(self.live.interval, self._tick)
        self.live.publish(ResourceUpdated(uri=self.uri))

    def _finish(self) -> None:
        self.finished = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.live.publish(self)  # after its last update has gone out on the bus

    async def aclose(self) -> None:
        self._gone = self.finished = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        watching, self.watching = self.watching, None
        if watching is not None:
            with anyio.CancelScope(shield=True):
                await watching.aclose()


class Subscriber:
    """One handshake-era connection's subscriptions: a bus listener that sends its client
    ``notifications/resources/updated`` for each URI it holds, from a task of its own."""

    def __init__(self, live: Live, session: ServerSession, key: object) -> None:
        self.live = live
        self.session = session
        self.key = key
        self.topics: dict[str, Topic] = {}
        self._pending: dict[str, None] = {}  # URIs to send, in order, each once
        self._wake = asyncio.Event()
        self._stop_listening = live.bus.subscribe(self._heard)
        self._sender = asyncio.get_running_loop().create_task(self._send())
        self._closed = False

    def _heard(self, event: ServerEvent) -> None:
        if isinstance(event, ResourceUpdated) and event.uri in self.topics:
            self._pending[event.uri] = None
            self._wake.set()

    async def _send(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending:
                uri = next(iter(self._pending))
                del self._pending[uri]
                try:
                    await self.session.send_resource_updated(uri)
                except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                    log.info("the client subscribed to %s is gone", uri)
                    self._pending.clear()
                    return

    def ended(self, topic: Topic) -> None:
        """``topic``'s target is gone and its last update was heard: the subscription ends."""
        if self.topics.get(topic.uri) is topic:
            del self.topics[topic.uri]

    async def subscribe(self, uri: str) -> None:
        if uri in self.topics:
            return
        topic = await self.live.hold(uri)
        if self._closed:
            await self.live.release(topic)
            return
        self.topics[uri] = topic

    async def unsubscribe(self, uri: str) -> None:
        """No update for ``uri`` is sent from now on, not even one already queued."""
        self._pending.pop(uri, None)
        topic = self.topics.pop(uri, None)
        if topic is not None:
            await self.live.release(topic)

    async def aclose(self) -> None:
        """The connection closed: every subscription of it ends."""
        if self._closed:
            return
        self._closed = True
        self._stop_listening()
        self._sender.cancel()
        with anyio.CancelScope(shield=True):
            for uri in list(self.topics):
                await self.unsubscribe(uri)
        if self.live.subscribers.get(self.key) is self:
            del self.live.subscribers[self.key]


class Live:
    """Every subscribed URI of one server: the topics, the bus, the subscribers."""

    def __init__(
        self,
        resources: Iterable[Resource],
        handlers: HandlerSet,
        environ: Mapping[str, str],
    ) -> None:
        self.resources = list(resources)
        self.handlers = handlers
        self.interval = interval_from(environ)
        self.bus = InMemorySubscriptionBus()
        self.listen = ListenHandler(self.bus)  # 2026-07-28's subscriptions/listen streams
        self.topics: dict[str, Topic] = {}
        self.subscribers: dict[object, Subscriber] = {}
        self._opening = anyio.Lock()
        self._events: asyncio.Queue[ServerEvent | Topic] = asyncio.Queue()
        self._pump: asyncio.Task[None] | None = None

    @property
    def subscribable(self) -> list[Resource]:
        return [r for r in self.resources if r.entry.watch_method is not None]

    # --- holding a URI: what every kind of subscriber does ---

    async def hold(self, uri: str) -> Topic:
        """Start (or join) the topic of ``uri``. Refuses, naming it, a URI that is no
        resource of this server, whose variables break its contract, that cannot be
        subscribed to, or whose target is not there; nothing else changes then."""
        async with self._opening:
            topic = self.topics.get(uri)
            if topic is None:
                topic = Topic(self, uri)
                topic.watching = await self._watch(uri, topic)
                self.topics[uri] = topic
            topic.holds += 1
            return topic

    async def release(self, topic: Topic) -> None:
        """Let go of ``topic``; its watch stops when the last holder goes."""
        topic.holds -= 1
        if topic.holds > 0 or topic.finished:
            return
        if self.topics.get(topic.uri) is topic:
            del self.topics[topic.uri]
        await topic.aclose()

    @asynccontextmanager
    async def holding(self, uris: Iterable[str]) -> AsyncIterator[None]:
        """Hold ``uris`` while the block runs (e.g. a ``subscriptions/listen`` stream)."""
        held: list[Topic] = []
        try:
            for uri in uris:
                held.append(await self.hold(uri))
            yield
        finally:
            with anyio.CancelScope(shield=True):
                for topic in held:
                    await self.release(topic)

    async def _watch(self, uri: str, topic: Topic) -> Watching:
        resource, variables = match(self.resources, uri, doing="subscribed to")
        method = resource.entry.watch_method
        if method is None:
            shapes = ", ".join(r.entry.uri for r in self.subscribable) or "none"
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"Resource {uri} ({resource.entry.uri}) cannot be subscribed to; "
                f"nothing was subscribed. The resources that can: {shapes}.",
                data={"uri": uri},
            )
        params = checked_variables(resource, variables, uri, doing="subscribed to")
        await admitted(resource, self.handlers, params, uri)
        try:
            return await self.handlers.watch(method)(params, topic)
        except NotFound as exc:
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"Resource not found: {exc.message} Nothing was subscribed.",
                data={"uri": uri},
            ) from None
        except InvalidArgument as exc:
            raise MCPError(
                code=types.INVALID_PARAMS, message=exc.message, data={"uri": uri}
            ) from None
        except ToolError as exc:
            raise MCPError(
                code=types.INTERNAL_ERROR,
                message=f"Subscribing to {uri} failed: {exc.message}",
                data={"uri": uri},
            ) from None

    # --- publishing ---

    def publish(self, event: ServerEvent | Topic) -> None:
        """Put ``event`` on the bus from a task (publishing is async), after every event
        before it; a ``Topic`` there is one whose last update came just before: it ends."""
        self._events.put_nowait(event)
        if self._pump is None or self._pump.done():
            self._pump = asyncio.get_running_loop().create_task(self._pumping())

    async def _pumping(self) -> None:
        while not self._events.empty():
            event = self._events.get_nowait()
            if isinstance(event, Topic):
                await self._finish(event)
            else:
                await self.bus.publish(event)

    async def _finish(self, topic: Topic) -> None:
        """``topic``'s target is gone and its last update was heard: every subscription to
        it ends, and its watch is let go."""
        if self.topics.get(topic.uri) is topic:
            del self.topics[topic.uri]
        for subscriber in list(self.subscribers.values()):
            subscriber.ended(topic)
        watching, topic.watching = topic.watching, None
        if watching is not None:
            with anyio.CancelScope(shield=True):
                await watching.aclose()

    # --- the handshake era's subscribers ---

    def subscriber(self, ctx: ServerRequestContext[Any]) -> Subscriber:
        """The subscriber of the connection ``ctx`` came on, made on its first subscribe;
        it lets go of everything when that connection closes."""
        connection = connection_of(ctx)
        key: object = connection if connection is not None else ctx.session
        subscriber = self.subscribers.get(key)
        if subscriber is None:
            subscriber = self.subscribers[key] = Subscriber(self, ctx.session, key)
            if connection is not None:
                connection.exit_stack.push_async_callback(subscriber.aclose)
        return subscriber

    async def aclose(self) -> None:
        """The server stops: every subscriber, listen stream and topic ends, every watch is
        let go."""
        self.listen.close()
        for subscriber in list(self.subscribers.values()):
            await subscriber.aclose()
        for topic in list(self.topics.values()):
            await topic.aclose()
        self.topics.clear()
        if self._pump is not None:
            self._pump.cancel()


def connection_of(ctx: ServerRequestContext[Any]) -> Any:
    """The SDK's per-client ``Connection`` behind a request (its ``exit_stack`` unwinds
    when the client goes: stdin's end, an HTTP session's end). mcp 2.3.0 hands handlers
    only the per-request ``ServerSession``, which holds it privately."""
    return getattr(ctx.session, "_connection", None)


def add_subscriptions(
    server: Server[Any],
    resources: Iterable[Resource],
    handlers: HandlerSet,
    environ: Mapping[str, str],
) -> Live | None:
    """``resources/subscribe`` and ``resources/unsubscribe`` for a profile with a resource
    that can be subscribed to (the SDK then advertises ``resources.subscribe``); the
    server's lifespan ends every subscription when it stops."""
    live = Live(resources, handlers, environ)
    if not live.subscribable:
        return None

    async def on_subscribe(
        ctx: ServerRequestContext[Any], params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        await live.subscriber(ctx).subscribe(str(params.uri))
        return types.EmptyResult()

    async def on_unsubscribe(
        ctx: ServerRequestContext[Any], params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        await live.subscriber(ctx).unsubscribe(str(params.uri))
        return types.EmptyResult()

    async def on_listen(
        ctx: ServerRequestContext[Any], params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        """2026-07-28: the URIs a stream names are held (refused, by name, as
        ``resources/subscribe`` refuses them) while the SDK's handler streams the bus."""
        async with live.holding(params.notifications.resource_subscriptions or ()):
            return await live.listen(ctx, params)

    server.add_request_handler("resources/subscribe", types.SubscribeRequestParams, on_subscribe)
    server.add_request_handler(
        "resources/unsubscribe", types.UnsubscribeRequestParams, on_unsubscribe
    )
    server.add_request_handler(
        "subscriptions/listen", types.SubscriptionsListenRequestParams, on_listen
    )
    server.lifespan = ending(server.lifespan, live)
    return live


Lifespan = Callable[[Server[Any]], AbstractAsyncContextManager[Any]]


def ending(lifespan: Lifespan, live: Live) -> Lifespan:
    """``lifespan``, then every subscription ends."""

    @asynccontextmanager
    async def lifespan_then_live(server: Server[Any]) -> AsyncIterator[Any]:
        try:
            async with lifespan(server) as state:
                yield state
        finally:
            with anyio.CancelScope(shield=True):
                await live.aclose()

    return lifespan_then_live
