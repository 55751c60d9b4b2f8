"""What tmux is configured with, as the rust family reads and sets it: format
variables, options, the environment and hooks, and the mouse, history-limit and
synchronize-panes settings; environment values given out only when the user
allows them.

tmux answers a format name it does not know from the environment, so reading
variables and reading the environment share one policy: ``LIBTMUX_ENVIRONMENT_VALUES``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from ...errors import InvalidArgument
from ...generated.rust.models.get_tmux_variables import (
    GetTmuxVariablesInput,
    GetTmuxVariablesOutput,
)
from ...generated.rust.models.set_history_limit import SetHistoryLimitInput, SetHistoryLimitOutput
from ...generated.rust.models.set_mouse_enabled import SetMouseEnabledInput, SetMouseEnabledOutput
from ...generated.rust.models.set_synchronize_panes import (
    SetSynchronizePanesInput,
    SetSynchronizePanesOutput,
)
from ...generated.rust.models.show_environment import ShowEnvironmentInput, ShowEnvironmentOutput
from ...generated.rust.models.show_hooks import ShowHooksInput, ShowHooksOutput
from ...generated.rust.models.show_option import ShowOptionInput, ShowOptionOutput
from ...reply import Reply
from ...seam import Call
from ..services import StartupRefused
from ..tmux.errors import NotFound
from ..tmux.objects import HISTORY_LIMIT_MAXIMUM, Session, settings
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.targets import check_pane_id, check_window_id
from ..tmux.objects.window import SYNCHRONIZE
from .arguments import given
from .targets import session_id_of, session_of

ALLOW_ENV = "LIBTMUX_ENVIRONMENT_VALUES"

ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

VARIABLE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")

# The rust family's scope words, as the shared core names them.
SCOPES = {
    "server": "server",
    "global-session": "global_session",
    "global-window": "global_window",
    "session": "session",
    "window": "window",
    "pane": "pane",
}

LOCAL_SCOPES = ("session", "window", "pane")


def allowed_names(environ: Mapping[str, str]) -> frozenset[str]:
    """The environment names whose values may be given out; a malformed list stops startup."""
    raw = environ.get(ALLOW_ENV, "")
    names = [item.strip() for item in raw.split(",") if item.strip()]
    bad = [name for name in names if not ENV_NAME.fullmatch(name)]
    if bad:
        raise StartupRefused(
            f"{ALLOW_ENV}={raw!r}: {', '.join(repr(b) for b in bad)} "
            f"{'is not an environment variable name' if len(bad) == 1 else 'are not environment variable names'}; "
            f"list names only, separated by commas (e.g. {ALLOW_ENV}=TERM,LANG)"
        )
    return frozenset(names)


class OptionTools:
    def __init__(self, tmux: Tmux, environ: Mapping[str, str]) -> None:
        self.tmux = tmux
        self.allowed = allowed_names(environ)

    async def get_tmux_variables(
        self, call: Call, params: GetTmuxVariablesInput
    ) -> GetTmuxVariablesOutput:
        server = self.tmux.server()
        names = [item.root for item in params.names]
        for at, name in enumerate(names):
            if not VARIABLE_NAME.fullmatch(name):  # the format below is built from it
                raise InvalidArgument(
                    f"names[{at}]",
                    name,
                    "is not a variable name (a letter, then letters, digits or '_')",
                    "Pass names such as pane_current_command or session_name, without #{ }.",
                )
        pane = given(params.pane)
        target: tuple[str, ...] = ()
        if pane is not None:
            target = ("-t", check_pane_id(pane, field="pane"))
        # One display-message per name, in one round trip: a value may hold any text.
        replies = await server.run_many(
            ("display-message", "-p", *target, "#{pane_id} #{session_id}"),
            *(("display-message", "-p", *target, f"#{{{name}}}") for name in names),
        )
        where = (replies[0] or [""])[0].split(" ")
        if pane is not None and where[0] != pane:
            raise NotFound("pane", pane, socket=server.socket, field="pane")
        values = {name: "\n".join(reply) for name, reply in zip(names, replies[1:], strict=True)}
        await self._withhold_environment(server, values, where[1] if len(where) > 1 else "")
        return GetTmuxVariablesOutput.model_validate({"values": values})

    async def _withhold_environment(
        self, server: Server, values: dict[str, str], session_id: str
    ) -> None:
        """Refuse a name whose answer is the environment's value for it, unless allowed."""
        asked = [name for name, value in values.items() if value and name not in self.allowed]
        if not asked:
            return
        held: dict[str, str | None] = dict(await server.show_environment())
        if session_id:
            held.update(await server.session(session_id).show_environment())
        for name in asked:
            if held.get(name) == values[name]:
                raise InvalidArgument(
                    f"names[{list(values).index(name)}]",
                    name,
                    "is answered by tmux from the environment, whose values this server "
                    f"gives out only for the names {ALLOW_ENV} lists",
                    f"Leave it out, or have the user add it to {ALLOW_ENV}.",
                )

    async def show_option(self, call: Call, params: ShowOptionInput) -> ShowOptionOutput:
        name = settings.check_option_name(params.name)
        target = given(params.target)
        chosen = given(params.scope)
        scope = chosen.root if chosen is not None else None
        if scope is None:
            scope = "global-session" if target is None else _scope_of(target)
        flags = settings.SCOPE_FLAGS[SCOPES[scope]]
        if scope in LOCAL_SCOPES:
            if target is None:
                raise InvalidArgument(
                    "target",
                    None,
                    f"is required with scope {scope!r}",
                    f"Pass the {scope} to read the option of.",
                )
            flags = (*flags, "-t", await self._target(scope, target))
        elif target is not None:
            raise InvalidArgument(
                "target",
                target,
                f"is not used with scope {scope!r}",
                "Leave target out, or pass scope session, window or pane.",
            )
        found = await settings.read_option(self.tmux.server(), name, flags)
        value = None
        if found is not None and found.options:
            value = "\n".join(option.value for option in found.options)
        return ShowOptionOutput.model_validate({"name": name, "value": value})

    async def _target(self, scope: str, target: str) -> str:
        server = self.tmux.server()
        if scope == "session":
            return await session_id_of(server, target, "target")
        if scope == "window":
            window = server.window(check_window_id(target, field="target"), "target")
            await window.links()
            return window.window_id
        pane = server.pane(check_pane_id(target, field="target"), "target")
        await pane.row(("pane_id",))
        return pane.pane_id

    async def show_environment(
        self, call: Call, params: ShowEnvironmentInput
    ) -> ShowEnvironmentOutput:
        server = self.tmux.server()
        session = given(params.session)
        session_id = None if session is None else await session_id_of(server, session, "session")
        environment = await (
            server if session_id is None else server.session(session_id)
        ).show_environment()
        entries = []
        for name, value in environment.items():
            shown = value is not None and name in self.allowed
            entries.append(
                {
                    "name": name,
                    "state": "set" if value is not None else "removed",
                    "withheld": value is not None and not shown,
                    "value": value if shown else None,
                }
            )
        return ShowEnvironmentOutput.model_validate({"session": session_id, "entries": entries})

    async def show_hooks(self, call: Call, params: ShowHooksInput) -> ShowHooksOutput:
        server = self.tmux.server()
        session = given(params.session)
        session_id = None if session is None else await session_id_of(server, session, "session")
        hooks = await (server if session_id is None else server.session(session_id)).show_hooks()
        return ShowHooksOutput.model_validate(
            {"hooks": [{"name": h.name, "command": h.command, "index": h.index} for h in hooks]}
        )

    async def set_mouse_enabled(
        self, call: Call, params: SetMouseEnabledInput
    ) -> SetMouseEnabledOutput:
        value = "on" if params.enabled else "off"
        server = self.tmux.server()
        scope: tuple[str, ...] = ("-g",)
        target: str | None = None
        if isinstance(params.session, str):  # else null or not sent: the global value
            target = (await session_of(server, params.session, "session"))[0].session_id
            scope = ("-t", target)
        _, held = await server.run_many(
            ("set-option", *scope, "mouse", value), ("show-options", "-v", *scope, "mouse")
        )
        return SetMouseEnabledOutput(name="mouse", target=target, value=held[0] if held else "")

    async def set_history_limit(
        self, call: Call, params: SetHistoryLimitInput
    ) -> SetHistoryLimitOutput:
        if params.limit > HISTORY_LIMIT_MAXIMUM:
            raise InvalidArgument(
                "limit",
                params.limit,
                f"is more than tmux takes for history-limit ({HISTORY_LIMIT_MAXIMUM})",
                f"Pass a number of lines from 0 to {HISTORY_LIMIT_MAXIMUM}.",
            )
        server = self.tmux.server()
        session_id = None
        scope: Server | Session = server
        if isinstance(params.session, str):
            session_id = (await server.find_session(params.session, "session")).session_id
            scope = server.session(session_id, "session")
        value = await scope.set_history_limit(params.limit)
        return SetHistoryLimitOutput(name="history-limit", target=session_id, value=value)

    async def set_synchronize_panes(
        self, call: Call, params: SetSynchronizePanesInput
    ) -> Reply[SetSynchronizePanesOutput]:
        window_id = check_window_id(params.window, "window")
        server = self.tmux.server()
        window = server.window(window_id, "window")
        value = await window.set_synchronize_panes(params.enabled)
        result = SetSynchronizePanesOutput(name=SYNCHRONIZE, target=window_id, value=value)
        # The family's shape has no field to say it: the text the agent reads does.
        synchronized = await window.synchronized_panes()
        shown = result.model_dump(mode="json") | {
            "amplifies": synchronized if len(synchronized) > 1 else []
        }
        return Reply(result, json.dumps(shown, ensure_ascii=False, separators=(",", ":")))


def _scope_of(target: str) -> str:
    """The scope a target's shape implies when no scope is given."""
    if target.startswith("%"):
        return "pane"
    if target.startswith("@"):
        return "window"
    return "session"
