"""The scope a configuration file sets: which tools are served, and which sockets and
sessions a call may reach, decided before its handler runs.

Nothing here names a tool. What a tool does is data: the profile description's
``effects`` (generated into the registry's ``EFFECTS``): which tools only read, which
kill, respawn, type into, resize or rename (``forceful``), which act where no scope reaches
(``unscopable``, maybe only for some argument values), which argument names a socket,
which arguments name a target (at any depth, so a batch's operations count too: a value
that is not a tmux id is taken as a session's name), and which tools take the whole server when given no target.

A target given by id (``%3``, ``@2``, ``$1``) is resolved to its sessions with one
read-only listing of the server (the handlers' ``scope_rows``) before anything else runs.
Rows of a listing that belong to sessions outside ``allow`` are left out of its result.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Any

from .config import DEFAULT_SOCKET, ConfigRefused, ScopeSettings

ScopeRow = tuple[str, str, str, str]
"""One pane of a server as the scope sees it: session id, session name, window id, pane id."""
Lookup = Callable[["str | None"], Awaitable[Sequence[ScopeRow]]]
"""The panes of the server a socket argument names (None: the default one)."""

TMUX_ID = re.compile(r"[$@%][0-9]+\Z")
FORCEFUL = "kill, respawn, type into, resize or rename"


class ScopeRefused(Exception):
    """A call outside the scope; the message names the rule and what to do."""


def matches(name: str, patterns: Sequence[str]) -> str | None:
    """The first pattern (shell-style, case-sensitive) ``name`` matches, else None."""
    return next((p for p in patterns if fnmatch.fnmatchcase(name, p)), None)


@dataclass(frozen=True)
class Effects:
    """A profile's ``EFFECTS``, read once."""

    read_only: frozenset[str]
    forceful: frozenset[str]
    unscopable: tuple[tuple[str, Mapping[str, Any]], ...]
    socket_argument: str | None
    targets: frozenset[str]
    whole_server: frozenset[str]

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Effects:
        return cls(
            frozenset(data["read_only"]),
            frozenset(data["forceful"]),
            tuple((rule["tool"], dict(rule.get("when", {}))) for rule in data["unscopable"]),
            data.get("socket_argument"),
            frozenset(data["targets"]),
            frozenset(data["whole_server"]),
        )

    @property
    def unscopable_tools(self) -> frozenset[str]:
        return frozenset(tool for tool, _ in self.unscopable)

    def always_unscopable(self, tool: str) -> bool:
        return any(name == tool and not when for name, when in self.unscopable)


