"""Reading tmux's configuration: options, environment and hooks, values kept verbatim.

``show-options`` without ``-v`` quotes values for tmux's own parser; rather
than undo that quoting, names are listed first and each value is read raw.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ...errors import InvalidArgument
from .core import Server
from .errors import CommandFailed, TmuxError

Scope = Literal["server", "global_session", "global_window", "session", "window", "pane"]

OPTION_NAME = re.compile(r"^@?[A-Za-z0-9_-]+(\[[0-9]+\])?$")
HOOK_LINE = re.compile(r"^(?P<name>[A-Za-z0-9_-]+)\[(?P<index>[0-9]+)\] (?P<command>.*)$")

SCOPE_FLAGS: dict[str, tuple[str, ...]] = {
    "server": ("-s",),
    "global_session": ("-g",),
    "global_window": ("-gw",),
    "session": (),
    "window": ("-w",),
    "pane": ("-p",),
}


def check_option_name(name: str, field: str = "name") -> str:
    if not OPTION_NAME.match(name):
        raise InvalidArgument(
            field,
            name,
            "is not a tmux option name (letters, digits, '-' and '_', an optional leading '@' "
            "and an optional [index])",
            "Pass an option name such as 'status', 'history-limit' or '@my-option'.",
        )
    return name


@dataclass(frozen=True)
class Option:
    name: str
    value: str


async def show_option(server: Server, name: str, flags: tuple[str, ...]) -> list[Option]:
    """Every value of option ``name`` (an array option has one per index); [] if a user option is unset."""
    try:
        listed = await server.run("show-options", *flags, name)
    except CommandFailed as exc:
        if "invalid option" in exc.stderr or "unknown option" in exc.stderr:
            if name.startswith("@"):
                return []
            raise TmuxError(
                f"tmux on {server.socket} has no option named {name!r} in that scope. "
                "Check the name (see `man tmux`, OPTIONS), or pass another scope."
            ) from None
        raise
    names: list[str] = []
    for line in listed:
        first = line.split(" ", 1)[0]
        same = first == name or first.startswith(name.split("[", 1)[0] + "[")
        if first and same and first not in names:
            names.append(first)
    options = []
    for each in names:
        value = await server.run("show-options", "-v", *flags, each)
        options.append(Option(each, "\n".join(value)))
    return options


def environment_scope(session_id: str | None) -> tuple[str, ...]:
    return ("-t", session_id) if session_id is not None else ("-g",)


async def show_environment(server: Server, session_id: str | None) -> dict[str, str | None]:
    """Variables as ``name -> value``; a variable marked for removal maps to None."""
    lines = await server.run("show-environment", *environment_scope(session_id))
    environment: dict[str, str | None] = {}
    for line in lines:
        if line.startswith("-") and "=" not in line:
            environment[line[1:]] = None
        elif "=" in line:
            key, _, value = line.partition("=")
            environment[key] = value
    return environment


@dataclass(frozen=True)
class Hook:
    name: str
    index: int
    command: str


async def show_hooks(server: Server, session_id: str | None) -> list[Hook]:
    """The hooks that are set (tmux also lists every unset hook name; those are skipped)."""
    lines = await server.run("show-hooks", *environment_scope(session_id))
    hooks = []
    for line in lines:
        match = HOOK_LINE.match(line)
        if match:
            hooks.append(Hook(match["name"], int(match["index"]), match["command"]))
    return hooks
