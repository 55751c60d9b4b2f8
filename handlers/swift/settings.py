"""The server's settings as a session, window or pane sees them: environment, hooks, options."""

from __future__ import annotations

from ...errors import InvalidArgument
from ...generated.swift.models.show_environment import ShowEnvironmentInput, ShowEnvironmentOutput
from ...generated.swift.models.show_hooks import ShowHooksInput, ShowHooksOutput
from ...generated.swift.models.show_option import ShowOptionInput, ShowOptionOutput
from ..tmux.objects import settings
from ..tmux.objects.refs import Refs
from .lookup import Lookups, given


class Settings:
    def __init__(self, lookups: Lookups, refs: Refs) -> None:
        self.lookups = lookups
        self.refs = refs

    async def show_environment(self, params: ShowEnvironmentInput) -> ShowEnvironmentOutput:
        session_id = await self._session_id(given(params.session))
        server = self.lookups().server
        scope = server if session_id is None else server.session(session_id)
        environment = await scope.show_environment()
        return ShowEnvironmentOutput.model_validate({"environment": environment})

    async def show_hooks(self, params: ShowHooksInput) -> ShowHooksOutput:
        session_id = await self._session_id(given(params.session))
        server = self.lookups().server
        scope = server if session_id is None else server.session(session_id)
        hooks = await scope.show_hooks()
        return ShowHooksOutput.model_validate(
            {"hooks": [{"name": h.name, "index": h.index, "command": h.command} for h in hooks]}
        )

    async def show_option(self, params: ShowOptionInput) -> ShowOptionOutput:
        name = settings.check_option_name(params.name)
        flags = await self._option_flags(given(params.scope), given(params.target))
        found = await self.lookups().server.read_option(name, flags)
        options = found.options if found is not None else []
        return ShowOptionOutput.model_validate(
            {"options": [{"name": o.name, "value": o.value} for o in options]}
        )

    async def _session_id(self, session: str | None) -> str | None:
        if session is None:
            return None
        return (await self.lookups().session(session)).session_id

    async def _option_flags(self, scope: str | None, target: str | None) -> tuple[str, ...]:
        """``show-options`` flags for a scope; the target is resolved to a raw id first."""
        if scope is None:
            scope = "global_session" if target is None else scope_of(self.refs, target)
        needs_target = scope in ("session", "window", "pane")
        if needs_target and target is None:
            raise InvalidArgument(
                "target", None, f"is required with scope {scope!r}", f"Pass the {scope} to read."
            )
        if not needs_target:
            if target is not None:
                raise InvalidArgument(
                    "target",
                    target,
                    f"is not used with scope {scope!r}",
                    "Leave target out, or choose scope session, window or pane.",
                )
            return settings.SCOPE_FLAGS[scope]
        lookup = self.lookups()
        assert target is not None
        if scope == "session":
            resolved = (await lookup.session(target, "target")).session_id
        elif scope == "window":
            resolved = (await lookup.window_panes(target, "target"))[0].window_id
        else:
            resolved = (await lookup.pane(target, "target")).pane_id
        return (*settings.SCOPE_FLAGS[scope], "-t", resolved)


def scope_of(refs: Refs, target: str) -> str:
    """The scope a target implies without one being given: by its id's shape or ref's kind."""
    kind = refs.kind_of(target)
    if target.startswith("%") or kind == "pane":
        return "pane"
    if target.startswith("@") or kind in ("window", "link"):
        return "window"
    return "session"
