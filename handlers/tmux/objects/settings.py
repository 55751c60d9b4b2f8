"""Reading tmux's configuration: options, environment and hooks, values kept verbatim.

The server and its sessions read their own (``Server.show_environment``,
``Session.show_hooks``...); the rules of reading them live here.

``show-options`` without ``-v`` quotes values for tmux's own parser; rather
than undo that quoting, names are listed first and each value is read raw.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ....errors import InvalidArgument
from ..errors import CommandFailed, TmuxError

if TYPE_CHECKING:
    from .server import Server

Scope = Literal["server", "global_session", "global_window", "session", "window", "pane"]

OPTION_NAME = re.compile(r"^@?[A-Za-z0-9_-]+(\[[0-9]+\])?\Z")
HOOK_LINE = re.compile(r"^(?P<name>[A-Za-z0-9_-]+)\[(?P<index>[0-9]+)\] (?P<command>.*)$")

SCOPE_FLAGS: dict[str, tuple[str, ...]] = {
    "server": ("-s",),
    "global_session": ("-g",),
    "global_window": ("-gw",),
    "session": (),
    "window": ("-w",),
    "pane": ("-p",),
}


def scope_flags(scope: str | None) -> tuple[str, ...]:
    """The ``show-options`` / ``set-option`` / ``show-hooks`` flags naming ``scope``; none
    for None, where tmux picks the scope the option or hook belongs to."""
    return () if scope is None else SCOPE_FLAGS[scope]


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


def _is_unknown_option(exc: CommandFailed) -> bool:
    return "invalid option" in exc.stderr or "unknown option" in exc.stderr


def _no_such_option(server: Server, name: str) -> TmuxError:
    return TmuxError(
        f"tmux on {server.socket} has no option named {name!r} in that scope. "
        "Check the name (see `man tmux`, OPTIONS), or pass another scope.",
        kind="invalid_input",
    )


@dataclass(frozen=True)
class OptionValue:
    """One option as tmux holds it: each value by name (one per index of an array option)."""

    options: list[Option]
    array: bool  # an array option read whole (possibly empty), not one of its indexes


def _listed_name(line: str) -> str:
    """The name a ``show-options`` line starts with (``-A`` marks an inherited one with ``*``)."""
    return line.split(" ", 1)[0].removesuffix("*")


async def read_option(server: Server, name: str, flags: tuple[str, ...]) -> OptionValue | None:
    """Option ``name`` as ``show-options`` with ``flags`` (``-A`` included) sees it, verbatim.

    None when a user option is not set; an unknown option is an error. The
    listing (which tells a scalar from an array and names each index) and the
    raw values travel in one round trip; only an array whose values hold
    newlines is read again, one index at a time.
    """
    try:
        listed, raw = await server.run_many(
            ("show-options", *flags, name), ("show-options", "-v", *flags, name)
        )
    except CommandFailed as exc:
        if _is_unknown_option(exc):
            if name.startswith("@"):
                return None
            raise _no_such_option(server, name) from None
        raise
    base = name.split("[", 1)[0]
    names: list[str] = []
    array = False
    for line in listed:
        first = _listed_name(line)
        if first == name and " " not in line and "[" not in name:
            array = True  # an array option with no values is listed as its bare name
        elif first == name:
            names.append(first)
        elif first.startswith(base + "[") and "[" not in name:
            array = True
            if first not in names:
                names.append(first)
    if not array:
        return OptionValue([Option(name, "\n".join(raw))] if names else [], False)
    if len(raw) == len(names):
        return OptionValue([Option(n, v) for n, v in zip(names, raw, strict=True)], True)
    values = await server.run_many(*(("show-options", "-v", *flags, n) for n in names))
    return OptionValue([Option(n, "\n".join(v)) for n, v in zip(names, values, strict=True)], True)


async def set_and_show(server: Server, scope: Sequence[str], option: str, value: str) -> str:
    """Set ``option`` in ``scope`` (``-g`` or ``-t TARGET``) and read back what tmux holds,
    in one round trip."""
    _, held = await server.run_many(
        ("set-option", *scope, option, value), ("show-options", "-v", *scope, option)
    )
    return held[0] if held else value


async def read_shell_environment(server: Server, scope: Sequence[str]) -> dict[str, str | None]:
    """Variables of ``scope`` (``-g`` or ``-t SESSION``) as ``name -> value``; a variable
    marked for removal maps to None.

    Read in tmux's shell form (``-s``): a plain listing cannot tell a value's
    own newline from the start of the next variable.
    """
    lines = await server.run("show-environment", "-s", *scope)
    try:
        return parse_shell_environment("\n".join(lines))
    except ValueError as exc:
        raise TmuxError(
            f"tmux on {server.socket} answered show-environment with output this server "
            f"cannot read ({exc}). Read it with `tmux show-environment` instead."
        ) from None


def parse_shell_environment(text: str) -> dict[str, str | None]:
    """``show-environment -s`` output: ``NAME="value"; export NAME;`` or ``unset NAME;``.

    tmux escapes ``$``, backquote, ``"`` and ``\\`` in the value with a backslash and
    nothing else, so a value may span lines; the unescaped ``"`` ends it.
    """
    environment: dict[str, str | None] = {}
    at, size = 0, len(text)
    while at < size:
        if text[at] == "\n":
            at += 1
            continue
        if text.startswith("unset ", at):
            end = text.find(";", at)
            if end < 0:
                raise ValueError(f"no ';' after {text[at : at + 40]!r}")
            environment[text[at + 6 : end]] = None
            at = end + 1
            continue
        equals = text.find('="', at)
        if equals < 0:
            raise ValueError(f"no '=\"' in {text[at : at + 40]!r}")
        key = text[at:equals]
        value: list[str] = []
        at = equals + 2
        while at < size and text[at] != '"':
            if text[at] == "\\" and at + 1 < size:
                at += 1
            value.append(text[at])
            at += 1
        closing = f'"; export {key};'
        if not text.startswith(closing, at):
            raise ValueError(f"the value of {key!r} does not end as tmux ends one")
        environment[key] = "".join(value)
        at += len(closing)
    return environment


@dataclass(frozen=True)
class Hook:
    name: str
    index: int
    command: str


def parse_hooks(lines: list[str]) -> list[Hook]:
    """The set hooks of a ``show-hooks`` listing (the bare names of unset hooks are skipped)."""
    hooks = []
    for line in lines:
        match = HOOK_LINE.match(line)
        if match:
            hooks.append(Hook(match["name"], int(match["index"]), match["command"]))
    return hooks