class Scope:
    """The ``[scope]`` of a configuration file over one profile's effects."""

    def __init__(self, settings: ScopeSettings, effects: Effects, where: str) -> None:
        unknown = sorted(set(settings.unscopable) - effects.unscopable_tools)
        if unknown:
            raise ConfigRefused(
                f"{where}: [scope] unscopable: {unknown[0]} is not a tool this profile turns "
                f"off under a scope; use {', '.join(sorted(effects.unscopable_tools)) or 'none'}"
            )
        self.settings = settings
        self.effects = effects

    def serves(self, tool: str) -> bool:
        """Whether ``tool`` is listed and served under this scope."""
        if self.settings.read_only and tool not in self.effects.read_only:
            return False
        return not (self.effects.always_unscopable(tool) and tool not in self.settings.unscopable)

    def socket_of(self, arguments: Mapping[str, Any]) -> str | None:
        name = self.effects.socket_argument
        value = arguments.get(name) if name is not None else None
        return value if isinstance(value, str) else None

    async def admit(
        self, tool: str, schema: Mapping[str, Any], arguments: Mapping[str, Any], lookup: Lookup
    ) -> None:
        """Refuse (``ScopeRefused``) a call outside the scope; return when it may run."""
        settings, effects = self.settings, self.effects
        if not self.serves(tool):
            why = "only tools that read are served (read_only)" if settings.read_only else ""
            raise ScopeRefused(
                f"{tool} is off under this server's scope{': ' + why if why else ''}; "
                "the user's configuration file decides that, not the call."
            )
        for name, when in effects.unscopable:
            held = name == tool and when and _holds(arguments, when)
            if held and tool not in settings.unscopable:
                given = ", ".join(f"{k}={v!r}" for k, v in when.items())
                raise ScopeRefused(
                    f"{tool} with {given} acts beyond any session, so it is off under this "
                    "server's scope (unscopable); target a session instead, or ask the "
                    "user to list the tool under [scope] unscopable."
                )
        takes_target = effects.targets & set(schema.get("properties", {}))
        await self.reach(
            tool,
            arguments,
            lookup,
            tool in effects.forceful,
            takes_target,
            tool in effects.whole_server,
        )

    async def admit_read(self, uri: str, variables: Mapping[str, Any], lookup: Lookup) -> None:
        """Refuse (``ScopeRefused``) a resource read or subscription outside the scope: its
        URI's variables are taken as a read-only tool's arguments; a resource that names no
        target lists the whole server, which only the list tools can cut to the scope."""
        await self.reach(uri, variables, lookup, False, self.effects.targets, False)

    async def reach(
        self,
        what: str,
        arguments: Mapping[str, Any],
        lookup: Lookup,
        forceful: bool,
        takes_target: Set[str],
        whole_server: bool,
    ) -> None:
        """The sockets rule, then the sessions the call's targets reach (``allow``, and
        ``protect`` for a forceful call); ``takes_target``: the target arguments it has."""
        settings = self.settings
        socket = self.socket_of(arguments)
        if settings.sockets is not None:
            shown = socket if socket is not None else DEFAULT_SOCKET
            if matches(shown, settings.sockets) is None:
                raise ScopeRefused(
                    f"socket_name {shown!r} is outside this server's scope (sockets: "
                    f"{', '.join(settings.sockets)}); use a socket the scope allows."
                )
        if settings.allow is None and not (settings.protect and forceful):
            return
        named = list(targets_of(arguments, self.effects))
        if not named:
            if takes_target and not whole_server:
                rule = "allow" if settings.allow is not None else "protect"
                raise ScopeRefused(
                    f"{what} names no target, and under this server's scope ({rule}) no "
                    f"default session is assumed; give one of {', '.join(sorted(takes_target))}."
                )
            return
        sessions = await self._sessions(named, socket, lookup)
        for key, session in sessions:
            if settings.allow is not None and matches(session, settings.allow) is None:
                raise ScopeRefused(
                    f"{key} reaches session {session!r}, outside this server's scope (allow: "
                    f"{', '.join(settings.allow)}); use a session the scope allows."
                )
            pattern = matches(session, settings.protect) if forceful else None
            if pattern is not None:
                raise ScopeRefused(
                    f"{key} reaches session {session!r}, which is protected (protect: "
                    f"{pattern!r}): no tool may {FORCEFUL} it under this server's scope."
                )

    async def _sessions(
        self, named: list[tuple[str, str]], socket: str | None, lookup: Lookup
    ) -> list[tuple[str, str]]:
        """The session names each target reaches, as (argument, session) pairs."""
        rows: Sequence[ScopeRow] | None = None
        found: list[tuple[str, str]] = []
        for key, value in named:
            if not TMUX_ID.match(value):  # a session's name (anything else fails closed:
                found.append((key, value))  # it must match the patterns as a name would)
                continue
            if rows is None:
                rows = await lookup(socket)
            found.extend((key, name) for name in _sessions_of(value, rows))
        return found

    async def filtered(
        self, tool: str, structured: dict[str, Any], socket: str | None, lookup: Lookup
    ) -> dict[str, Any]:
        """A whole-server listing's result without rows of sessions outside ``allow``."""
        allow = self.settings.allow
        if allow is None or tool not in self.effects.whole_server:
            return structured
        rows = await lookup(socket)
        inside = {
            part
            for session_id, name, window_id, pane_id in rows
            if matches(name, allow) is not None
            for part in (session_id, window_id, pane_id)
        }
        ids = {part for row in rows for part in (row[0], row[2], row[3])}
        kept = _without_rows(structured, ids - inside)
        assert isinstance(kept, dict)
        return kept


def _holds(arguments: Mapping[str, Any], when: Mapping[str, Any]) -> bool:
    return all(arguments.get(key) == value for key, value in when.items())


def targets_of(value: Any, effects: Effects) -> Iterator[tuple[str, str]]:
    """Every (argument, value) of a target argument, at any depth; an argument that names
    several targets (a list of them) gives each."""
    if isinstance(value, Mapping):
        for name, item in value.items():
            if name in effects.targets and isinstance(item, str) and item:
                yield name, item
            elif name in effects.targets and isinstance(item, list):
                yield from ((name, each) for each in item if isinstance(each, str) and each)
            else:
                yield from targets_of(item, effects)
    elif isinstance(value, list):
        for item in value:
            yield from targets_of(item, effects)


def _sessions_of(target: str, rows: Sequence[ScopeRow]) -> list[str]:
    """The names of the sessions a tmux id belongs to (a window may be linked to several)."""
    column = {"$": 0, "@": 2, "%": 3}[target[0]]
    return sorted({row[1] for row in rows if row[column] == target})


def _without_rows(value: Any, outside: set[str]) -> Any:
    if isinstance(value, dict):
        return {key: _without_rows(item, outside) for key, item in value.items()}
    if isinstance(value, list):
        return [
            _without_rows(item, outside)
            for item in value
            if not (
                isinstance(item, dict)
                and any(isinstance(v, str) and v in outside for v in item.values())
            )
        ]
    return value
