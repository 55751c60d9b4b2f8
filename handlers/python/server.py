"""The tmux servers themselves: which sockets answer, what one runs, and ending one.

Listing servers probes each socket with a short-lived tmux process, so it never
leaves a client attached to a server nobody asked to work with.
"""

from __future__ import annotations

import os
import stat
from contextlib import suppress
from typing import Any

import anyio

from ...errors import InvalidArgument
from ...generated.python.models.get_server_info import GetServerInfoInput, GetServerInfoOutput
from ...generated.python.models.kill_server import KillServerInput, KillServerOutput
from ...generated.python.models.list_servers import (
    ListServersInput,
    ListServersOutput,
    ListServersOutputResultItem,
)
from ...reply import Reply
from ...seam import Call
from ..tmux.errors import CommandFailed, NoServer, TmuxError
from ..tmux.objects.server import Tmux
from ..tmux.policy import Guard
from ..tmux.transport.hosts import HOST_SEPARATOR
from ..tmux.transport.process import SubprocessTransport
from ..tmux.transport.sockets import Socket, socket_dir

# A probe of a socket nobody answers on gives up after this long (a stale socket file
# answers "no server running" at once; only a stopped or wedged server makes us wait).
PROBE_TIMEOUT = 3.0

PROBES_AT_ONCE = 8

SERVER_PROBE = (("display-message", "-p", "#{version}"), ("list-sessions", "-F", "#{session_id}"))


class ServerTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def list_servers(
        self, call: Call, params: ListServersInput
    ) -> ListServersOutput | Reply[ListServersOutput]:
        """This host's servers, then each configured host's (``transport.hosts``), the
        hosts asked side by side, each for at most ``hosts.list_seconds``: a host that
        does not answer is one row (``socket_name`` ``host/``, not alive) and a note
        saying why, never a failed call."""
        extra = [_check_socket_path(path) for path in params.extra_socket_paths or ()]
        rows = await _servers_of(self.tmux, extra)
        names = sorted(self.tmux.hosts.ssh)
        if not names:
            return ListServersOutput(result=[ListServersOutputResultItem(**r) for r in rows])
        found: dict[str, list[dict[str, Any]]] = {}
        why: dict[str, str] = {}
        limit = self.tmux.hosts.list_seconds

        async def ask(name: str) -> None:
            with anyio.move_on_after(limit) as scope:
                try:
                    found[name] = await _servers_of(self.tmux.host(name), [])
                except TmuxError as exc:
                    why[name] = exc.message
            if scope.cancelled_caught:
                why[name] = f"no answer within {limit:g}s"

        async with anyio.create_task_group() as group:
            for name in names:
                group.start_soon(ask, name)
        notes = []
        for name in names:
            if name in found:
                for row in found[name]:
                    if row["socket_name"] is not None:
                        row["socket_name"] = f"{name}{HOST_SEPARATOR}{row['socket_name']}"
                    rows.append(row)
            else:
                rows.append(_unreachable(name))
                notes.append(f"host {name} is unreachable: {why[name]}")
        output = ListServersOutput(result=[ListServersOutputResultItem(**r) for r in rows])
        return Reply(output, notes=tuple(notes)) if notes else output

    async def get_server_info(self, call: Call, params: GetServerInfoInput) -> GetServerInfoOutput:
        server = self.tmux.server(params.socket_name)
        answers: list[list[str]] | None
        try:
            answers = await server.run_many(*SERVER_PROBE)
        except NoServer:
            answers = None
        directory = socket_dir(server.environ)
        fields = _server_fields(server.socket.path, directory, answers)
        named = params.socket_name
        if named is not None and HOST_SEPARATOR in named and fields["socket_name"] is not None:
            fields["socket_name"] = named  # on a configured host: as the call named it
        return GetServerInfoOutput(**fields)

    async def kill_server(self, call: Call, params: KillServerInput) -> KillServerOutput:
        server = self.tmux.server(params.socket_name)
        await Guard(server, self.tmux.environ).kill_server()
        await server.kill_server()
        return KillServerOutput(result=f"Server killed: tmux {server.socket}")


