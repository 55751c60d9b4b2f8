"""tmux's configuration as it stands: options, environment, hooks.

Targets are resolved before tmux sees them: a pane or window id goes as it
is, anything else must name a session exactly (by id or by name, matched
here, never by tmux's target parser, which matches prefixes and patterns).
With no target, a scoped read uses the first session's active pane, as tmux
would pick, whichever client this server happens to reach tmux through.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable
from typing import Any, TypeVar

from ...errors import InvalidArgument
from ...generated.python.models.show_environment import (
    ShowEnvironmentInput,
    ShowEnvironmentOutput,
)
from ...generated.python.models.show_hook import (
    ShowHookInput,
    ShowHookOutput,
    ShowHookOutputEntry,
)
from ...generated.python.models.show_hooks import (
    ShowHooksInput,
    ShowHooksOutput,
    ShowHooksOutputEntry,
)
from ...generated.python.models.show_option import ShowOptionInput, ShowOptionOutput
from ..tmux.errors import CommandFailed, NotFound
from ..tmux.objects import settings
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.targets import (
    PANE_ID,
    WINDOW_ID,
    WindowSelector,
    session_named,
)

T = TypeVar("T")

INTEGER = re.compile(r"^-?[0-9]+\Z")


class ConfigTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def show_option(self, params: ShowOptionInput) -> ShowOptionOutput:
        """The value in effect: with global_ the global one (``-g``); otherwise the target's
        own value, else the one it inherits (``-A``), so a session reads ``history-limit``
        even when only ``set -g`` set it.

        The value's JSON type follows the option: an array option is the list of its
        values (in index order), a number option an integer, an on/off flag a boolean,
        anything else the string tmux holds, verbatim. A user option (``@name``) is
        always its string, and null when it is not set.
        """
        name = settings.check_option_name(params.option, "option")
        server = self.tmux.server(params.socket_name)
        flags = list(settings.scope_flags(params.scope))
        if params.global_:
            flags.append("-g")
        elif params.scope != "server":
            flags.append("-A")
        scoped = not params.global_ and params.scope != "server"
        flags += await target_flags(server, params.target, default=scoped)
        read = await on_target(
            server, params.target, settings.read_option(server, name, tuple(flags))
        )
        return ShowOptionOutput(option=params.option, value=option_value(name, read))

    async def show_environment(self, params: ShowEnvironmentInput) -> ShowEnvironmentOutput:
        server = self.tmux.server(params.socket_name)
        session_id = None
        if params.session_id is not None or params.session_name is not None:
            # A session_name beside a session_id names the same session (check_session_pair).
            name = params.session_name if params.session_id is None else None
            selector = WindowSelector(session_name=name, session_id=params.session_id)
            session_id = (await selector.resolve_window(server)).panes[0].session_id
        scope = server if session_id is None else server.session(session_id)
        environment = await scope.show_environment()
        return ShowEnvironmentOutput(
            variables={key: True if value is None else value for key, value in environment.items()}
        )

    async def show_hooks(self, params: ShowHooksInput) -> ShowHooksOutput:
        """The hooks set in a scope. With no scope, both tables ``set-hook`` writes to
        without ``-w``/``-p``: the session's hooks and its window's (globally, ``-g``
        and ``-gw``), since tmux files each hook under the scope it belongs to."""
        server = self.tmux.server(params.socket_name)
        scopes = hook_scopes(params.scope, bool(params.global_))
        target = await target_flags(server, params.target, default=not params.global_)
        replies = await on_target(
            server,
            params.target,
            server.run_many(*(("show-hooks", *scope, *target) for scope in scopes)),
        )
        return ShowHooksOutput(
            entries=[
                ShowHooksOutputEntry(hook_name=hook.name, index=hook.index, command=hook.command)
                for reply in replies
                for hook in settings.parse_hooks(reply)
            ]
        )

    async def show_hook(self, params: ShowHookInput) -> ShowHookOutput:
        """One hook; with no scope tmux reads it where it belongs (session or window).
        A hook with nothing set has no entries; a name that is no hook is an error."""
        name = settings.check_option_name(params.hook_name, "hook_name")
        base, _, index = name.partition("[")
        server = self.tmux.server(params.socket_name)
        (scope,) = hook_scopes(params.scope, bool(params.global_), one=True)
        target = await target_flags(server, params.target, default=not params.global_)
        try:
            # tmux lists every hook name (set or not) in its two global tables; show-hooks
            # itself also answers for options that are not hooks.
            session_hooks, window_hooks, lines = await on_target(
                server,
                params.target,
                server.run_many(
                    ("show-hooks", "-g"),
                    ("show-hooks", "-gw"),
                    ("show-hooks", *scope, *target, name),
                ),
            )
        except CommandFailed as exc:
            if "invalid option" not in exc.stderr and "unknown option" not in exc.stderr:
                raise
            lines, session_hooks, window_hooks = [], [], []
        known = {line.split(" ", 1)[0].split("[", 1)[0] for line in session_hooks + window_hooks}
        if base not in known:
            raise InvalidArgument(
                "hook_name",
                params.hook_name,
                f"is not a hook of tmux on {server.socket}",
                "Pass a hook name such as 'after-new-window' or 'pane-exited' (see `man tmux`, "
                "HOOKS); show_hooks with global_: true lists the hooks that are set.",
            )
        wanted = int(index.rstrip("]")) if index else None
        return ShowHookOutput(
            entries=[
                ShowHookOutputEntry(hook_name=hook.name, index=hook.index, command=hook.command)
                for hook in settings.parse_hooks(lines)
                if hook.name == base and wanted in (None, hook.index)
            ]
        )


def option_value(name: str, read: settings.OptionValue | None) -> Any:
    """The option's value as JSON (see ``ConfigTools.show_option``)."""
    if read is None:
        return None
    if read.array:
        return [option.value for option in read.options]
    if not read.options:
        return None
    value = read.options[0].value
    if name.startswith("@") or "[" in name:
        return value
    if INTEGER.match(value):
        return int(value)
    if value in ("on", "off"):
        return value == "on"
    return value


