"""tmux ``wait-for`` channels: waiting on one with a deadline (``Server.wait_for``, a
tmux process of its own), and signalling one. A channel name is put after ``--`` so
one starting with ``-`` is not read as a flag.
"""

from __future__ import annotations

import math

from ...errors import InvalidArgument, ToolError
from ...generated.python.models.signal_channel import SignalChannelInput, SignalChannelOutput
from ...generated.python.models.wait_for_channel import WaitForChannelInput, WaitForChannelOutput
from ...seam import Call
from ..tmux.objects.server import Tmux, check_channel
from ..tmux.policy.limits import WAIT_MAX_ENV, effective_timeout, wait_ceiling

DEFAULT_CHANNEL_TIMEOUT = 30.0


class ChannelTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def wait_for_channel(
        self, call: Call, params: WaitForChannelInput
    ) -> WaitForChannelOutput:
        channel = check_channel(params.channel)
        # The schema has no null; the model's None would only mean "not given".
        timeout = DEFAULT_CHANNEL_TIMEOUT if params.timeout is None else params.timeout
        if math.isnan(timeout) or timeout <= 0:
            raise InvalidArgument(
                "timeout",
                timeout,
                "is not a positive number of seconds",
                "Pass the seconds to wait, e.g. 30, or leave it out.",
            )
        limit = effective_timeout(timeout, self.tmux.environ)
        server = self.tmux.server(params.socket_name)
        signalled = await server.wait_for(channel, limit)
        if signalled:
            return WaitForChannelOutput(result=f"Channel {channel!r} was signalled.")
        clamped = (
            f" (the timeout of {timeout:g} s was capped by {WAIT_MAX_ENV}="
            f"{wait_ceiling(self.tmux.environ):g})"
            if limit < timeout
            else ""
        )
        raise ToolError(
            f"Channel {channel!r} was not signalled within {limit:g} s{clamped} on tmux "
            f"{server.socket}; the wait was ended. Check that whatever should signal it runs "
            "`tmux wait-for -S` on this socket with exactly this channel name, then call "
            "wait_for_channel again. tmux gives the channel's next signal to the wait that "
            "just ended unless another wait is pending, so a signal sent before the new wait "
            "starts is lost: send it after."
        )

    async def signal_channel(self, call: Call, params: SignalChannelInput) -> SignalChannelOutput:
        channel = check_channel(params.channel)
        server = self.tmux.server(params.socket_name)
        await server.signal_channel(channel)
        return SignalChannelOutput(result=f"Channel {channel!r} signalled.")