def _unreachable(host: str) -> dict[str, Any]:
    """The row of a configured host that did not answer."""
    return {
        "is_alive": False,
        "socket_name": f"{host}{HOST_SEPARATOR}",
        "socket_path": None,
        "session_count": 0,
    }


async def _servers_of(tmux: Tmux, extra: list[str]) -> list[dict[str, Any]]:
    """The servers of the host ``tmux`` runs on: each socket of its socket directory and
    ``extra``, probed at most ``PROBES_AT_ONCE`` at a time."""
    return await _Probes(tmux).rows(extra)


class _Probes:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def rows(self, extra: list[str]) -> list[dict[str, Any]]:
        self.tmux.require_supported()  # the probes below run tmux without a Server
        directory = socket_dir(self.tmux.environ)
        remote = self.tmux.remote  # the directory is one of the host tmux runs on
        paths = (
            _sockets_in(directory)
            if remote is None
            else await anyio.to_thread.run_sync(
                remote.sockets_in, directory, abandon_on_cancel=True
            )
        )
        seen = {os.path.realpath(path) for path in paths}
        for path in extra:
            if os.path.realpath(path) not in seen:
                seen.add(os.path.realpath(path))
                paths.append(path)
        found: list[dict[str, Any] | None] = [None] * len(paths)
        failures: list[TmuxError] = []
        limiter = anyio.CapacityLimiter(PROBES_AT_ONCE)

        async def probe(index: int, path: str) -> None:
            async with limiter:
                try:
                    found[index] = await self._probe(path, directory)
                except TmuxError as exc:  # tmux itself cannot run: no probe can answer
                    failures.append(exc)

        async with anyio.create_task_group() as group:
            for index, path in enumerate(paths):
                group.start_soon(probe, index, path)
        if failures:
            raise failures[0]
        return [row for row in found if row is not None]

    async def _probe(self, path: str, directory: str) -> dict[str, Any]:
        """One socket, asked by a short-lived tmux process: listing servers never leaves a
        client attached to a server nobody asked to work with."""
        socket = Socket(path, f"socket {path}")
        transport = SubprocessTransport(socket, self.tmux.tmux_bin, self.tmux.environ)
        answers: list[list[str]] | None = None
        # NoServer: nothing listens there; CommandFailed: no tmux socket. Either: not alive.
        with anyio.move_on_after(PROBE_TIMEOUT), suppress(NoServer, CommandFailed):
            answers = await transport.run_many(SERVER_PROBE, retry=True)
        return _server_fields(path, directory, answers)


def _check_socket_path(path: str) -> str:
    if not path or "\0" in path or not os.path.isabs(path):
        raise InvalidArgument(
            "extra_socket_paths",
            path,
            "is not an absolute socket path",
            "Pass full paths such as /tmp/my-tmux.sock (what tmux -S was given).",
        )
    return path


def _sockets_in(directory: str) -> list[str]:
    """The unix sockets in the tmux socket directory, by name (none when it is missing)."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    found = []
    for entry in entries:
        try:
            if stat.S_ISSOCK(entry.stat(follow_symlinks=False).st_mode):
                found.append(entry.path)
        except OSError:
            continue  # gone meanwhile
    return sorted(found)


def _server_fields(path: str, directory: str, answers: list[list[str]] | None) -> dict[str, Any]:
    """``answers``: what ``SERVER_PROBE`` printed, None when no server answered."""
    real = os.path.realpath(path)
    name = os.path.basename(real) if os.path.dirname(real) == directory else None
    if answers is None:
        return {"is_alive": False, "socket_name": name, "socket_path": path, "session_count": 0}
    version, sessions = answers
    return {
        "is_alive": True,
        "socket_name": name,
        "socket_path": path,
        "session_count": len([line for line in sessions if line]),
        "version": (version[0] if version else "") or None,
    }