def hook_scopes(scope: str | None, global_: bool, one: bool = False) -> list[tuple[str, ...]]:
    """``show-hooks`` flags for each table to read (``one``: a single read by name)."""
    if scope == "server":
        raise InvalidArgument(
            "scope",
            scope,
            "has no hooks in tmux (hooks belong to sessions, windows and panes)",
            "Pass scope session, window or pane, or global_: true for the global hooks.",
        )
    prefix = ("-g",) if global_ else ()
    if scope is None and not one:
        return [prefix, (*prefix, "-w")]
    return [(*prefix, *settings.scope_flags(scope))]


async def target_flags(server: Server, target: str | None, default: bool) -> list[str]:
    """``-t`` and the id ``target`` names; with no target, the first session's active
    pane when ``default`` (a scoped read), else nothing (a global or server read)."""
    if target is None:
        if not default:
            return []
        return ["-t", (await WindowSelector().resolve_pane(server, None)).pane_id]
    if PANE_ID.match(target) or WINDOW_ID.match(target):
        return ["-t", target]  # tmux reports a missing one; on_target words it
    row = session_named(await server.list_sessions(), target)
    if row is None:
        raise NotFound(
            "session",
            target,
            socket=server.socket,
            field="target",
            by="id or name",
            next_step="Pass a session name or id ($1), a window id (@1) or a pane id (%1); "
            "call list_sessions, list_windows or list_panes to see them.",
        )
    return ["-t", row.session_id]


async def on_target(server: Server, target: str | None, work: Awaitable[T]) -> T:
    """``work`` with tmux's "can't find" for the target worded for the agent."""
    try:
        return await work
    except CommandFailed as exc:
        # tmux 3.3a says "can't find pane: %9" or "no such session: @9", by command.
        if target is None or not exc.not_found:
            raise
        kind = "pane" if target.startswith("%") else "window"
        raise NotFound(kind, target, socket=server.socket, field="target") from None
