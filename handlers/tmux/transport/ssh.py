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
import posixpath
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from ..errors import TmuxUnavailable
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
ASK_TIMEOUT = 20.0  # one question to the remote host (may include the first connection)
SSH_FAILED = 255  # ssh's own failure; the remote command's status otherwise

# The scripts below are constant text. A tool's value reaches them only on standard
# input; "$1" is only ever a value this process or that host chose.
#
# tmux's directory for ``-L`` sockets, as tmux works it out on that host: its
# $TMUX_TMPDIR (else /tmp) with symbolic links resolved, then ``tmux-<uid>``.
SOCKET_DIR_SCRIPT = (
    'd=${TMUX_TMPDIR:-/tmp}; r=$(cd -P -- "$d" 2>/dev/null && pwd -P) || r=$d; '
    'printf "%s/tmux-%s\\n" "$r" "$(id -u)"'
)
# The path on standard input, read whole (the ``x`` keeps trailing newlines), as an
# absolute path of that host ("~" is the remote home, a relative path is taken from
# it), after what it is (dir, other or none) and what its parent is.
PATH_SCRIPT = (
    "d=$(cat; printf x); d=${d%x}; "
    'case $d in "~") d=$HOME ;; "~/"*) d=$HOME/${d#"~/"} ;; esac; '
    "case $d in /*) ;; *) d=$(pwd)/$d ;; esac; "
    'if [ -d "$d" ]; then k=dir; elif [ -e "$d" ]; then k=other; else k=none; fi; '
    'p=${d%/*}; [ -n "$p" ] || p=/; if [ -d "$p" ]; then q=dir; else q=none; fi; '
    'printf "%s %s %s\\n" "$k" "$q" "$d"'
)
# Every unix socket (not a link to one) in the directory "$1", one path a line.
SOCKETS_SCRIPT = (
    'for f in "$1"/* "$1"/.[!.]* "$1"/..?*; do '
    'if [ -S "$f" ] && [ ! -h "$f" ]; then printf "%s\\n" "$f"; fi; done'
)
# A private file with stdin's text, its path printed (removed with ``rm -f``).
TEMPORARY_FILE_SCRIPT = 'umask 077 && f=$(mktemp) && cat > "$f" && printf "%s\\n" "$f"'
CONNECT_TIMEOUT = 8  # seconds to reach the host: below the 10 s a tmux command gets
ALIVE_INTERVAL = 5  # seconds of silence before ssh asks the host whether it is there
ALIVE_COUNT = 2  # unanswered asks after which ssh gives the connection up

CONTROL_PREFIX = "tcm-mux-"  # mkdtemp adds 8 characters
SOCKET_PATH_MAX = 104  # bytes of a unix socket path on macOS and the BSDs (108 on Linux)
# What ssh adds to the control directory: "/", %C (40 hex digits), and the suffix of the
# socket it makes first (".XXXXXXXXXXXXXXXX"), with the terminating NUL.
CONTROL_PATH_TAIL = 1 + 40 + 17 + 1


def control_base() -> str:
    """The temporary directory (``TMPDIR``), or ``/tmp`` when the control socket's path
    would not fit under it (a long ``TMPDIR``, as on macOS, makes ssh fail)."""
    base = tempfile.gettempdir()
    longest = len(base) + 1 + len(CONTROL_PREFIX) + 8 + CONTROL_PATH_TAIL
    return base if longest <= SOCKET_PATH_MAX else "/tmp"


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


@dataclass(frozen=True, slots=True)
class RemotePath:
    """A caller's path as the remote host resolved it, and what is there."""

    path: str
    is_dir: bool
    parent_is_dir: bool


