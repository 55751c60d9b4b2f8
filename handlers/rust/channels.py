"""The rust profile's wait-for channels: signalling one, and waiting on one.

Both go through the tmux core's channel code (``Server.wait_for``), as in the other
profiles: the wait is a ``tmux wait-for`` client of its own that sleeps until tmux
answers, is killed at the deadline or on cancellation, and ends at once with an
error when the server goes. The family's wait lasts ``seconds`` (30 when omitted,
0 read as 1) up to 600; a longer one is refused rather than cut short silently.
"""

from __future__ import annotations

from ...errors import InvalidArgument
from ...generated.rust.models.signal_channel import SignalChannelInput, SignalChannelOutput
from ...generated.rust.models.wait_for_channel import WaitForChannelInput, WaitForChannelOutput
from ...seam import Call
from ..tmux.objects.server import Tmux, check_channel

DEFAULT_SECONDS = 30
MAX_SECONDS = 600


class ChannelTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def signal_channel(self, call: Call, params: SignalChannelInput) -> SignalChannelOutput:
        channel = check_channel(params.channel)
        await self.tmux.server().signal_channel(channel)
        return SignalChannelOutput(channel=channel)

    async def wait_for_channel(
        self, call: Call, params: WaitForChannelInput
    ) -> WaitForChannelOutput:
        channel = check_channel(params.channel)
        given = params.seconds
        seconds = wait_seconds(given if isinstance(given, int) else None)  # None or unsent
        server = self.tmux.server()
        signalled = await server.wait_for(channel, seconds)
        return WaitForChannelOutput.model_validate(
            {"channel": channel, "outcome": "signalled" if signalled else "deadline"}
        )


def wait_seconds(seconds: int | None) -> float:
    """How long a wait lasts: 30 s when not given, 0 read as 1, at most 600."""
    if seconds is None:
        return DEFAULT_SECONDS
    if seconds > MAX_SECONDS:
        raise InvalidArgument(
            "seconds",
            seconds,
            f"is more than the longest wait, {MAX_SECONDS} s",
            f"Pass 1 to {MAX_SECONDS}, or wait again after the first wait ends.",
        )
    return max(seconds, 1)
