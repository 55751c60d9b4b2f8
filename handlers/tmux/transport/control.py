"""tmux control mode: one long-lived ``tmux -C`` client instead of a process per command.

A control client answers each command line with a ``%begin T N F`` … ``%end T N F``
(or ``%error T N F``) block, in the order the lines were written, so commands can
be pipelined and matched first-in first-out. Blocks with flag 0 belong to commands
tmux queued itself (hooks, the attach): they are skipped. Lines starting with ``%``
between blocks are notifications and go to listeners. Command output inside a block
is not escaped: only the exact guard line of the open block closes it.

Not every command may travel over it (see ``CONTROL_COMMANDS``): one that queues
other commands with the caller's state (``if-shell``, ``source-file``…) answers with
more than one flag-1 block; ``run-shell`` and ``wait-for`` return at once instead of
waiting (3.3a); and an attached client changes what "the current client, session
or directory" means. Commands outside the list use a subprocess.

Nothing may leave a command waiting on the client: tmux runs a client's commands one
after another, so one that waits for the client (3.3a's ``command-prompt`` waits for
its answer) holds every later reply back, errors included, and a control client never
answers a prompt. ``send-keys`` typing into a pane in a mode would do exactly that (see
``keyguard``), so every transport runs such a ``send-keys`` only inside a guard that
reads the pane's mode in the same command.

``if-shell -F`` is the one command that queues others allowed here: its reply is its
own block, then one per command of the branch it ran. The client writes a fence line
(``display-message -p`` of a token) right after it and gathers every block up to the
fence's as that one command's reply.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import subprocess
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import anyio

from ..errors import (
    CommandFailed,
    ConnectionLost,
    ControlClientGone,
    TmuxError,
    TmuxUnavailable,
    unrunnable,
)
from . import keyguard
from .conditional import is_if_format
from .gate import Gate, gate_for, gate_key
from .process import DEFAULT_TIMEOUT, SubprocessTransport
from .quoting import command_line, unescape_output
from .sockets import UTF8, Socket, process_environ
from .ssh import SSH_FAILED, Remote, remote_for, tmux_command

log = logging.getLogger(__name__)

DEFAULT_FLAGS = ("ignore-size", "no-output")
CLOSE_GRACE = 2.0  # seconds a client gets to leave on stdin EOF before it is killed
STDERR_WAIT = 0.5  # seconds an ending client gets to say why on stderr
STDERR_CAP = 65536  # bytes of stderr kept

Listener = Callable[[str], None]

# Commands whose reply over a control client is one flag-1 block, arrives without
# waiting, and does not depend on which client or working directory ran it.
CONTROL_COMMANDS = frozenset(
    {
        "break-pane",
        "capture-pane",
        "clear-history",
        "delete-buffer",
        "display-message",
        "has-session",
        "join-pane",
        "kill-pane",
        "kill-session",
        "kill-window",
        "last-pane",
        "last-window",
        "link-window",
        "list-buffers",
        "list-clients",
        "list-commands",
        "list-keys",
        "list-panes",
        "list-sessions",
        "list-windows",
        "move-pane",
        "move-window",
        "next-layout",
        "next-window",
        "paste-buffer",
        "previous-layout",
        "previous-window",
        "rename-session",
        "rename-window",
        "resize-pane",
        "resize-window",
        "rotate-window",
        "select-layout",
        "select-pane",
        "select-window",
        "send-keys",
        "set-buffer",
        "set-environment",
        "set-option",
        "set-window-option",
        "show-environment",
        "show-options",
        "show-window-options",
        "swap-pane",
        "swap-window",
        "unlink-window",
    }
)


# Names a user's command-alias could make run something else over the client.
ALIASABLE = CONTROL_COMMANDS | {"if-shell"}


def output_event(line: str) -> tuple[str, bytes] | None:
    """``(pane_id, data)`` for a ``%output %N data`` notification, else None."""
    if not line.startswith("%output "):
        return None
    _, _, rest = line.partition(" ")
    pane, _, data = rest.partition(" ")
    return pane, unescape_output(data)


_fences = itertools.count(1)


@dataclass(eq=False)
class _Pending:
    """One command written to tmux and not yet answered.

    ``fence``: the token a fence line after the command prints, for a command whose reply
    is several blocks (``if-shell -F``); its ``lines`` gather every block's output up to the
    fence's, ``errors`` the text of a block that failed.
    """

    args: tuple[str, ...]
    done: asyncio.Future[None]
    lines: list[str] = field(default_factory=list)
    failed: bool = False
    gone: ControlClientGone | None = None
    fence: str | None = None
    errors: list[str] = field(default_factory=list)

    def finish(self) -> None:
        if not self.done.done():  # its caller may have given up (cancelled) meanwhile
            self.done.set_result(None)


@dataclass(eq=False)
class _Block:
    """The reply block being read: its guard's ``T N F`` and whose reply it is."""

    tail: str
    pending: _Pending | None
    lines: list[str] = field(default_factory=list)