class Remote:
    """The ssh connection of this process: its private control directory and master."""

    def __init__(self, target: SshTarget, config: str | None) -> None:
        self.target = target
        self.config = config
        self._dir: str | None = None
        self._socket_dir: str | None = None

    @property
    def control_dir(self) -> str:
        if self._dir is None:  # mkdtemp makes it 0700: no other user can reach the master
            self._dir = tempfile.mkdtemp(prefix=CONTROL_PREFIX, dir=control_base())
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
            *NO_FORWARDING,
        ]
        if self.target.port is not None:
            options += ["-p", str(self.target.port)]
        return options

    def argv(self, command: Sequence[str], env: Mapping[str, str] | None = None) -> list[str]:
        """``command``, a tmux argv of words this process chose (never a tool's value),
        run on the remote host as one command line quoted for a POSIX shell.

        ``-u``: sshd passes no locale, and a tmux client that does not know it may write
        UTF-8 replaces every control character in its output (the field separator too);
        the argv of a tmux client of this process has it already (``sockets.UTF8``).
        ``env``: variables that tmux must see there (ssh carries none of ours).
        """
        flags = [] if tuple(command[1:2]) == ("-u",) else ["-u"]
        return self.command([command[0], *flags, *command[1:]], env)

    def command(self, argv: Sequence[str], env: Mapping[str, str] | None = None) -> list[str]:
        """Any argv run on the remote host, quoted once; ``env`` goes as ``env K=V argv``."""
        prefix = ["env", *(f"{name}={value}" for name, value in env.items())] if env else []
        return [
            SSH_BIN,
            *self.options(),
            self.target.destination,
            "--",
            shlex.join([*prefix, *argv]),
        ]

    def ask(self, argv: Sequence[str], given: str = "") -> subprocess.CompletedProcess[str]:
        """Run ``argv`` there (``given`` on its stdin); ssh's own failure, or no answer
        within ``ASK_TIMEOUT``, is one line naming the host."""
        try:
            done = subprocess.run(
                self.command(argv),
                input=given,
                capture_output=True,
                text=True,
                timeout=ASK_TIMEOUT,
                check=False,
            )
        except OSError as exc:
            raise TmuxUnavailable(f"ssh to {self.target} could not be run: {exc}") from None
        except subprocess.TimeoutExpired:
            raise TmuxUnavailable(
                f"ssh to {self.target} did not answer within {ASK_TIMEOUT:g}s"
            ) from None
        if done.returncode == SSH_FAILED:
            raise TmuxUnavailable(self.failure(done.stderr))
        return done

    def socket_dir(self) -> str:
        """tmux's socket directory on the remote host, asked once (``SOCKET_DIR_SCRIPT``)."""
        if self._socket_dir is None:
            done = self.ask(["sh", "-c", SOCKET_DIR_SCRIPT])
            path = done.stdout.strip()
            if done.returncode != 0 or not path.startswith("/"):
                raise TmuxUnavailable(
                    f"{self.target} did not say where its tmux sockets are "
                    f"(sh answered {done.returncode}: {done.stderr.strip() or path!r})"
                )
            self._socket_dir = path
        return self._socket_dir

    def path(self, given: str) -> RemotePath:
        """What ``given`` is on the remote host (``PATH_SCRIPT`` reads the value from its
        standard input: it is never part of the command line a login shell parses)."""
        done = self.ask(["sh", "-c", PATH_SCRIPT], given)
        kind, parent, path = ([*done.stdout.rstrip("\n").split(" ", 2), "", "", ""])[:3]
        if done.returncode != 0 or not path.startswith("/"):
            raise TmuxUnavailable(
                f"{self.target} did not say what {given!r} is there "
                f"(sh answered {done.returncode}: {done.stderr.strip()})"
            )
        # Normalised as ``os.path.abspath`` does here: ``..`` and ``.`` taken lexically.
        return RemotePath(posixpath.normpath(path), kind == "dir", parent == "dir")

    def sockets_in(self, directory: str) -> list[str]:
        """The unix sockets in ``directory`` of the remote host, sorted."""
        done = self.ask(["sh", "-c", SOCKETS_SCRIPT, "sh", directory])
        return sorted(line for line in done.stdout.splitlines() if line.startswith("/"))

    def is_file(self, path: str) -> bool:
        return self.ask(["test", "-f", path]).returncode == 0

    @contextlib.contextmanager
    def temporary_file(self, text: str) -> Iterator[str]:
        """A private file on the remote host holding ``text``, removed afterwards."""
        done = self.ask(["sh", "-c", TEMPORARY_FILE_SCRIPT], text)
        path = done.stdout.strip()
        if done.returncode != 0 or not path.startswith("/"):
            raise TmuxUnavailable(
                f"{self.target} could not make a temporary file: {done.stderr.strip()}"
            )
        try:
            yield path
        finally:
            with contextlib.suppress(TmuxUnavailable):
                self.ask(["rm", "-f", "--", path])

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


def tmux_command(
    argv: Sequence[str], environ: Mapping[str, str], env: Mapping[str, str] | None = None
) -> list[str]:
    """The argv that runs the tmux argv ``argv``: itself here, or through ssh. ``env``:
    variables tmux must see; here the caller puts them in the process environment,
    there they go with the command (``env K=V tmux ...``).

    Only for argv this process chose word by word (``tmux -V``, the control client's
    attach): a command carrying a tool's values goes through ``tmux_invocation``.
    """
    remote = remote_for(environ)
    return list(argv) if remote is None else remote.argv(argv, env)


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
