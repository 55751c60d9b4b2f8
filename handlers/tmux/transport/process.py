"""One tmux process per command: the simplest transport, and the fallback of the others.

Arguments always travel as separate argv elements, never through a shell
(through ssh: see ``ssh``). tmux itself splits a command line at an argument
that ends in ``;``, so such an argument is escaped before it is passed.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Mapping, Sequence

import anyio
import anyio.abc

from ..errors import CommandFailed, TmuxUnavailable, is_no_server, no_server, unrunnable
from . import keyguard
from .gate import gate_for, gate_key
from .sockets import Socket, process_environ, tmux_args
from .ssh import SSH_FAILED, remote_for, tmux_invocation

DEFAULT_TIMEOUT = 10.0


def split_lines(stdout: str) -> list[str]:
    lines = stdout.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


async def feed(process: anyio.abc.Process, data: bytes) -> None:
    """Write ``data`` to the process's stdin and close it; a process that ended without
    reading it (a remote tmux that found no server) leaves nothing to write to."""
    if process.stdin is None:
        return
    with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.send(data)
    await process.stdin.aclose()


async def run_fed(
    argv: Sequence[str], data: bytes | None, env: Mapping[str, str]
) -> subprocess.CompletedProcess[bytes]:
    """Run ``argv`` with ``data`` on its stdin (None: /dev/null) and collect its output.

    A process may end without reading its stdin (a remote tmux that finds no server
    exits before it reads its command): that is its answer, not a failure to write.
    """
    if data is None:
        return await anyio.run_process(argv, stdin=subprocess.DEVNULL, check=False, env=env)
    out: dict[str, bytes] = {}
    async with await anyio.open_process(argv, env=env) as process:

        async def read(name: str, stream: anyio.abc.ByteReceiveStream | None) -> None:
            chunks: list[bytes] = []
            if stream is not None:
                async for chunk in stream:
                    chunks.append(chunk)
            out[name] = b"".join(chunks)

        async with anyio.create_task_group() as group:
            group.start_soon(feed, process, data)
            group.start_soon(read, "stdout", process.stdout)
            group.start_soon(read, "stderr", process.stderr)
        code = await process.wait()
    return subprocess.CompletedProcess(list(argv), code, out["stdout"], out["stderr"])


class SubprocessTransport:
    """One tmux process per command: simple, and works with no session to attach to."""

    def __init__(
        self,
        socket: Socket,
        tmux_bin: str,
        environ: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.socket = socket
        self.tmux_bin = tmux_bin
        self.timeout = timeout
        self.env = process_environ(environ)
        self.gate_key = gate_key(socket, remote_for(self.env))

    def own_client_pids(self) -> frozenset[int]:
        """None: every process ends with its command."""
        return frozenset()

    async def run_many(
        self, commands: Sequence[Sequence[str]], *, retry: bool = False
    ) -> list[list[str]]:
        return [await self.run(args, retry=retry) for args in commands]

    async def run(self, args: Sequence[str], *, retry: bool = False) -> list[str]:
        """``retry`` is accepted for the protocol; a fresh process has nothing to retry.

        A ``send-keys`` that types keys runs inside the mode guard (``keyguard``)."""
        guarded = keyguard.wrap(args)
        if guarded is not None:
            return keyguard.refused(args, await self.run(guarded), str(self.socket))
        argv, data = tmux_invocation([self.tmux_bin, *tmux_args(self.socket)], args, self.env)
        try:
            with anyio.fail_after(self.timeout):
                async with gate_for(self.gate_key).command():  # not beside a start (``gate``)
                    done = await run_fed(argv, data, self.env)
        except TimeoutError:  # before OSError, of which it is a subclass
            raise TmuxUnavailable(
                f"tmux did not answer within {self.timeout:g}s on {self.socket}"
            ) from None
        except OSError as exc:  # missing, not executable, a directory...
            raise unrunnable(self.tmux_bin, exc) from None
        stderr = done.stderr.decode("utf-8", "replace")
        if done.returncode != 0:
            remote = remote_for(self.env)
            if remote is not None and done.returncode == SSH_FAILED:
                raise TmuxUnavailable(remote.failure(stderr))
            if is_no_server(stderr):
                raise no_server(self.socket)
            raise CommandFailed(tuple(args), stderr, str(self.socket))
        return split_lines(done.stdout.decode("utf-8", "replace"))