def _guard(line: str, names: tuple[str, ...]) -> tuple[str, str] | None:
    """``(name, "T N F")`` when ``line`` is a ``%begin/%end/%error T N F`` guard."""
    name, _, tail = line.partition(" ")
    parts = tail.split(" ")
    if name not in names or len(parts) != 3 or not all(p.lstrip("-").isdigit() for p in parts):
        return None
    return name, tail


class _Pipes(asyncio.SubprocessProtocol):
    """Hands the client's output to it as it arrives, in the event loop's own callbacks.

    No task sits between tmux and a waiting call: a reply is parsed where its bytes
    land and wakes only the call it answers.
    """

    def __init__(self) -> None:
        self.client: ControlClient | None = None
        self.early: list[tuple[int, bytes | None]] = []  # before the client exists
        self.stderr = bytearray()
        loop = asyncio.get_running_loop()
        self.exited: asyncio.Future[None] = loop.create_future()
        self.stderr_closed: asyncio.Future[None] = loop.create_future()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 2:
            if len(self.stderr) < STDERR_CAP:
                self.stderr += data[: STDERR_CAP - len(self.stderr)]
        elif self.client is None:
            self.early.append((fd, data))
        else:
            self.client._received(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 2 and not self.stderr_closed.done():
            self.stderr_closed.set_result(None)
        if fd != 1:
            return
        if self.client is None:
            self.early.append((fd, None))
        else:
            self.client._output_ended(exc)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)


