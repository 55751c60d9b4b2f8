"""Arranging panes and signalling: sizes, titles, swaps, copy mode, wait-for channels.

Every argument reaches tmux as an argument of its own. Two of them need more care:

- ``select-pane -T`` expands its title as a tmux format (3.3a): ``#{session_name}``
  would become the session's name and ``#(cmd)`` would run ``cmd``. The title is
  spelled with ``formats.literal_format`` (every ``#`` doubled, except before ``[``),
  which the expansion turns back into the title itself.
- A channel name is put after ``--`` so one starting with ``-`` is not read as a flag.
"""

from __future__ import annotations

import math

from ...errors import InvalidArgument, ToolError
from ...generated.python.models.enter_copy_mode import EnterCopyModeInput, EnterCopyModeOutput
from ...generated.python.models.exit_copy_mode import ExitCopyModeInput, ExitCopyModeOutput
from ...generated.python.models.resize_pane import ResizePaneInput, ResizePaneOutput
from ...generated.python.models.set_pane_title import SetPaneTitleInput, SetPaneTitleOutput
from ...generated.python.models.signal_channel import SignalChannelInput, SignalChannelOutput
from ...generated.python.models.swap_pane import SwapPaneInput, SwapPaneOutput
from ...generated.python.models.wait_for_channel import (
    WaitForChannelInput,
    WaitForChannelOutput,
)
from ..tmux.errors import GONE_DURING_CALL, CommandFailed
from ..tmux.objects import layouts
from ..tmux.objects.rows import PANE_FORMAT, PaneRow, pane_rows
from ..tmux.objects.server import Server, Tmux, check_channel
from ..tmux.objects.targets import WindowSelector, check_pane_id, check_session_id
from ..tmux.objects.titles import check_title
from ..tmux.policy.limits import WAIT_MAX_ENV, effective_timeout, wait_ceiling
from ..tmux.transport.formats import literal_format
from .shapes import pane_fields

MAX_CELLS = layouts.WINDOW_MAXIMUM  # tmux's largest window size
DEFAULT_CHANNEL_TIMEOUT = 30.0


class PaneTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    # --- sizes -------------------------------------------------------------------------

    async def resize_pane(self, params: ResizePaneInput) -> ResizePaneOutput:
        sizes = {"width": params.width, "height": params.height}
        given = [name for name, value in sizes.items() if value is not None]
        if params.zoom is not None and given:
            raise InvalidArgument(
                given[0],
                sizes[given[0]],
                "cannot be combined with zoom (zooming sets the pane's visible size itself)",
                "Call resize_pane twice: once with zoom, once with width/height.",
            )
        if params.zoom is None and not given:
            raise InvalidArgument(
                "width",
                None,
                "is missing, and so are height and zoom: there is nothing to change",
                "Pass width and/or height in cells, or zoom true/false.",
            )
        for name in given:
            value = sizes[name]
            assert value is not None
            if not 1 <= value <= MAX_CELLS:
                raise InvalidArgument(
                    name,
                    value,
                    f"is outside 1..{MAX_CELLS} cells",
                    "Pass a size the window can hold; get_window_info shows its size.",
                )
        server = self.tmux.server(params.socket_name)
        pane = await _target_pane(server, params)
        if params.zoom is not None:
            await _zoom(server, pane.pane_id, params.zoom)
            return ResizePaneOutput(
                **pane_fields(server, await server.pane(pane.pane_id).row(note=GONE_DURING_CALL))
            )
        args = ["resize-pane", "-t", pane.pane_id]
        if params.width is not None:
            args += ["-x", str(params.width)]
        if params.height is not None:
            args += ["-y", str(params.height)]
        row = await server.pane(pane.pane_id).run_then_read(args, note=GONE_DURING_CALL)
        return ResizePaneOutput(**pane_fields(server, row))

    # --- titles ------------------------------------------------------------------------

    async def set_pane_title(self, params: SetPaneTitleInput) -> SetPaneTitleOutput:
        title = check_title(params.title)
        server = self.tmux.server(params.socket_name)
        pane = await _target_pane(server, params)
        # select-pane -T expands its title as a format: spelled so it expands to itself.
        args = ["select-pane", "-t", pane.pane_id, "-T", literal_format(title)]
        row = await server.pane(pane.pane_id).run_then_read(args, note=GONE_DURING_CALL)
        if row["pane_title"] != title:
            raise ToolError(
                f"tmux did not take the title {title!r} for pane {pane.pane_id} on tmux "
                f"{server.socket}: its title is {row['pane_title']!r}. tmux refuses titles that "
                "are not valid UTF-8 text without control characters; pass a plain title."
            )
        return SetPaneTitleOutput(**pane_fields(server, row))

    # --- positions ---------------------------------------------------------------------

    async def swap_pane(self, params: SwapPaneInput) -> SwapPaneOutput:
        source = check_pane_id(params.source_pane_id, "source_pane_id")
        target = check_pane_id(params.target_pane_id, "target_pane_id")
        server = self.tmux.server(params.socket_name)
        # -d: which pane is active in each window stays as it was.
        swap = ("swap-pane", "-d", "-s", source, "-t", target)
        try:
            _, lines = await server.run_many(
                swap, ("display-message", "-p", "-t", source, PANE_FORMAT)
            )
        except CommandFailed as exc:
            if "can't find pane" in exc.stderr:
                named_target = exc.stderr.endswith(target) and not exc.stderr.endswith(source)
                missing = (
                    server.pane(target, "target_pane_id")
                    if named_target
                    else server.pane(source, "source_pane_id")
                )
                raise missing.not_found("nothing was swapped") from None
            raise
        rows = pane_rows(lines)
        if not rows or rows[0].pane_id != source:
            raise server.pane(source, "source_pane_id").not_found(
                "it went away right after the swap"
            )
        row = rows[0]
        return SwapPaneOutput(**pane_fields(server, row))

    # --- copy mode ---------------------------------------------------------------------

    async def enter_copy_mode(self, params: EnterCopyModeInput) -> EnterCopyModeOutput:
        if params.scroll_up is not None and params.scroll_up < 0:
            raise InvalidArgument(
                "scroll_up",
                params.scroll_up,
                "is negative",
                "Pass the number of lines to scroll up (0 or more), or leave it out.",
            )
        server = self.tmux.server(params.socket_name)
        pane = await _target_pane(server, params)
        await server.run("copy-mode", "-t", pane.pane_id)
        # Scrolling stops at the oldest line: more than the history would change nothing,
        # and a count past tmux's limit would be refused.
        lines = min(params.scroll_up or 0, pane.count("history_size"))
        if lines > 0:
            scroll = ("send-keys", "-t", pane.pane_id, "-X", "-N", str(lines), "scroll-up")
            row = await server.pane(pane.pane_id).run_then_read(scroll, note=GONE_DURING_CALL)
        else:
            row = await server.pane(pane.pane_id).row(note=GONE_DURING_CALL)
        return EnterCopyModeOutput(**pane_fields(server, row))

    async def exit_copy_mode(self, params: ExitCopyModeInput) -> ExitCopyModeOutput:
        server = self.tmux.server(params.socket_name)
        pane = await _target_pane(server, params)
        # -q leaves copy mode or any other mode; a pane in no mode is left alone.
        await server.run("copy-mode", "-q", "-t", pane.pane_id)
        row = await server.pane(pane.pane_id).row(note=GONE_DURING_CALL)
        return ExitCopyModeOutput(**pane_fields(server, row))

    # --- channels ----------------------------------------------------------------------

    async def wait_for_channel(self, params: WaitForChannelInput) -> WaitForChannelOutput:
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

    async def signal_channel(self, params: SignalChannelInput) -> SignalChannelOutput:
        channel = check_channel(params.channel)
        server = self.tmux.server(params.socket_name)
        await server.signal_channel(channel)
        return SignalChannelOutput(result=f"Channel {channel!r} signalled.")


# --- helpers ---------------------------------------------------------------------------


async def _target_pane(
    server: Server,
    params: ResizePaneInput | SetPaneTitleInput | EnterCopyModeInput | ExitCopyModeInput,
) -> PaneRow:
    """The pane a call names: pane_id, else the active pane of window_id, else of the
    session (a session_name beside a session_id agrees with it), else of the first session."""
    session_id = check_session_id(params.session_id) if params.session_id is not None else None
    session_name = params.session_name if session_id is None else None
    selector = WindowSelector(params.window_id, None, session_name, session_id)
    return await selector.resolve_pane(server, params.pane_id)


async def _zoom(server: Server, pane_id: str, zoom: bool) -> None:
    """Zoom ``pane_id`` (or unzoom its window); ``resize-pane -Z`` only toggles."""
    (flags,) = await server.run(
        "display-message", "-p", "-t", pane_id, "#{window_zoomed_flag} #{pane_active}"
    )
    window_zoomed = flags.startswith("1")
    toggle = ("resize-pane", "-Z", "-t", pane_id)
    if zoom and flags != "1 1":
        # A window zoomed on another pane is unzoomed first; zooming makes the pane active.
        await server.run_many(*([toggle, toggle] if window_zoomed else [toggle]))
    elif not zoom and window_zoomed:
        await server.run(*toggle)
