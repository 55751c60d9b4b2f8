"""The server's settings as a session, window or pane sees them, and setting a few:
environment, hooks, options, format variables, the history limit, the mouse and
synchronize-panes.
"""

from __future__ import annotations

from ...errors import InvalidArgument
from ...generated.swift.models.get_tmux_variables import (
    GetTmuxVariablesInput,
    GetTmuxVariablesOutput,
)
from ...generated.swift.models.set_history_limit import SetHistoryLimitInput, SetHistoryLimitOutput
from ...generated.swift.models.set_mouse_enabled import SetMouseEnabledInput, SetMouseEnabledOutput
from ...generated.swift.models.set_synchronize_panes import (
    SetSynchronizePanesInput,
    SetSynchronizePanesOutput,
)
from ...generated.swift.models.show_environment import ShowEnvironmentInput, ShowEnvironmentOutput
from ...generated.swift.models.show_hooks import ShowHooksInput, ShowHooksOutput
from ...generated.swift.models.show_option import ShowOptionInput, ShowOptionOutput
from ...seam import Call
from ..tmux.objects import settings
from ..tmux.objects.refs import Refs
from ..tmux.objects.server import Server
from ..tmux.transport.formats import SEP, counts_clients, parse_rows
from .arguments import given
from .targets import Lookups

# Format variables that count clients, recomputed without this process's own clients
# (output clients of waits in progress included).
CLIENT_COUNTS = frozenset(
    {
        "session_attached",
        "session_many_attached",
        "session_attached_list",
        "window_active_clients",
        "window_active_clients_list",
    }
)


class OptionTools:
    def __init__(self, lookups: Lookups, refs: Refs) -> None:
        self.lookups = lookups
        self.refs = refs

    async def show_environment(
        self, call: Call, params: ShowEnvironmentInput
    ) -> ShowEnvironmentOutput:
        session_id = await self._session_id(given(params.session))
        server = self.lookups.for_call().server
        scope = server if session_id is None else server.session(session_id)
        environment = await scope.show_environment()
        return ShowEnvironmentOutput.model_validate({"environment": environment})

    async def show_hooks(self, call: Call, params: ShowHooksInput) -> ShowHooksOutput:
        session_id = await self._session_id(given(params.session))
        server = self.lookups.for_call().server
        scope = server if session_id is None else server.session(session_id)
        hooks = await scope.show_hooks()
        return ShowHooksOutput.model_validate(
            {"hooks": [{"name": h.name, "index": h.index, "command": h.command} for h in hooks]}
        )

    async def show_option(self, call: Call, params: ShowOptionInput) -> ShowOptionOutput:
        name = settings.check_option_name(params.name)
        flags = await self._option_flags(given(params.scope), given(params.target))
        found = await self.lookups.for_call().server.read_option(name, flags)
        options = found.options if found is not None else []
        return ShowOptionOutput.model_validate(
            {"options": [{"name": o.name, "value": o.value} for o in options]}
        )

    async def _session_id(self, session: str | None) -> str | None:
        if session is None:
            return None
        return (await self.lookups.for_call().session(session)).session_id

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
        lookup = self.lookups.for_call()
        assert target is not None
        if scope == "session":
            resolved = (await lookup.session(target, "target")).session_id
        elif scope == "window":
            resolved = (await lookup.window_panes(target, "target"))[0].window_id
        else:
            resolved = (await lookup.pane(target, "target")).pane_id
        return (*settings.SCOPE_FLAGS[scope], "-t", resolved)

    async def get_tmux_variables(
        self, call: Call, params: GetTmuxVariablesInput
    ) -> GetTmuxVariablesOutput:
        names = [name.root for name in params.names]
        if not names:
            raise InvalidArgument("names", names, "is empty", "Pass 1 to 32 format variable names.")
        lookup = self.lookups.for_call()
        server = lookup.server
        pane = given(params.paneId)
        fields = ("pane_id", "pane_active", *names)
        fmt = SEP.join(f"#{{{name}}}" for name in fields)  # names passed the schema's pattern
        # list-panes, not display-message: the format then never sees a client, so
        # nothing depends on which transport (or whose control client) asked. A variable
        # counting clients is read with this process's clients detached.
        run = server.run_unattached if counts_clients(fmt) else server.run
        if pane is not None:
            target = (await lookup.pane(pane)).pane_id
            rows = parse_rows(await run("list-panes", "-t", target, "-F", fmt), fields)
            values = next((r for r in rows if r["pane_id"] == target), {})
        else:
            sessions = await server.list_sessions()
            if sessions:
                scope = ("-t", sessions[0].session_id)
                rows = parse_rows(await run("list-panes", *scope, "-F", fmt), fields)
                values = next((r for r in rows if r["pane_active"] == "1"), {})
            else:
                lines = await server.run("display-message", "-p", fmt)
                values = next(iter(parse_rows(lines, fields)), {})
        if CLIENT_COUNTS.intersection(names) and values.get("pane_id"):
            values.update(await client_counts(server, values["pane_id"]))
        return GetTmuxVariablesOutput.model_validate(
            {"values": {name: values.get(name) or None for name in names}}
        )

    async def set_history_limit(
        self, call: Call, params: SetHistoryLimitInput
    ) -> SetHistoryLimitOutput:
        value = await self.lookups.for_call().server.set_history_limit(params.lines)
        return SetHistoryLimitOutput(lines=int(value))

    async def set_mouse_enabled(
        self, call: Call, params: SetMouseEnabledInput
    ) -> SetMouseEnabledOutput:
        value = "on" if params.enabled else "off"
        await self.lookups.for_call().server.run("set-option", "-g", "mouse", value)
        return SetMouseEnabledOutput(enabled=params.enabled)

    async def set_synchronize_panes(
        self, call: Call, params: SetSynchronizePanesInput
    ) -> SetSynchronizePanesOutput:
        lookup = self.lookups.for_call()
        wanted = lookup.window_id(params.windowId, "windowId")
        if wanted.server_tag is not None:  # a ref: only for a window of this server run
            await lookup.window_panes(params.windowId, "windowId")
        window = lookup.server.window(wanted.object_id, "windowId")
        value = await window.set_synchronize_panes(params.enabled)
        return SetSynchronizePanesOutput(enabled=value == "on", windowId=wanted.object_id)


async def client_counts(server: Server, pane_id: str) -> dict[str, str]:
    """The client-counting variables recomputed without this process's own clients."""
    row = await server.pane(pane_id).display_message()
    if row is None:
        return {}
    clients = await server.list_clients()
    in_session = [c for c in clients if c.session_id == row.session_id]
    on_window = [c for c in clients if c.window_id == row.window_id]
    return {
        "session_attached": str(len(in_session)),
        "session_many_attached": "1" if len(in_session) > 1 else "0",
        "session_attached_list": ",".join(c.name for c in in_session),
        "window_active_clients": str(len(on_window)),
        "window_active_clients_list": ",".join(c.name for c in on_window),
    }


def scope_of(refs: Refs, target: str) -> str:
    """The scope a target implies without one being given: by its id's shape or ref's kind."""
    kind = refs.kind_of(target)
    if target.startswith("%") or kind == "pane":
        return "pane"
    if target.startswith("@") or kind in ("window", "link"):
        return "window"
    return "session"
