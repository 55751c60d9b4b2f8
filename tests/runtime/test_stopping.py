"""Stopping on a signal (``stopping.until_stopped``): a signal sent the moment the server
says it is ready ends serving as the end of input does, with 128 + the signal."""

from __future__ import annotations

import os
import signal

import anyio
import pytest

from tmux_contract_mcp.stopping import until_stopped

pytestmark = pytest.mark.anyio


async def test_a_signal_sent_from_ready_cancels_serving_and_gives_128_plus_the_signal() -> None:
    served: list[str] = []

    async def serve() -> None:
        served.append("started")
        try:
            await anyio.sleep_forever()
        finally:
            served.append("closed")

    def ready() -> None:  # SIGINT: without the receiver in place this would interrupt the test
        served.append("ready")
        os.kill(os.getpid(), signal.SIGINT)

    with anyio.fail_after(10):
        status = await until_stopped(serve, ready)()
    assert status == 128 + signal.SIGINT
    assert served == ["ready", "started", "closed"]


async def test_serving_that_returns_gives_status_0_after_ready_ran_once() -> None:
    calls: list[str] = []

    async def serve() -> None:
        calls.append("served")

    status = await until_stopped(serve, lambda: calls.append("ready"))()
    assert (status, calls) == (0, ["ready", "served"])
