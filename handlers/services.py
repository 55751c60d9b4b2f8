"""What handlers need from the runtime, stated here so that the dependency points one way.

A tool that calls other tools (the read batch) needs the tools as served, the
same argument check and dispatch a direct call gets, and the size its answer
takes on the wire. The runtime implements ``Runtime`` over the one profile it
serves and passes it to the profile's ``create_handlers``; handlers import
this module, never the runtime's dispatch, profiles or wire.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel

from ..seam import Answering, Call

if TYPE_CHECKING:  # the SDK loads only to serve: --version and --help stay quick
    import mcp.types as types


@dataclass(frozen=True, slots=True)
class ServedTool:
    """A tool as the served profile shows it."""

    name: str
    toolset: str
    tags: tuple[str, ...]  # e.g. "self-bounded": waits on its own clock
    # the tool object as tools/list gives it to this client (lists of tool names in it,
    # such as a batch's nested authority, cut to the tools served)
    advertised: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)


class StartupRefused(ValueError):
    """The environment asks for something the profile cannot serve: startup stops, and
    the message (one line, naming each variable and what to do) is all that is said."""


class ArgumentsRefused(Exception):
    """A nested call's arguments broke a rule a direct call's would have broken too.

    ``problems`` has one line per rule (field, rule and fix); ``message`` is the
    whole answer a direct call with these arguments gets.
    """

    def __init__(self, problems: list[str], message: str) -> None:
        super().__init__(message)
        self.problems = problems
        self.message = message


class WireSize(Protocol):
    """What a result costs as the response line the transport writes for it."""

    @property
    def line_cap(self) -> int:
        """The most bytes one response line may take, newline included."""
        ...

    @property
    def escape_factor(self) -> int:
        """The most bytes JSON spends on one byte of a string."""
        ...

    def result_bytes(
        self, structured: dict[str, Any], text: str | None, answering: Answering
    ) -> int:
        """The exact bytes of the response line for a successful result (``text`` None: its JSON)."""
        ...

    def line_bound(self, structured_bytes: int, text_bytes: int, answering: Answering) -> int:
        """At least ``result_bytes`` of a result whose parts encode to these sizes."""
        ...


class HostSettings(Protocol):
    """The configuration file's hosts: each name's ``[USER@]HOST[:PORT]``, how long a host
    may stay unused before its connection closes, how long list_servers waits for one."""

    @property
    def ssh(self) -> Mapping[str, str]: ...

    @property
    def idle_seconds(self) -> float: ...

    @property
    def list_seconds(self) -> float: ...


class Runtime(WireSize, Protocol):
    """The runtime as handlers see it: the served tools and one dispatch for nested calls."""

    @property
    def profile(self) -> str:
        """The served profile's name."""
        ...

    @property
    def hosts(self) -> HostSettings:
        """The hosts the configuration file names (none without one)."""
        ...

    def tool(self, name: str) -> ServedTool | None:
        """The tool as served; None when the profile has no such tool or the toolset choice hides it."""
        ...

    def check_arguments(
        self, name: str, arguments: Mapping[str, Any] | None, at: Sequence[str | int] = ()
    ) -> BaseModel:
        """The typed arguments exactly as a direct call would get them, or ``ArgumentsRefused``.

        ``at`` is where the arguments sit in the larger call (named in each problem).
        """
        ...

    async def call(
        self, name: str, arguments: Mapping[str, Any] | None, call: Call
    ) -> types.CallToolResult:
        """A served tool's result, checked and run as a direct call is, in ``call``'s context."""
        ...

    async def run_checked(self, name: str, params: BaseModel, call: Call) -> types.CallToolResult:
        """A served tool's result for arguments ``check_arguments`` admitted."""
        ...
