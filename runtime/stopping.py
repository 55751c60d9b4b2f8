"""Stopping on a signal the way stdin EOF stops: every handler closed, every exit hook run.

Python's default for SIGTERM and SIGHUP ends the process on the spot, so nothing it
started is stopped (a connection kept open for later calls outlives it). Here SIGTERM,
SIGHUP and SIGINT end serving as the end of input does, then the process exits with
128 + the signal's number, as a shell reports a process a signal ended.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import ParamSpec

import anyio
import anyio.abc

P = ParamSpec("P")

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def exit_status(signum: int) -> int:
    return 128 + signum


@contextmanager
def exiting_on_signals() -> Iterator[None]:
    """While the block runs (before serving), a stop signal raises ``SystemExit``, so the
    exit hooks still run."""

    def stop(signum: int, frame: FrameType | None) -> None:
        sys.exit(exit_status(signum))

    previous = {signum: signal.signal(signum, stop) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def until_stopped(
    serve: Callable[P, Awaitable[None]], ready: Callable[[], None] = lambda: None
) -> Callable[P, Awaitable[int]]:
    """``serve`` run until it returns (status 0) or a stop signal cancels it (128 + the
    signal). A cancelled ``serve`` closes what it holds on its way out, as on the end of
    input. ``ready`` runs once a stop signal is sure to be met this way, just before
    ``serve``: a signal sent as soon as it says so must not land in the loop's start."""

    async def serving(*args: P.args, **kwargs: P.kwargs) -> int:
        stopped = 0
        async with anyio.create_task_group() as group:

            async def watch(*, task_status: anyio.abc.TaskStatus[None]) -> None:
                nonlocal stopped
                with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
                    task_status.started()
                    async for signum in signals:
                        stopped = exit_status(signum)
                        group.cancel_scope.cancel()
                        return

            await group.start(watch)
            ready()
            await serve(*args, **kwargs)
            group.cancel_scope.cancel()
        return stopped

    return serving
