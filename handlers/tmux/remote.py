"""Running tmux on another machine: every tmux argv of the process goes through one
multiplexed OpenSSH connection when ``TMUX_CONTRACT_MCP_SSH`` names a host.

The host and user are checked before anything reaches ssh, so neither can be read as an
ssh option. No value from a tool call is ever put on the remote command line, which the
remote user's login shell parses (and a shell that is not POSIX, fish or csh, would parse
differently): that line holds only words this process chose (the tmux binary, its global
flags, ``source-file -``), quoted for a POSIX shell, and the tmux command itself travels on
ssh's standard input as one tmux command line, quoted as for the control client, which tmux
reads back literally (``source-file -``, tmux 3.2 and newer).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .quoting import command_line

SSH_ENV = "TMUX_CONTRACT_MCP_SSH"
SSH_CONFIG_ENV = "TMUX_CONTRACT_MCP_SSH_CONFIG"
SSH_BIN = "ssh"
PERSIST_SECONDS = 60
# Nothing of this machine is lent to the remote, whatever the user's ssh configuration
# says: on the command line, these come before the configuration file and win.
NO_FORWARDING = (
    "-o",
    "ForwardAgent=no",
    "-o",
    "ForwardX11=no",
    "-o",
    "ClearAllForwardings=yes",
)
SERVER_STARTERS = frozenset({"new-session", "new", "start-server", "start"})
EXIT_TIMEOUT = 10.0

_USER = re.compile(r"[A-Za-z0-9._][A-Za-z0-9._-]*\Z")
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_HOSTNAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*\.?\Z")
_IPV6 = re.compile(r"[0-9A-Fa-f:.]+\Z")


class BadSshTarget(ValueError):
    """``--ssh`` or its variable names no host ssh could be given safely."""


@dataclass(frozen=True, slots=True)
class SshTarget:
    """Where tmux runs: ``host`` (brackets removed from an IPv6 address), maybe a user and port."""

    host: str
    user: str | None = None
    port: int | None = None

    @property
    def destination(self) -> str:
        return f"{self.user}@{self.host}" if self.user else self.host

    def __str__(self) -> str:
        return self.destination + (f" port {self.port}" if self.port else "")


def refuse(given: str, why: str) -> BadSshTarget:
    return BadSshTarget(
        f"{SSH_ENV} / --ssh {given!r} {why}; give [user@]host[:port], "
        "such as deploy@build-1.example.com:2222 or [2001:db8::1]:22"
    )


def parse_target(given: str) -> SshTarget:
    """``[user@]host[:port]`` checked: a user of [A-Za-z0-9._-], a host name or a bracketed
    IPv6 address, a port in 1-65535; nothing may start with ``-``."""
    user: str | None = None
    rest = given
    if "@" in rest:
        user, rest = rest.rsplit("@", 1)
        if not _USER.match(user):
            raise refuse(
                given,
                f"names the user {user!r}, which is not [A-Za-z0-9._-] (not starting with '-')",
            )
    port: int | None = None
    if rest.startswith("["):
        address, bracket, tail = rest[1:].partition("]")
        if not bracket or not _IPV6.match(address) or address.count(":") < 2:
            raise refuse(given, f"names the host {rest!r}, which is not a bracketed IPv6 address")
        host = address
        if tail:
            if not tail.startswith(":"):
                raise refuse(given, f"has {tail!r} after the address, where only :port may be")
            port = parse_port(given, tail[1:])
    else:
        host, colon, port_text = rest.partition(":")
        if colon:
            port = parse_port(given, port_text)
        if not _HOSTNAME.match(host):
            raise refuse(
                given,
                f"names the host {host!r}, which is not a host name "
                "(letters, digits, '-' and '.', not starting with '-')",
            )
    return SshTarget(host, user, port)


def parse_port(given: str, text: str) -> int:
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= 65535:
        raise refuse(given, f"names the port {text!r}, which is not a number from 1 to 65535")
    return int(text)


class Remote:
    """The ssh connection of this process: its private control directory and master."""

    def __init__(self, target: SshTarget, config: str | None) -> None:
        self.target = target
        self.config = config
        self._dir: str | None = None

    @property
    def control_dir(self) -> str:
        if self._dir is None:  # mkdtemp makes it 0700: no other user can reach the master
            self._dir = tempfile.mkdtemp(prefix="tmux-contract-mcp-ssh-")
        return self._dir

    def options(self) -> list[str]:
        """The ssh options every invocation shares (the master is shared through them)."""
        options = [
            *(("-F", self.config) if self.config else ()),
            "-o",
            "BatchMode=yes",
            "-o",
            "ControlMaster=auto",
            "-o",
            f"ControlPersist={PERSIST_SECONDS}",
            "-o",
            f"ControlPath={os.path.join(self.control_dir, '%C')}",
            *NO_FORWARDING,
        ]
        if self.target.port is not None:
            options += ["-p", str(self.target.port)]
        return options

    def argv(self, command: Sequence[str]) -> list[str]:
        """``command``, a tmux argv of words this process chose (never a tool's value),
        run on the remote host as one command line quoted for a POSIX shell.

        ``-u``: sshd passes no locale, and a tmux client that does not know it may write
        UTF-8 replaces every control character in its output (the field separator too).
        """
        tmux = [command[0], "-u", *command[1:]]
        return [SSH_BIN, *self.options(), self.target.destination, "--", shlex.join(tmux)]

    def invocation(self, head: Sequence[str], command: Sequence[str]) -> tuple[list[str], bytes]:
        """The ssh argv and standard input that run the tmux ``command`` on the remote.

        ``head`` (the binary and global flags) is on the command line; ``command`` is read
        by ``source-file -`` from standard input, so its values never meet a shell. A
        command that starts a server (``new-session``) is preceded by ``start-server``,
        since ``source-file`` alone does not start one.
        """
        starts = command[0] in SERVER_STARTERS and "-N" not in head
        line = [*head, *(("start-server", ";") if starts else ()), "source-file", "-"]
        return self.argv(line), command_line(command)

    def failure(self, stderr: str) -> str:
        """One line for ssh's own failure (exit 255): the host and ssh's last word."""
        lines = [line.strip() for line in stderr.splitlines() if line.strip()]
        said = lines[-1] if lines else "no message"
        return f"ssh to {self.target} failed: {said}"

    def close(self) -> None:
        """Stop the master (``ssh -O exit``) and remove the control directory."""
        if self._dir is None:
            return
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            subprocess.run(
                [SSH_BIN, *self.options(), "-O", "exit", self.target.destination],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=EXIT_TIMEOUT,
                check=False,
            )
        shutil.rmtree(self._dir, ignore_errors=True)
        self._dir = None


_REMOTES: dict[tuple[str, str | None], Remote] = {}


def remote_for(environ: Mapping[str, str]) -> Remote | None:
    """The one ``Remote`` for the host ``environ`` names (None: tmux runs here)."""
    given = environ.get(SSH_ENV)
    if not given:
        return None
    key = (given, environ.get(SSH_CONFIG_ENV) or None)
    remote = _REMOTES.get(key)
    if remote is None:
        remote = _REMOTES[key] = Remote(parse_target(given), key[1])
    return remote


def tmux_command(argv: Sequence[str], environ: Mapping[str, str]) -> list[str]:
    """The argv that runs the tmux argv ``argv``: itself here, or through ssh.

    Only for argv this process chose word by word (``tmux -V``, the control client's
    attach): a command carrying a tool's values goes through ``tmux_invocation``.
    """
    remote = remote_for(environ)
    return list(argv) if remote is None else remote.argv(argv)


def protect_argument(arg: str) -> str:
    """Keep tmux from reading a trailing ``;`` of an argv element as a command separator."""
    return arg[:-1] + "\\;" if arg.endswith(";") else arg


def tmux_invocation(
    head: Sequence[str], command: Sequence[str], environ: Mapping[str, str]
) -> tuple[list[str], bytes | None]:
    """The argv and standard input (None: none) that run one tmux ``command``.

    Here: one argv, each argument a separate element. Through ssh: see
    ``Remote.invocation``; the command is on standard input, quoted for tmux's parser.
    """
    remote = remote_for(environ)
    if remote is None:
        return [*head, *(protect_argument(arg) for arg in command)], None
    return remote.invocation(head, command)


def close_all() -> None:
    """Stop every master this process started."""
    for remote in _REMOTES.values():
        remote.close()


atexit.register(close_all)
