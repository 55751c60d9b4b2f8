"""tmux's configuration as it stands, and setting it: options, environment, hooks,
and format strings expanded against a pane.

Targets are resolved before tmux sees them: a pane or window id goes as it
is, anything else must name a session exactly (by id or by name, matched
here, never by tmux's target parser, which matches prefixes and patterns).
With no target, a scoped read uses the first session's active pane, as tmux
would pick, whichever client this server happens to reach tmux through.
Option and variable names and values follow ``--``, so one starting with ``-`` is
not read as a flag.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable
from typing import Any, TypeVar

from ...errors import InvalidArgument
from ...generated.python.models.display_message import DisplayMessageInput, DisplayMessageOutput
from ...generated.python.models.set_environment import SetEnvironmentInput, SetEnvironmentOutput
from ...generated.python.models.set_option import SetOptionInput, SetOptionOutput
from ...generated.python.models.show_environment import ShowEnvironmentInput, ShowEnvironmentOutput
from ...generated.python.models.show_hook import ShowHookInput, ShowHookOutput, ShowHookOutputEntry
from ...generated.python.models.show_hooks import (
    ShowHooksInput,
    ShowHooksOutput,
    ShowHooksOutputEntry,
)
from ...generated.python.models.show_option import ShowOptionInput, ShowOptionOutput
from ...seam import Call
from ..tmux.errors import CommandFailed, NotFound, TmuxError
from ..tmux.objects import settings
from ..tmux.objects.pane import ACTIVE_ONLY
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.spawn import check_variable_name, no_nul
from ..tmux.objects.targets import PANE_ID, WINDOW_ID, WindowSelector, check_pane_id, session_named
from ..tmux.transport.formats import counts_clients
from .targets import selector_of

T = TypeVar("T")

INTEGER = re.compile(r"^-?[0-9]+\Z")


class OptionTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def show_option(self, call: Call, params: ShowOptionInput) -> ShowOptionOutput:
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

    async def set_option(self, call: Call, params: SetOptionInput) -> SetOptionOutput:
        name = settings.check_option_name(params.option, "option")
        value = no_nul("value", params.value)
        server = self.tmux.server(params.socket_name)
        flags = list(settings.scope_flags(params.scope))
        if params.global_:
            flags.append("-g")
        scoped = not params.global_ and params.scope != "server"
        flags += await target_flags(server, params.target, default=scoped)
        try:
            await on_target(
                server, params.target, server.run("set-option", *flags, "--", name, value)
            )
        except CommandFailed as exc:
            raise option_error(server, params, exc) from None
        return SetOptionOutput(option=params.option, value=params.value, status="set")

    async def show_environment(
        self, call: Call, params: ShowEnvironmentInput
    ) -> ShowEnvironmentOutput:
        server = self.tmux.server(params.socket_name)
        session_id = None
        if params.session_id is not None or params.session_name is not None:
            selector = selector_of(None, params.session_name, params.session_id)
            session_id = (await selector.resolve_window(server)).panes[0].session_id
        scope = server if session_id is None else server.session(session_id)
        environment = await scope.show_environment()
        return ShowEnvironmentOutput(
            variables={key: True if value is None else value for key, value in environment.items()}
        )

    async def set_environment(
        self, call: Call, params: SetEnvironmentInput
    ) -> SetEnvironmentOutput:
        name = check_variable_name("name", no_nul("name", params.name))
        value = no_nul("value", params.value)
        server = self.tmux.server(params.socket_name)
        session_id = None  # the global environment
        if params.session_id is not None or params.session_name is not None:
            selector = selector_of(None, params.session_name, params.session_id)
            session_id = (await selector.resolve_window(server, ACTIVE_ONLY)).active_pane.session_id
        scope = ("-g",) if session_id is None else ("-t", session_id)
        await server.run("set-environment", *scope, "--", name, value)
        return SetEnvironmentOutput(name=params.name, value=params.value, status="set")

    async def show_hooks(self, call: Call, params: ShowHooksInput) -> ShowHooksOutput:
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

    async def show_hook(self, call: Call, params: ShowHookInput) -> ShowHookOutput:
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

    async def display_message(
        self, call: Call, params: DisplayMessageInput
    ) -> DisplayMessageOutput:
        """The format is expanded by ``list-panes -t <pane> -f <that pane only> -F <format>``
        rather than ``display-message -p``: list-panes expands formats without a client, so
        ``#{client_*}`` are empty whichever transport asked (display-message would describe
        this server's own control client over one transport and tmux's "best" client over
        the other), and a format expanding to several lines comes back whole. A format
        naming a variable that counts attached clients runs with this process's clients
        detached (``Server.run_unattached``), so that it counts only other clients."""
        check_format(params.format_string)
        selector = selector_of(params.window_id, params.session_name, params.session_id)
        server = self.tmux.server(params.socket_name)
        if params.pane_id is not None:
            pane_id = check_pane_id(params.pane_id)
        else:
            pane_id = (await selector.resolve_pane(server, None)).pane_id
        only = f"#{{==:#{{pane_id}},{pane_id}}}"  # pane_id is '%' and digits: checked above
        run = server.run_unattached if counts_clients(params.format_string) else server.run
        try:
            lines = await run("list-panes", "-t", pane_id, "-f", only, "-F", params.format_string)
        except CommandFailed as exc:
            if exc.not_found:
                raise NotFound("pane", pane_id, socket=server.socket, field="pane_id") from None
            raise
        return DisplayMessageOutput(result="\n".join(lines))


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


def option_error(server: Server, params: SetOptionInput, exc: CommandFailed) -> TmuxError:
    """tmux's refusal of a set-option, worded for the agent."""
    if "invalid option" in exc.stderr or "unknown option" in exc.stderr:
        return TmuxError(
            f"tmux on {server.socket} has no option named {params.option!r} (from `option`): "
            f"{exc.stderr}. Check the name (see `man tmux`, OPTIONS), or prefix a user "
            "option with '@'."
        )
    if "ambiguous option" in exc.stderr:
        return TmuxError(
            f"{params.option!r} (from `option`) matches several tmux options on "
            f"{server.socket} ({exc.stderr}). Pass the option's full name."
        )
    return TmuxError(
        f"tmux on {server.socket} refused {params.option}={params.value!r}: {exc.stderr}. "
        "Check the value against the option's type (see `man tmux`, OPTIONS), the scope "
        "and the target."
    )


# `#{E:option}` and `#{T:option}` expand an option's value as a format, and a value may
# hold `#(...)`: a shell command the caller never wrote. Modifiers follow `#{` or a `;`.
_EXPANDS_OPTION = re.compile(r"(?:#\{|;)[ET][:;]")


def check_format(format_string: str) -> str:
    """Refuse a format that would make tmux run a shell command (nothing is run)."""
    if "#(" in format_string:
        raise InvalidArgument(
            "format_string",
            format_string,
            "contains '#(', which makes tmux run a shell command; shell commands are refused",
            "Remove the #(...) part; to run a command in a pane use the tools that send keys.",
        )
    if _EXPANDS_OPTION.search(format_string):
        raise InvalidArgument(
            "format_string",
            format_string,
            "uses the E: or T: modifier, which expands an option's value as a format and may "
            "run the shell commands (#(...)) it holds; those modifiers are refused",
            "Read the option with show_option instead, or ask for the variables directly.",
        )
    return format_string