class ControlClient:
    """One ``tmux -C attach-session`` process; ``run`` may be called from many tasks at once.

    Start with ``await ControlClient.start(...)`` and end with ``aclose()``. Its output
    is read by event-loop callbacks, so it outlives whichever request started it.
    """

    def __init__(
        self,
        socket: Socket,
        process: asyncio.SubprocessTransport,
        pipes: _Pipes,
        session_id: str,
        gate: Gate,
        remote: Remote | None = None,
    ) -> None:
        self.socket = socket
        self.remote = remote
        self.lost: str | None = None  # set when the ssh connection under it ended
        self._process = process
        self._pipes = pipes
        stdin = process.get_pipe_transport(0)
        assert isinstance(stdin, asyncio.WriteTransport)
        self._stdin = stdin
        self._session_id = session_id
        self._loop = asyncio.get_running_loop()
        self._queue: deque[_Pending] = deque()
        self._block: _Block | None = None
        self._buffer = b""
        self._listeners: list[Listener] = []
        self._ready = anyio.Event()
        self._attach_error: str | None = None
        self._exit_line: str | None = None
        self._closing = False
        self._output_done = False
        self._gone_reason: str | None = None
        self._reader_done = anyio.Event()
        self._ender: asyncio.Task[None] | None = None
        self._end_listeners: list[Callable[[], None]] = []
        self._client_pid: int | None = None
        self._gate = gate  # starts and closes take turns (``gate``)

    @classmethod
    async def start(
        cls,
        socket: Socket,
        tmux_bin: str,
        session_id: str,
        *,
        environ: Mapping[str, str] | None = None,
        output: bool = False,
        timeout: float = DEFAULT_TIMEOUT,
        then: Sequence[Sequence[str]] = (),
    ) -> ControlClient:
        """Attach to ``session_id`` and wait for the attach's own reply.

        ``output=True`` drops ``no-output`` so ``%output`` arrives for the session's panes.
        ``then`` are commands for the new client to run right after the attach, in the
        same invocation: nothing is written to it for them, and their replies are dropped.
        ``-N`` keeps the client from starting a server on an empty socket; ``-E`` keeps
        tmux from copying this process's environment into the session's
        (``update-environment``), which an attach does otherwise.
        """
        flags = ",".join(f for f in DEFAULT_FLAGS if output is False or f != "no-output")
        env = process_environ(environ)
        argv = [tmux_bin, "-N", UTF8, "-S", socket.path, "-C", "attach-session", "-E"]
        argv += ["-t", session_id]
        argv += ["-f", flags]
        for command in then:
            argv += [";", *command]
        argv = tmux_command(argv, env)
        remote = remote_for(env)
        gate = gate_for(gate_key(socket, remote))
        async with gate.turn(), gate.quiet():  # identified once the attach answers (``gate``)
            client = await cls._spawn(socket, argv, env, session_id, gate, remote, tmux_bin)
            with anyio.move_on_after(timeout):
                await client._ready.wait()
        gate.clients.add(client)
        if not client._ready.is_set():
            await client.aclose()
            raise TmuxUnavailable(
                f"a tmux control client did not attach within {timeout:g}s on {socket}"
            )
        if client.lost is not None:
            await client.aclose()
            raise ConnectionLost(client.lost)
        problem = client._attach_error or client._gone_reason
        if problem is not None:
            await client.aclose()
            raise ControlClientGone(
                f"a tmux control client could not attach to session {session_id} on "
                f"{socket}: {problem}",
                sent=False,
            )
        if remote_for(env) is not None:
            await client._learn_remote_pid(timeout)
        return client

    @classmethod
    async def _spawn(
        cls,
        socket: Socket,
        argv: list[str],
        env: Mapping[str, str],
        session_id: str,
        gate: Gate,
        remote: Remote | None,
        tmux_bin: str,
    ) -> ControlClient:
        loop = asyncio.get_running_loop()
        try:
            process, pipes = await loop.subprocess_exec(
                _Pipes,
                *argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
            )
        except OSError as exc:
            raise unrunnable(tmux_bin, exc) from None
        client = cls(socket, process, pipes, session_id, gate, remote)
        pipes.client = client
        for fd, data in pipes.early:
            if data is None:
                client._output_ended(None)
            else:
                pipes.pipe_data_received(fd, data)
        pipes.early.clear()
        return client

    async def _learn_remote_pid(self, timeout: float) -> None:
        """Over ssh the process here is ssh: ask tmux for its own client's pid, which is
        what ``list-clients`` shows and what hiding our clients from reports needs."""
        with anyio.move_on_after(timeout), contextlib.suppress(TmuxError, ValueError):
            lines = await self.run(["display-message", "-p", "#{client_pid}"])
            self._client_pid = int(lines[0]) if lines else None

    @property
    def pid(self) -> int:
        """The tmux client process, as ``#{client_pid}`` shows it in ``list-clients``."""
        return self._client_pid if self._client_pid is not None else self._process.get_pid()

    @property
    def session_id(self) -> str:
        """The session the client is attached to now (it follows ``%session-changed``)."""
        return self._session_id

    @property
    def usable(self) -> bool:
        """True until the client is known to have ended or to be ending."""
        return (
            self._gone_reason is None
            and self._exit_line is None
            and not self._closing
            and not self._output_done
        )

    @property
    def running(self) -> bool:
        """True while the tmux client process has not been reaped."""
        return self._process.get_returncode() is None

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(line)`` for each notification; returns a function that removes it.

        Listeners run in the event loop's read callback: they must be quick and must
        not block (set an event, ``send_nowait`` on a memory stream). ``%output``
        payloads keep their bytes (decoded with surrogateescape): see ``output_event``.
        """
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    def on_ended(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback()`` once the client has ended (at once if it already has);
        returns a function that removes it. Same rules as a listener: quick, no blocking."""
        if self._reader_done.is_set():
            callback()
            return lambda: None
        self._end_listeners.append(callback)

        def remove() -> None:
            if callback in self._end_listeners:
                self._end_listeners.remove(callback)

        return remove

    async def run(self, args: Sequence[str]) -> list[str]:
        """Run one command; its output lines, or ``CommandFailed`` with tmux's error text."""
        await self._gate.calm()
        (pending,) = self._write([args])
        await pending.done
        return self._outcome(pending)

    async def run_many(self, commands: Sequence[Sequence[str]]) -> list[list[str]]:
        """Several commands written at once and answered in order: one round trip.

        tmux runs them in the order written, so a read placed after a change sees
        it. The first failure is raised once every reply is in.
        """
        await self._gate.calm()
        pendings = self._write(commands)
        for pending in pendings:
            await pending.done
        return [self._outcome(pending) for pending in pendings]

    async def drain(self) -> None:
        """Return once every command written so far has its answer (or has failed)."""
        waiting = [pending.done for pending in self._queue]
        block = self._block.pending if self._block is not None else None
        if block is not None and block.done not in waiting:  # a fenced command is in both
            waiting.append(block.done)
        if waiting:
            await asyncio.wait(waiting)  # never cancels them: their callers still wait

    async def wait_closed(self) -> None:
        """Return once the client has ended and its output has been read to the end."""
        await self._reader_done.wait()

    async def aclose(self) -> None:
        """Detach (stdin EOF), kill if it lingers, reap the process and drain its output."""
        with anyio.CancelScope(shield=True):
            self._closing = True
            self._die("it was closed by its owner")
            async with self._gate.turn():
                self._stdin.close()
                await self._reap()
            with anyio.move_on_after(CLOSE_GRACE):
                await self._reader_done.wait()

    def _write(self, commands: Sequence[Sequence[str]]) -> list[_Pending]:
        """Queue and write whole lines at once: nothing can come between the two.

        The pipe buffers what tmux has not read yet, so writing never waits; a
        client that stops reading is ended by its caller's timeout.
        """
        pendings = [_Pending(tuple(args), self._loop.create_future()) for args in commands]
        lines: list[bytes] = []
        for pending in pendings:
            lines.append(command_line(pending.args))
            if is_if_format(pending.args):
                pending.fence = f"tcm-fence-{next(_fences)}"
                lines.append(command_line(("display-message", "-p", "--", pending.fence)))
        if not self.usable or self._stdin.is_closing():
            raise self._gone_error(pendings[0].args, sent=False)
        self._queue.extend(pendings)
        self._stdin.write(b"".join(lines))
        return pendings

    def _outcome(self, pending: _Pending) -> list[str]:
        if pending.gone is not None:
            raise pending.gone
        if pending.failed:
            error = pending.errors if pending.fence is not None else pending.lines
            raise CommandFailed(pending.args, "\n".join(error), str(self.socket))
        return pending.lines

    def _received(self, data: bytes) -> None:
        if b"\n" not in data:
            self._buffer += data
            return
        *lines, self._buffer = (self._buffer + data).split(b"\n")
        for raw in lines:
            self._dispatch(raw)

    def _output_ended(self, exc: Exception | None) -> None:
        """stdout closed: the client is ending. Its stderr says why, if anything does."""
        self._output_done = True
        reason = f"reading its output failed ({exc})" if exc else "its output ended"
        self._ender = self._loop.create_task(self._ended(reason))

    async def _ended(self, reason: str) -> None:
        try:
            with anyio.move_on_after(STDERR_WAIT):
                await self._pipes.stderr_closed  # the client's last words, if any
                if self.remote is not None:
                    await self._pipes.exited  # ssh's status tells a lost connection
            stderr = bytes(self._pipes.stderr).decode("utf-8", "replace").strip()
            self.lost = self._connection_lost(stderr)
            self._die(self.lost or self._exit_line or stderr or reason)
            await self._reap()
        finally:
            self._reader_done.set()
            for callback in self._end_listeners:
                try:
                    callback()
                except Exception:
                    log.exception("tmux control end listener failed")
            self._end_listeners.clear()

    def _connection_lost(self, stderr: str) -> str | None:
        """What ssh's own failure (status 255) under this client means: the host could not be
        reached (before the attach's reply) or the connection was lost (after it)."""
        if self.remote is None or self._process.get_returncode() != SSH_FAILED:
            return None
        if not self._ready.is_set():
            return self.remote.failure(stderr)
        return self.remote.lost()

    def _dispatch(self, raw: bytes) -> None:
        if self._block is not None:
            self._block_line(self._block, raw)
            return
        line = raw.decode("utf-8", "surrogateescape")
        begin = _guard(line, ("%begin",))
        if begin is not None:
            self._open_block(begin[1])
        elif line.startswith("%"):
            self._notify(line)

    def _open_block(self, tail: str) -> None:
        """Flag 1 marks the reply to a line this client wrote; anything else is tmux's own."""
        ours = int(tail.rsplit(" ", 1)[1]) & 1 == 1
        pending: _Pending | None = None
        if ours and self._queue:
            head = self._queue[0]
            # A fenced command keeps every block until its fence's; the rest take one each.
            pending = head if head.fence is not None else self._queue.popleft()
        if ours and pending is None and self._gone_reason is None:
            log.warning("tmux control client on %s: a reply nobody asked for", self.socket)
        self._block = _Block(tail, pending)

    def _block_line(self, block: _Block, raw: bytes) -> None:
        line = raw.decode("utf-8", "replace")
        end = _guard(line, ("%end", "%error")) if line.startswith("%e") else None
        if end is None or end[1] != block.tail:
            block.lines.append(line)
            return
        self._block = None
        failed = end[0] == "%error"
        pending = block.pending
        if pending is not None and pending.fence is not None:
            self._gather(pending, block.lines, failed)
        elif pending is not None:
            pending.lines, pending.failed = block.lines, failed
            pending.finish()
        elif not self._ready.is_set():  # the attach's own reply
            self._attach_error = "\n".join(block.lines) if failed else None
            self._ready.set()

    def _gather(self, pending: _Pending, lines: list[str], failed: bool) -> None:
        """One block of a fenced command's reply: its fence's ends it, the rest add to it."""
        if not failed and lines == [pending.fence]:
            if self._queue and self._queue[0] is pending:
                self._queue.popleft()
            pending.finish()
        elif failed:
            pending.failed = True
            pending.errors.extend(lines)
        else:
            pending.lines.extend(lines)

    def _notify(self, line: str) -> None:
        if line == "%exit" or line.startswith("%exit "):
            self._exit_line = f"tmux sent {line!r}"
        elif line.startswith("%session-changed "):
            self._session_id = line.split(" ")[1]
        for listener in list(self._listeners):
            try:
                listener(line)
            except Exception:
                log.exception("tmux control listener failed on %r", line)

    def _die(self, reason: str) -> None:
        """Record why the client ended and fail every command still waiting for a reply."""
        if self._gone_reason is not None:
            return
        if self._attach_error is not None:
            reason = self._attach_error
        self._gone_reason = reason
        waiting = list(self._queue)
        if self._block is not None and self._block.pending is not None:
            if self._block.pending not in waiting:  # a fenced command is in both
                waiting.insert(0, self._block.pending)
            self._block.pending = None  # the rest of the block is still read, then dropped
        self._queue.clear()
        for pending in waiting:
            pending.gone = self._gone_error(pending.args, sent=True)
            pending.finish()
        self._ready.set()

    def _gone_error(self, args: tuple[str, ...], *, sent: bool) -> ControlClientGone:
        reason = self._gone_reason or self._exit_line or "it ended"
        what = "may or may not have run" if sent else "was not sent"
        return ControlClientGone(
            f"tmux {args[0] if args else ''} on {self.socket}: the control connection to "
            f"tmux ended ({reason}); the command {what}",
            sent=sent,
        )

    async def _reap(self) -> None:
        """Wait for the process to exit, killing it after a grace period: no zombie is left."""
        with anyio.CancelScope(shield=True):
            with anyio.move_on_after(CLOSE_GRACE):
                await self._pipes.exited
            if self._process.get_returncode() is None:
                self._kill()
                await self._pipes.exited
            self._process.close()  # closes the pipes; the process has exited

    def _kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self._process.kill()


