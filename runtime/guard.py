"""The configuration file at the one place every call passes: the scope before a handler
runs, the audit line after it.

``dispatch.run_checked`` (direct calls and every call a batch makes) hands a tool that
carries a ``Guard`` to ``Guard.run``. With no configuration file no tool carries one and
dispatch is as before.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .audit import AuditLog
from .config import Config, ConfigRefused
from .handlers.tmux.transport.hosts import HOST_SEPARATOR
from .scope import Effects, Scope, ScopeRefused, ScopeRow, targets_of

if TYPE_CHECKING:
    import mcp.types as types
    from pydantic import BaseModel

    from .profiles import Profile, Tool
    from .seam import Call, HandlerSet

LOCAL = "local"


class Guard:
    """The scope (maybe none) and the audit log (maybe none) of one served profile."""

    def __init__(
        self,
        scope: Scope | None,
        audit: AuditLog | None,
        effects: Effects | None,
        local_host: str = LOCAL,
    ) -> None:
        self.scope = scope
        self.audit = audit
        self.effects = effects
        self.local_host = local_host

    @classmethod
    def of(cls, config: Config, profile: Profile, local_host: str = LOCAL) -> Guard | None:
        """The guard a configuration asks for over ``profile``; None when it asks for none."""
        where = f"config {config.path}"
        effects = Effects.of(profile.effects) if profile.effects is not None else None
        scope = None
        if config.scope.active:
            if effects is None:
                raise ConfigRefused(
                    f"{where}: [scope]: the {profile.name} profile does not describe what its "
                    "tools do, so it cannot be scoped; remove [scope] or serve another profile"
                )
            scope = Scope(config.scope, effects, where)
        audit = AuditLog(config.audit, where) if config.audit is not None else None
        if scope is None and audit is None:
            return None
        return cls(scope, audit, effects, local_host)

    @classmethod
    def listing(cls, config: Config, profile: Profile) -> Guard | None:
        """The scope alone (no audit log opened): for ``--list-tools``."""
        if not config.scope.active or profile.effects is None:
            return None
        effects = Effects.of(profile.effects)
        return cls(Scope(config.scope, effects, f"config {config.path}"), None, effects)

    def close(self) -> None:
        if self.audit is not None:
            self.audit.close()

    def serve(self, profile: Profile) -> Profile:
        """``profile`` with only the tools the scope serves, each carrying this guard."""
        scope = self.scope
        names = [name for name in profile.tools if scope is None or scope.serves(name)]
        tools = {
            name: dataclasses.replace(profile.tools[name].among(names), guard=self)
            for name in names
        }
        resources = profile.resources
        if scope is not None:
            resources = {
                name: dataclasses.replace(resource, guard=self)
                for name, resource in profile.resources.items()
            }
        return dataclasses.replace(profile, tools=tools, resources=resources)

    async def admit_read(
        self, handlers: HandlerSet, uri: str, variables: Mapping[str, Any]
    ) -> str | None:
        """Why a resource read or subscription is outside the scope, or None."""
        if self.scope is None:
            return None
        try:
            await self.scope.admit_read(uri, variables, handlers.scope_rows)
        except ScopeRefused as exc:
            return str(exc)
        return None

    def changes_tmux(self, tool: str) -> bool:
        return self.effects is None or tool not in self.effects.read_only

    def socket_of(self, arguments: Mapping[str, Any]) -> str | None:
        name = self.effects.socket_argument if self.effects is not None else None
        value = arguments.get(name) if name is not None else None
        return value if isinstance(value, str) else None

    def host_of(self, socket: str | None) -> str:
        if socket is not None and HOST_SEPARATOR in socket:
            return socket.split(HOST_SEPARATOR, 1)[0]
        return self.local_host

    async def run(
        self,
        tool: Tool,
        handlers: HandlerSet,
        call: Call,
        params: BaseModel,
        run: Callable[[], Awaitable[types.CallToolResult]],
    ) -> types.CallToolResult:
        from .dispatch import error_result, structured_text, success_result

        name = tool.entry.name
        arguments = params.model_dump(mode="json", by_alias=True)
        socket = self.socket_of(arguments)

        async def lookup(socket: str | None) -> Sequence[ScopeRow]:
            return await handlers.scope_rows(socket)

        started = time.perf_counter()
        try:
            if self.scope is not None:
                await self.scope.admit(name, tool.contract["inputSchema"], arguments, lookup)
        except ScopeRefused as exc:
            result = error_result(str(exc), tool, "invalid_input")
            self._record(name, arguments, socket, "refused", str(exc), started, call)
            return result
        result = await run()
        structured = result.structured_content
        if self.scope is not None and structured is not None and not result.is_error:
            kept = await self.scope.filtered(name, dict(structured), socket, lookup)
            if kept != structured:
                notes = tuple(c.text for c in result.content[1:] if c.type == "text")
                result = success_result(kept, structured_text(kept, tool.text_key), notes)
        error = None
        if result.is_error:
            error = " ".join(c.text for c in result.content if c.type == "text")
        self._record(name, arguments, socket, "error" if error else "ok", error, started, call)
        return result

    def _record(
        self,
        tool: str,
        arguments: dict[str, Any],
        socket: str | None,
        outcome: str,
        error: str | None,
        started: float,
        call: Call,
    ) -> None:
        if self.audit is None or not self.changes_tmux(tool):
            return
        targets: list[str] = []
        if self.effects is not None:
            targets = [f"{key}={value}" for key, value in targets_of(arguments, self.effects)]
        self.audit.record(
            tool=tool,
            arguments=arguments,
            targets=targets,
            host=self.host_of(socket),
            outcome=outcome,
            error=error,
            seconds=time.perf_counter() - started,
            client=call.client,
        )
