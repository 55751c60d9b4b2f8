"""The configuration file: the hosts the user names, the scope, the audit log.

``--config FILE`` or ``TMUX_CONTRACT_MCP_CONFIG`` names a TOML file (read with the
standard library's ``tomllib``). Every key is checked when the server starts; a file that
breaks a rule stops startup with one line naming the key, the rule and what to write
instead (``ConfigRefused``). ``check_config(path)`` gives the same verdict as a list of
problems, for ``doctor``. Without a file the server behaves exactly as without this module.

```toml
[hosts.build]                 # reached as "build/<socket>" in the python profile
ssh = "deploy@build-1:2222"   # [USER@]HOST[:PORT], checked as --ssh is

[connections]
idle_seconds = 300            # a host's connection closes after this long unused
list_seconds = 5              # list_servers waits this long for each host

[scope]                       # any key here sets a scope
sockets = ["default", "build/*"]   # socket_name patterns; "default": no socket_name
allow = ["agent-*"]           # session name patterns; panes and windows follow
protect = ["prod*"]           # sessions no tool may kill, respawn, type into, resize, rename
read_only = false             # true: only the tools that only read
unscopable = ["kill_server"]  # tools a scope turns off, turned back on

[audit]
path = "~/.local/state/tmux-contract-mcp/audit.jsonl"
max_bytes = 1048576           # rotated past this size
keep = 3                      # rotated files kept
text_bytes = 200              # typed text longer than this is cut
```
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .handlers.tmux.transport.hosts import (
    DEFAULT_IDLE_SECONDS,
    DEFAULT_LIST_SECONDS,
    Hosts,
)
from .handlers.tmux.transport.ssh import BadSshTarget, SshTarget, parse_target

CONFIG_ENV = "TMUX_CONTRACT_MCP_CONFIG"
DEFAULT_SOCKET = "default"
"""What the scope's ``sockets`` patterns match for a call that names no socket."""
DEFAULT_MAX_BYTES = 1_048_576
DEFAULT_KEEP = 3
DEFAULT_TEXT_BYTES = 200
HOST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}\Z")

SECTIONS: dict[str, frozenset[str]] = {
    "connections": frozenset({"idle_seconds", "list_seconds"}),
    "scope": frozenset({"sockets", "allow", "protect", "read_only", "unscopable"}),
    "audit": frozenset({"path", "max_bytes", "keep", "text_bytes"}),
}


class ConfigRefused(ValueError):
    """The configuration file breaks a rule: one line naming the file, the key and the fix."""


@dataclass(frozen=True)
class Host:
    """A host the user named: ``name`` (before the ``/`` of a socket_name) and how ssh
    reaches it (``ssh``, as ``--ssh`` takes it)."""

    name: str
    ssh: str
    target: SshTarget


@dataclass(frozen=True)
class ScopeSettings:
    """``[scope]``: ``None`` for a list that is not set (no rule), as against an empty one."""

    sockets: tuple[str, ...] | None = None
    allow: tuple[str, ...] | None = None
    protect: tuple[str, ...] = ()
    read_only: bool = False
    unscopable: tuple[str, ...] = ()
    present: bool = False  # the file has a [scope] table: a scope is set

    @property
    def active(self) -> bool:
        return self.present


@dataclass(frozen=True)
class AuditSettings:
    path: Path
    max_bytes: int = DEFAULT_MAX_BYTES
    keep: int = DEFAULT_KEEP
    text_bytes: int = DEFAULT_TEXT_BYTES


@dataclass(frozen=True)
class Config:
    """The whole file, checked; ``Config()`` is no file at all."""

    path: str | None = None
    hosts: Mapping[str, Host] = field(default_factory=dict)
    scope: ScopeSettings = field(default_factory=ScopeSettings)
    audit: AuditSettings | None = None
    idle_seconds: float = DEFAULT_IDLE_SECONDS
    list_seconds: float = DEFAULT_LIST_SECONDS

    def hosts_for_handlers(self) -> Hosts:
        """The hosts as the tmux core takes them."""
        return Hosts(
            {name: host.ssh for name, host in self.hosts.items()},
            self.idle_seconds,
            self.list_seconds,
        )


def config_path(given: str | None, environ: Mapping[str, str]) -> str | None:
    """The file ``--config`` names, else the variable, else none."""
    return given if given is not None else environ.get(CONFIG_ENV) or None