def runs_in_control(args: Sequence[str]) -> bool:
    """Whether a command gives the same answer over a control client as in a subprocess,
    and can never leave a command waiting on it (see the module's docstring)."""
    if is_if_format(args):
        return True
    return bool(args) and args[0] in CONTROL_COMMANDS


class ControlTransport:
    """``Transport`` over one control client per socket, with a subprocess fallback.

    The client starts on the first call, attached to some session of the server.
    With no session (nothing to attach to) each call runs as a subprocess, and
    control mode is tried again on the next call. A client that ends (its session
    or the server was killed) is replaced on the next call. Commands outside
    ``CONTROL_COMMANDS``, or shadowed by a user's ``command-alias``, use a subprocess.
    """

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
        self.fallback = SubprocessTransport(socket, tmux_bin, environ, timeout)
        self._client: ControlClient | None = None
        self._clients: list[ControlClient] = []
        self._shadowed: frozenset[str] = frozenset()
        self._start_lock = anyio.Lock()
        self._closed = False

    async def run(self, args: Sequence[str], *, retry: bool = False) -> list[str]:
        """Run one command. ``retry=True`` (reads) repeats it once if the client died under it.

        A ``send-keys`` that types keys runs inside the mode guard (``keyguard``)."""
        guarded = keyguard.wrap(args)
        if guarded is not None:
            return keyguard.refused(args, await self.run(guarded), str(self.socket))
        if not runs_in_control(args) or self._closed:
            return await self.fallback.run(args)
        try:
            return await self._attempt(args)
        except ControlClientGone as exc:
            if exc.sent and not retry:
                raise
            return await self._attempt(args, last=True)

    async def run_many(
        self, commands: Sequence[Sequence[str]], *, retry: bool = False
    ) -> list[list[str]]:
        """Run commands in order, pipelined over the control client when all may use it
        (a ``send-keys`` that types keys inside the mode guard, as in ``run``)."""
        guarded = [keyguard.wrap(args) for args in commands]
        if any(wrapped is not None for wrapped in guarded):
            sent = [wrapped or args for wrapped, args in zip(guarded, commands, strict=True)]
            replies = await self.run_many(sent, retry=retry)
            label = str(self.socket)
            return [
                keyguard.refused(args, lines, label) if wrapped is not None else lines
                for wrapped, args, lines in zip(guarded, commands, replies, strict=True)
            ]
        if self._closed or not all(runs_in_control(args) for args in commands):
            return [await self.run(args, retry=retry) for args in commands]
        client: ControlClient | None = None
        with anyio.move_on_after(self.timeout) as scope:
            client = await self.client()
            if client is None or any(map(self._is_shadowed, commands)):
                return [await self.fallback.run(args) for args in commands]
            try:
                return await client.run_many(commands)
            except ControlClientGone as exc:
                if exc.sent and not retry:
                    raise
            return [await self.run(args, retry=retry) for args in commands]
        assert scope.cancelled_caught
        if client is not None:
            await self._discard(client)
        raise TmuxUnavailable(f"tmux did not answer within {self.timeout:g}s on {self.socket}")

    async def run_detached(self, args: Sequence[str]) -> list[str]:
        """Run one command while no control client of this transport is attached.

        tmux counts every attached client in ``session_attached`` and the like, this
        one included. The client is closed once the commands already written to it
        are answered (or the timeout passes); calls meanwhile wait, and the next call
        after this one attaches a new client.
        """
        async with self._start_lock:
            client, self._client = self._client, None
            if client is not None:
                with anyio.move_on_after(self.timeout):
                    await client.drain()
                await client.aclose()
            return await self.fallback.run(args)

    def own_client_pids(self) -> frozenset[int]:
        """Pids of this transport's control clients still running (to hide them from reports)."""
        self._clients = [c for c in self._clients if c.running]
        return frozenset(c.pid for c in self._clients)

    async def aclose(self) -> None:
        """End every control client; later calls use subprocesses."""
        self._closed = True
        self._client = None
        clients, self._clients = self._clients, []
        for client in clients:
            await client.aclose()

    async def client(self) -> ControlClient | None:
        """The live client, starting one if needed; None when there is no session to attach to."""
        client = self._client
        if client is not None and client.usable:
            return client
        async with self._start_lock:
            client = self._client
            if client is None or not client.usable:
                client = self._client = await self._start()
            return client

    async def _attempt(self, args: Sequence[str], *, last: bool = False) -> list[str]:
        """One try within the timeout. On the ``last`` try, a client that ended before the
        command was written hands it to a subprocess instead of trying once more."""
        client: ControlClient | None = None
        with anyio.move_on_after(self.timeout) as scope:
            client = await self.client()
            if client is None or self._is_shadowed(args):
                return await self.fallback.run(args)
            try:
                return await client.run(args)
            except ControlClientGone as exc:
                if exc.sent or not last:
                    raise
                return await self.fallback.run(args)
        assert scope.cancelled_caught
        if client is not None:
            await self._discard(client)
        raise TmuxUnavailable(f"tmux did not answer within {self.timeout:g}s on {self.socket}")

    async def _start(self) -> ControlClient | None:
        """Attach to the server's first session; None if it has none (or it went away)."""
        sessions = await self.fallback.run(["list-sessions", "-F", "#{session_id}"])
        if not sessions or self._closed:
            return None
        try:
            client = await ControlClient.start(
                self.socket,
                self.tmux_bin,
                sessions[0],
                environ=self.fallback.env,
                timeout=self.timeout,
            )
        except ControlClientGone:
            return None  # the session went away meanwhile: this call uses a subprocess
        self._clients.append(client)
        aliases: list[str] | None = None
        with anyio.move_on_after(self.timeout), contextlib.suppress(ControlClientGone):
            aliases = await client.run(["show-options", "-sv", "command-alias"])
        if aliases is None or self._closed:
            await client.aclose()
            return None
        # An alias may make a listed name run if-shell or the like: one reply would
        # then be several blocks, so such names go to a subprocess.
        self._shadowed = frozenset(a.partition("=")[0] for a in aliases) & ALIASABLE
        return client

    def _is_shadowed(self, args: Sequence[str]) -> bool:
        """Whether a user's alias may change what ``args`` (or the fence after it) runs."""
        if args[0] in self._shadowed:
            return True
        return is_if_format(args) and "display-message" in self._shadowed

    async def _discard(self, client: ControlClient) -> None:
        if self._client is client:
            self._client = None
        await client.aclose()
