"""The seam between the runtime and a profile's handlers: what the runtime may call.

Every generated interface subclasses ``HandlerSet``, and the runtime knows a profile's
handlers only as one: it calls a tool, resource or prompt by the method name the
generated registry gives, with the model the call's checks produced, and reads the
answer. Beside those, a handler set says what the instructions may state about where
this process runs, which toolsets its start turns on, and how to let go of what it holds.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, cast

from pydantic import BaseModel

if TYPE_CHECKING:
    from .reply import Reply

Reporter = Callable[[float, "float | None", "str | None"], Awaitable[None]]
"""Where a call's progress goes: (progress, total, message)."""


async def _nowhere(progress: float, total: float | None = None, message: str | None = None) -> None:
    """Progress for a call whose client asked for none."""


@dataclass(frozen=True)
class Answering:
    """What shapes the response line of the call being answered: its request id, the
    protocol version it came in on and the server-info stamp that version carries."""

    request_id: int | str = 0
    protocol_version: str | None = None
    server_info: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Call:
    """What one tools/call gives its handler besides the arguments, passed explicitly.

    ``progress`` sends a progress notification for this request (nowhere when the client
    gave no progress token); ``answering`` is what the batch needs to count its answer's
    bytes on the wire exactly. Cancellation has no field: the SDK cancels the handler's
    task (an anyio cancel scope) when the client cancels the request, so a handler
    learns it where it awaits.
    """

    answering: Answering = field(default_factory=Answering)
    report: Reporter = _nowhere
    client: str = "stdio"  # who called: stdio, or the HTTP client's address (the audit log)

    async def progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        await self.report(progress, total, message)


ToolMethod = Callable[[Call, BaseModel], Awaitable["BaseModel | Reply[BaseModel]"]]
"""A tool: the call's context and its checked input model in, its output model (or a
Reply) out."""
ResourceMethod = Callable[[BaseModel], Awaitable["BaseModel | str"]]
"""A resource: its URI's checked variables in, the result model or the text out."""
PromptMethod = Callable[[BaseModel], Awaitable[str]]
"""A prompt: its checked argument values in, the message's text out."""
Completer = Callable[[str, str, Mapping[str, str]], Awaitable[list[str]]]
"""Live values of a kind that start with a prefix, given the other arguments."""


class Changes(Protocol):
    """Where a watch method reports on the resource it watches (the runtime's side of a
    subscription). Both are called from the event loop's callbacks: quick, never blocking."""

    def changed(self) -> None:
        """The resource may read differently now."""

    def ended(self, why: str) -> None:
        """The resource is gone (``why`` says what went); nothing more follows."""


class Watching(Protocol):
    """What a watch method returns; the runtime closes it when the last subscriber leaves."""

    async def aclose(self) -> None: ...


WatchMethod = Callable[[BaseModel, "Changes"], Awaitable["Watching"]]
"""A subscribable resource's watch: its URI's checked variables and where to report in;
refuses a target that is not there (``NotFound``) as the read would."""


HOOKS = ("instruction_facts", "startup_toolsets", "scope_rows", "aclose")
"""The methods below with a body a profile's parts may replace (``handlers.compose``)."""


class HandlerSet:
    """A profile's handlers as the runtime sees them (a generated interface adds one
    abstract method per tool, resource and prompt)."""

    def tool(self, method: str) -> ToolMethod:
        """The method serving a tool (the registry's ``method`` for it)."""
        return cast(ToolMethod, getattr(self, method))

    def resource(self, method: str) -> ResourceMethod:
        return cast(ResourceMethod, getattr(self, method))

    def prompt(self, method: str) -> PromptMethod:
        return cast(PromptMethod, getattr(self, method))

    def watch(self, method: str) -> WatchMethod:
        """The method watching a subscribable resource (the registry's ``watch_method``)."""
        return cast(WatchMethod, getattr(self, method))

    def completer(self) -> Completer | None:
        """``complete_argument``, for a profile whose contracts complete to live values."""
        return cast("Completer | None", getattr(self, "complete_argument", None))

    def instruction_facts(self) -> dict[str, str]:
        """What the server instructions may state about where this process runs."""
        return {}

    def startup_toolsets(self) -> tuple[str, ...]:
        """Called once at startup, before the tool list is fixed: toolsets this start turns
        on by default besides the profile's (e.g. having started the server it serves).
        LIBTMUX_TOOLSETS, when set, still decides alone."""
        return ()

    async def scope_rows(self, socket: str | None) -> list[tuple[str, str, str, str]]:
        """Every pane of the server ``socket`` names (None: the default one) as (session id,
        session name, window id, pane id), read-only: how a configuration file's scope
        finds the sessions a call's ids reach (``runtime/scope.py``)."""
        return []

    async def aclose(self) -> None:
        """Release what the handlers hold (connections, watchers) when the server stops."""
        return None
