"""tmux wait-for channels: signalling one, and waiting on one with a deadline.

The wait runs as a ``tmux wait-for`` process of its own (``Server.wait_for``): it
sleeps until tmux answers, never polls, and is killed and reaped when the
deadline passes or the call is cancelled. Its timeout is ``timeoutMs`` (30 s when
omitted) cut to the server's ceiling, and the result says which applied.
"""

from __future__ import annotations

import time

from ...generated.swift.models.signal_channel import SignalChannelInput, SignalChannelOutput
from ...generated.swift.models.wait_for_channel import WaitForChannelInput, WaitForChannelOutput
from ...seam import Call
from ..tmux.objects.server import check_channel
from .arguments import wait_limit
from .config import SwiftConfig
from .targets import Lookups

DEFAULT_TIMEOUT_MS = 30_000


class ChannelTools:
    def __init__(self, lookups: Lookups, config: SwiftConfig) -> None:
        self.lookups = lookups
        self.config = config

    async def signal_channel(self, call: Call, params: SignalChannelInput) -> SignalChannelOutput:
        channel = check_channel(params.channel)
        await self.lookups.for_call().server.signal_channel(channel)
        return SignalChannelOutput(channel=channel, signalled=True)

    async def wait_for_channel(
        self, call: Call, params: WaitForChannelInput
    ) -> WaitForChannelOutput:
        channel = check_channel(params.channel)
        limit = wait_limit(params.timeoutMs, self.config)
        server = self.lookups.for_call().server
        await server.ready()  # the wait is a process of its own: the server must be pinned
        started = time.monotonic()
        released = await server.wait_for(channel, limit)
        return WaitForChannelOutput(
            channel=channel,
            released=released,
            seconds=round(time.monotonic() - started, 3),
            effectiveTimeout=limit,
        )
