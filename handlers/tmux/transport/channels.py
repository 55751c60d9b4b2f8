"""tmux ``wait-for`` channels: waiting on one with a deadline, as a tmux process of its own.

A wait is a ``tmux wait-for`` client process of its own: tmux answers it only when
the channel is signalled. Over a control client ``wait-for`` returns at once (3.3a),
and a transport's one-off subprocess has a short fixed timeout, so the wait starts
and owns its process here, and kills and reaps it when the deadline passes or the
caller is cancelled: no tmux process outlives the wait.

tmux facts (3.3a) a caller should know:

- A signal sent while nobody waits is kept, once: the next wait returns at once.
  A second signal before anyone waits forgets it again.
- tmux keeps a killed waiter registered until the channel's next signal, which
  then goes to it (and to any live waiters) instead of being kept: after a wait
  timed out, a signal sent while no other wait is pending is used up.
- A server that exits (``kill-server``, its last session closed) lets every wait
  go as if signalled, status 0; one that dies leaves them with status 1 and
  "server exited unexpectedly". So a wait that ends with 0 asks whether the server
  still runs before it counts as signalled.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import AsyncIterator, Mapping

import anyio
import anyio.abc

from ..errors import CommandFailed, ConnectionLost, NoServer, is_no_server, no_server, unrunnable
from .process import SubprocessTransport, feed
from .sockets import UTF8, Socket, process_environ
from .ssh import SSH_FAILED, remote_for, tmux_invocation

STDERR_READ = 1.0  # seconds to read a finished wait's error text


@contextlib.asynccontextmanager
async def waiter(
    socket: Socket, tmux_bin: str, environ: Mapping[str, str], channel: str
) -> AsyncIterator[anyio.abc.Process]:
    """A ``tmux wait-for CHANNEL`` process for the block's duration; killed and reaped after.

    ``channel`` reaches tmux as one argv element after ``--`` (so a leading ``-`` is
    not an option; a trailing ``;`` is escaped here and quoted through ssh); it ends when the
    channel is signalled.
    """
    env = process_environ(environ)
    argv, data = tmux_invocation(
        [tmux_bin, "-N", UTF8, "-S", socket.path], ["wait-for", "--", channel], env
    )
    try:
        process = await anyio.open_process(
            argv,
            stdin=subprocess.DEVNULL if data is None else subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
        )
    except OSError as exc:
        raise unrunnable(tmux_bin, exc) from None
    try:
        if data is not None:
            await feed(process, data)  # source-file reads to the end before it runs
        yield process
    finally:
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
            await process.aclose()  # waits for the exit: no zombie is left


def check_connection(process: anyio.abc.Process, environ: Mapping[str, str], what: str) -> None:
    """Raise ``ConnectionLost`` when ``process`` (a wait-for run through ssh) ended because
    the ssh connection did: ssh's own status, 255."""
    remote = remote_for(process_environ(environ))
    if remote is not None and process.returncode == SSH_FAILED:
        raise ConnectionLost(f"{what}: {remote.lost()}")


async def wait_for(
    socket: Socket,
    tmux_bin: str,
    environ: Mapping[str, str],
    channel: str,
    timeout: float,
) -> bool:
    """True once ``channel`` is signalled on ``socket``; False when ``timeout`` seconds pass.

    A tmux error (no server, a command tmux refuses) raises ``NoServer`` /
    ``CommandFailed``; a server that goes while the wait runs raises ``NoServer``
    at once, saying so; an ssh connection that ends under it raises ``ConnectionLost``.
    """
    async with waiter(socket, tmux_bin, environ, channel) as process:
        with anyio.move_on_after(timeout):
            await process.wait()
        if process.returncode is None:
            return False
        stderr = "" if process.returncode == 0 else await _read_all(process)
    check_connection(process, environ, f"Waiting for channel {channel!r} on {socket}")
    if process.returncode == 0:
        if await _still_running(socket, tmux_bin, environ):
            return True
        raise _server_went(socket, channel)
    if "server exited" in stderr:
        raise _server_went(socket, channel)
    if is_no_server(stderr):
        raise no_server(socket)
    raise CommandFailed(("wait-for",), stderr, str(socket))


async def _still_running(socket: Socket, tmux_bin: str, environ: Mapping[str, str]) -> bool:
    """Whether a tmux server answers on ``socket`` (an error from it is an answer too)."""
    try:
        await SubprocessTransport(socket, tmux_bin, environ).run(["list-sessions", "-F", "."])
    except NoServer:
        return False
    except CommandFailed:
        return True
    return True


def _server_went(socket: Socket, channel: str) -> NoServer:
    return NoServer(
        f"The tmux server on {socket} exited (or its socket went) while waiting for channel "
        f"{channel!r}: nothing can signal it now. Find out what stopped it; once a server "
        "runs there again, wait on the channel anew."
    )


async def _read_all(process: anyio.abc.Process) -> str:
    chunks: list[bytes] = []
    if process.stderr is not None:
        with anyio.move_on_after(STDERR_READ):
            with contextlib.suppress(anyio.EndOfStream, anyio.BrokenResourceError):
                async for chunk in process.stderr:
                    chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", "replace")
