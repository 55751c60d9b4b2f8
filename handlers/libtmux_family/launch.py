"""The one tmux server a family profile serves, found (or started) at startup.

On the dedicated socket (no socket and no configuration chosen) the server is
started when this process starts, if none runs there, with a minimal
configuration written here: the user's own configuration is not read, the
server outlives its last session (``exit-empty off``), and a random owner
nonce, passed in the environment of the one command that starts it, lands in
a server option. Reading the option back tells whether this very process
started the server, even when another process raced to start it. Only then
does this process own it: the profile's extra default toolsets (teardown) are
turned on, and at the end (stdin closed) the server is killed if the option
and the server's pid and start time still say it is the same server (one
``if-shell -F`` that compares and kills in the server itself). A
dedicated server gone by the first call is started then, as at startup.

On a socket chosen by the user, nothing is started: the server is only looked
at, and a configuration named in ``LIBTMUX_TMUX_CONFIG`` is passed with every
command that could start one (see ``sockets.tmux_args``).

With tmux on another host (``--ssh``) all of it happens there: the socket is in
that host's tmux directory, the minimal configuration is written to a private
temporary file on that host (and removed once the server has read it), the owner
nonce reaches the remote tmux as ``env LIBTMUX_MCP_OWNER=... tmux ...`` in the one
quoted command line, ``LIBTMUX_TMUX_CONFIG`` names a file of that host, and the
server is killed at the end on the same proof of ownership.

What was found is kept as provenance, for the ``tmux://capabilities`` resource.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass

import anyio

from ...errors import ToolError
from ..lifecycle import Lifecycle
from ..tmux.errors import CommandFailed, TmuxUnavailable, is_no_server, unrunnable
from ..tmux.objects.server import Server, Tmux
from ..tmux.transport.sockets import UTF8, process_environ
from ..tmux.transport.ssh import SSH_FAILED, remote_for, tmux_command
from .config import FamilyConfig

OWNER_ENV = "LIBTMUX_MCP_OWNER"
OWNER_OPTION = "@libtmux_mcp_owner"
MINIMAL_CONFIG = f"""\
# Written by tmux-contract-mcp for the server it starts on its dedicated socket:
# the user's tmux configuration is not read.
set-option -g exit-empty off
set-option -g {OWNER_OPTION} "${OWNER_ENV}"
set-environment -gu {OWNER_ENV}
"""
TIMEOUT = 10.0
INCARNATION = "#{pid} #{start_time}"


@dataclass(frozen=True, slots=True)
class Provenance:
    """How the served server was chosen and found (the family's words for each)."""

    selector: str  # "name:<socket name>" or "path:<socket path>"
    selection: str  # "default-dedicated" or "operator-current"
    server_state: str  # "created", "existing", "absent", or "unprobed" before the first look
    configuration: str  # "minimal", "user-configured" or "unknown"
    socket_path: str
    attach_command: str


class ServedServer:
    """Finds (and on the dedicated socket starts) the server; owns it when it started it."""

    def __init__(self, config: FamilyConfig, environ: Mapping[str, str]) -> None:
        self.config = config
        self.env = process_environ(environ)
        self.nonce = secrets.token_hex(16)
        self.state = "unprobed"
        self.owned: str | None = None  # the incarnation ("pid start_time") this process started
        self.started_at_startup = False

    @property
    def provenance(self) -> Provenance:
        config = self.config
        if config.dedicated:
            configuration = "minimal" if self.owned else "unknown"
        elif self.state == "absent" and config.config is not None:
            configuration = "user-configured"
        else:
            configuration = "unknown"
        return Provenance(
            config.selector,
            "default-dedicated" if config.dedicated else "operator-current",
            self.state,
            configuration,
            config.socket.path,
            config.attach_command,
        )

    def start_at_startup(self) -> bool:
        """On the dedicated socket with nothing running there: start the server now.

        True when this process started it (and so owns it). Any failure leaves the
        look to the first call, which reports it.
        """
        if not self.config.dedicated:
            return False
        with suppress(ToolError):
            if self._incarnation() is None:
                self._start()
                self._claim()
        self.started_at_startup = self.owned is not None
        return self.started_at_startup

    async def prepare(self, server: Server) -> None:
        """Before the first command: look at the server (on the dedicated socket, start it
        if it has gone since startup). Runs again before a later command while it has not
        succeeded (see ``Server.ready``)."""
        await anyio.to_thread.run_sync(self._look)

    def _look(self) -> None:
        incarnation = self._incarnation()
        if not self.config.dedicated:
            self.state = "existing" if incarnation else "absent"
        elif incarnation is not None:
            self.state = "created" if incarnation == self.owned else "existing"
        else:
            self._start()
            self._claim()

    def _claim(self) -> None:
        """Own the server if its owner option is this process's nonce (one tmux command:
        the incarnation and the option in one answer)."""
        found = self._incarnation(f" #{{{OWNER_OPTION}}}")
        incarnation, _, owner = (found or "").rpartition(" ")
        if found is not None and owner == self.nonce:
            self.owned, self.state = incarnation, "created"
        else:
            self.state = "existing"

    async def release(self) -> None:
        """Kill the server this process started, if it is still that server."""
        if self.owned is not None:
            await anyio.to_thread.run_sync(self._release)

    def _release(self) -> None:
        """One tmux command that kills the server only if its pid, start time and owner
        option are still the ones this process saw when it started it: no other server
        can take its place between the check and the kill, and it costs one round trip
        (through ssh, one remote login). The values compared are ours (digits and hex)."""
        owned, self.owned = self.owned, None
        if owned is not None:
            ours = f"{owned} {self.nonce}"
            condition = f"#{{==:{INCARNATION} #{{{OWNER_OPTION}}},{ours}}}"
            self._tmux("if-shell", "-F", condition, "kill-server")

    def _start(self) -> None:
        # tmux makes its socket directory for -L itself, but not for -S.
        # tmux reads the configuration before it answers start-server (its first client
        # waits for it), so the file may go once that returns.
        directory = os.path.dirname(self.config.socket.path)
        remote = remote_for(self.env)
        if remote is not None:
            remote.ask(["mkdir", "-p", "-m", "700", "--", directory])
            with remote.temporary_file(MINIMAL_CONFIG) as path:
                self._tmux("-f", path, "start-server", env={OWNER_ENV: self.nonce})
            return
        os.makedirs(directory, mode=0o700, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="tcm-launch-") as temporary:
            path = os.path.join(temporary, "minimal.conf")
            with open(path, "w", encoding="utf-8") as file:
                file.write(MINIMAL_CONFIG)
            self._tmux("-f", path, "start-server", env={OWNER_ENV: self.nonce})

    def _incarnation(self, more: str = "") -> str | None:
        """The running server's pid and start time (and the ``more`` format after them),
        or None when nothing runs there."""
        try:
            lines = self._tmux("display-message", "-p", INCARNATION + more)
        except CommandFailed as exc:
            if is_no_server(exc.stderr):
                return None
            raise
        return lines[0] if lines else None

    def _tmux(self, *args: str, env: Mapping[str, str] | None = None) -> list[str]:
        """One tmux command on the served socket, as a process of its own (``args`` may
        start with global flags such as ``-f``)."""
        socket = self.config.socket
        environ = {**self.env, **(env or {})}
        argv = tmux_command([self.config.tmux_bin, UTF8, "-S", socket.path, *args], environ, env)
        try:
            done = subprocess.run(
                argv,
                check=False,
                capture_output=True,
                stdin=subprocess.DEVNULL,
                env=environ,
                timeout=TIMEOUT,
            )
        except OSError as exc:
            raise unrunnable(self.config.tmux_bin, exc) from None
        except subprocess.TimeoutExpired:
            raise TmuxUnavailable(f"tmux did not answer within {TIMEOUT:g}s on {socket}") from None
        stderr = done.stderr.decode("utf-8", "replace")
        remote = remote_for(environ)
        if remote is not None and done.returncode == SSH_FAILED:
            raise TmuxUnavailable(remote.failure(stderr))
        if done.returncode != 0:
            raise CommandFailed(tuple(args), stderr, str(socket))
        return done.stdout.decode("utf-8", "replace").splitlines()


class FamilyLifecycle(Lifecycle):
    """The core's part (``instruction_facts``, ``aclose``) for a profile with a pinned
    server: it starts the dedicated server at startup (``startup_toolsets``) and, once
    every tmux client of this process is gone, kills the server it started."""

    def __init__(self, tmux: Tmux, served: ServedServer, owner_toolsets: Sequence[str]) -> None:
        super().__init__(tmux)
        self.served = served
        self.owner_toolsets = tuple(owner_toolsets)

    def startup_toolsets(self) -> tuple[str, ...]:
        """The toolsets on by default because this process started its server now."""
        return self.owner_toolsets if self.served.start_at_startup() else ()

    async def aclose(self) -> None:
        try:
            await super().aclose()
        finally:
            try:
                with suppress(ToolError):  # tmux gone or unanswering at exit: nothing to kill
                    await self.served.release()
            finally:
                remote = self.tmux.remote  # the release may have needed the connection again
                if remote is not None:
                    await anyio.to_thread.run_sync(remote.close)
