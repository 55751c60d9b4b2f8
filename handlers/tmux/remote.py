"""Running tmux on another machine: every tmux argv of the process goes through one
multiplexed OpenSSH connection when ``TMUX_CONTRACT_MCP_SSH`` names a host.

The host and user are checked before anything reaches ssh, so neither can be read as an
ssh option. The remote command is the tmux argv quoted for a POSIX shell (``shlex.join``):
the remote login shell splits it back into exactly those arguments.
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

SSH_ENV = "TMUX_CONTRACT_MCP_SSH"
SSH_CONFIG_ENV = "TMUX_CONTRACT_MCP_SSH_CONFIG"
SSH_BIN = "ssh"
PERSIST_SECONDS = 60
EXIT_TIMEOUT = 10.0
CONNECT_TIMEOUT = 8  # seconds to reach the host: below the 10 s a tmux command gets
ALIVE_INTERVAL = 5  # seconds of silence before ssh asks the host whether it is there
ALIVE_COUNT = 2  # unanswered asks after which ssh gives the connection up

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
        """The ssh options every invocation shares (the master is shared through them).

        A host that does not answer fails a connect after ``CONNECT_TIMEOUT`` (8 s); a
        connection that goes silent (the peer gone without a word) is given up after at
        most ``ALIVE_INTERVAL * (ALIVE_COUNT + 1)`` (15 s), which ends every command and
        control client on it with ssh's status 255; the next command connects anew.
        """
        options = [
            *(("-F", self.config) if self.config else ()),
            "-o",
            "BatchMode=yes",
            "-o",
            f"ConnectTimeout={CONNECT_TIMEOUT}",
            "-o",
            f"ServerAliveInterval={ALIVE_INTERVAL}",
            "-o",
            f"ServerAliveCountMax={ALIVE_COUNT}",
            "-o",
            "ControlMaster=auto",
            "-o",
            f"ControlPersist={PERSIST_SECONDS}",
            "-o",
            f"ControlPath={os.path.join(self.control_dir, '%C')}",
        ]
        if self.target.port is not None:
            options += ["-p", str(self.target.port)]
        return options

    def argv(self, command: Sequence[str]) -> list[str]:
        """``command`` (a tmux argv) run on the remote host as one quoted command line.

        ``-u``: sshd passes no locale, and a tmux client that does not know it may write
        UTF-8 replaces every control character in its output (the field separator too).
        """
        tmux = [command[0], "-u", *command[1:]]
        return [SSH_BIN, *self.options(), self.target.destination, "--", shlex.join(tmux)]

    def failure(self, stderr: str) -> str:
        """One line for ssh's own failure (exit 255): the host and ssh's last word."""
        lines = [line.strip() for line in stderr.splitlines() if line.strip()]
        said = lines[-1] if lines else "no message"
        return f"ssh to {self.target} failed: {said}"

    def lost(self) -> str:
        """What to say when an established connection ends under a command (ssh exits 255
        without a word of its own: the master lost the host)."""
        return (
            f"the ssh connection to {self.target} was lost; the next call connects again, "
            "so check that the host is reachable and retry"
        )

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
    """The argv that runs the tmux argv ``argv``: itself here, or through ssh."""
    remote = remote_for(environ)
    return list(argv) if remote is None else remote.argv(argv)


def close_all() -> None:
    """Stop every master this process started."""
    for remote in _REMOTES.values():
        remote.close()


atexit.register(close_all)