def load_config(path: str | None) -> Config:
    """The checked configuration of ``path`` (``Config()`` for none), or ``ConfigRefused``."""
    if path is None:
        return Config()
    where = f"config {path}"
    try:
        with open(path, "rb") as file:
            data = tomllib.load(file)
    except OSError as exc:
        raise ConfigRefused(
            f"{where}: cannot be read ({exc.strerror}); fix the path given with --config "
            f"or {CONFIG_ENV}"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigRefused(f"{where}: is not TOML ({exc}); fix the line it names") from None
    return _checked(where, path, data)


def check_config(path: str) -> list[str]:
    """What is wrong with the configuration file at ``path``: one line per problem, none
    when the server would start with it (for ``doctor``)."""
    try:
        config = load_config(path)
    except ConfigRefused as exc:
        return [str(exc)]
    if config.audit is not None:
        problem = audit_problem(config.audit.path)
        if problem is not None:
            return [f"config {path}: [audit] path: {problem}"]
    return []


def audit_problem(path: Path) -> str | None:
    """Why the audit log at ``path`` could not be written, or None when it can."""
    directory = path.parent
    if not directory.is_dir():
        return f"{str(directory)!r} is not a directory; create it or name another path"
    if path.exists() and not os.access(path, os.W_OK):
        return f"{str(path)!r} is not writable by this user; name another path"
    if not path.exists() and not os.access(directory, os.W_OK):
        return f"{str(directory)!r} is not writable by this user; name another path"
    return None


def _checked(where: str, path: str, data: dict[str, Any]) -> Config:
    unknown = sorted(set(data) - {*SECTIONS, "hosts"})
    if unknown:
        raise ConfigRefused(
            f"{where}: {unknown[0]}: not a key of this file; "
            f"use {', '.join(sorted({*SECTIONS, 'hosts'}))}"
        )
    for section, keys in SECTIONS.items():
        table = data.get(section, {})
        if not isinstance(table, dict):
            raise ConfigRefused(f"{where}: {section}: must be a table ([{section}])")
        extra = sorted(set(table) - keys)
        if extra:
            raise ConfigRefused(
                f"{where}: [{section}] {extra[0]}: not a key of [{section}]; "
                f"use {', '.join(sorted(keys))}"
            )
    connections = data.get("connections", {})
    return Config(
        path,
        _hosts(where, data.get("hosts", {})),
        _scope(where, data),
        _audit(where, data.get("audit")),
        _seconds(where, connections, "idle_seconds", DEFAULT_IDLE_SECONDS),
        _seconds(where, connections, "list_seconds", DEFAULT_LIST_SECONDS),
    )


def _hosts(where: str, hosts: object) -> dict[str, Host]:
    if not isinstance(hosts, dict):
        raise ConfigRefused(f"{where}: hosts: must be tables ([hosts.NAME] with ssh = ...)")
    found: dict[str, Host] = {}
    for name, table in hosts.items():
        key = f"[hosts.{name}]"
        if not HOST_NAME.match(name):
            raise ConfigRefused(
                f"{where}: {key}: a host name is letters, digits, '.', '_' and '-' "
                "(at most 63, no '/'); rename it"
            )
        if not isinstance(table, dict) or set(table) != {"ssh"}:
            raise ConfigRefused(f'{where}: {key}: must hold exactly ssh = "[USER@]HOST[:PORT]"')
        ssh = table["ssh"]
        if not isinstance(ssh, str):
            raise ConfigRefused(f'{where}: {key} ssh: must be a string "[USER@]HOST[:PORT]"')
        try:
            target = parse_target(ssh)
        except BadSshTarget as exc:
            raise ConfigRefused(f"{where}: {key} ssh: {exc}") from None
        found[name] = Host(name, ssh, target)
    return found


def _patterns(where: str, table: dict[str, Any], key: str) -> tuple[str, ...] | None:
    if key not in table:
        return None
    value = table[key]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigRefused(
            f"{where}: [scope] {key}: must be a list of non-empty strings "
            '(shell-style patterns such as "agent-*")'
        )
    return tuple(value)


def _scope(where: str, data: dict[str, Any]) -> ScopeSettings:
    if "scope" not in data:
        return ScopeSettings()
    table = data["scope"]
    read_only = table.get("read_only", False)
    if not isinstance(read_only, bool):
        raise ConfigRefused(f"{where}: [scope] read_only: must be true or false")
    return ScopeSettings(
        sockets=_patterns(where, table, "sockets"),
        allow=_patterns(where, table, "allow"),
        protect=_patterns(where, table, "protect") or (),
        read_only=read_only,
        unscopable=_patterns(where, table, "unscopable") or (),
        present=True,
    )


def _audit(where: str, table: object) -> AuditSettings | None:
    if table is None:
        return None
    assert isinstance(table, dict)  # _checked refused a non-table
    path = table.get("path")
    if not isinstance(path, str) or not path:
        raise ConfigRefused(f"{where}: [audit] path: must name the log file (a string)")
    numbers = {}
    for key, default in (
        ("max_bytes", DEFAULT_MAX_BYTES),
        ("keep", DEFAULT_KEEP),
        ("text_bytes", DEFAULT_TEXT_BYTES),
    ):
        value = table.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ConfigRefused(f"{where}: [audit] {key}: must be a whole number of at least 1")
        numbers[key] = value
    return AuditSettings(Path(path).expanduser(), **numbers)


def _seconds(where: str, table: dict[str, Any], key: str, default: float) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ConfigRefused(f"{where}: [connections] {key}: must be a number of seconds above 0")
    return float(value)
