"""Panes as objects: listing and describing them, finding one by position, and
selecting, splitting, resizing, swapping, titling, scrolling, piping, restarting,
clearing and killing one. (What a pane shows is ``pane_text``; what is typed into
it, ``pane_input``; waiting on it, ``pane_waits`` and ``pane_commands``.)

Every argument reaches tmux as an argument of its own. Some need more care:

- ``select-pane -T`` expands its title as a tmux format (3.3a): ``#{session_name}``
  would become the session's name and ``#(cmd)`` would run ``cmd``. The title is
  spelled with ``literal_format`` (every ``#`` doubled, except before ``[``),
  which the expansion turns back into the title itself.
- ``pipe-pane`` runs its argument with ``sh -c`` after expanding it as a format and
  with ``strftime``. The command is ours (``cat >> FILE``); the path is quoted for the
  shell, then ``#`` and ``%`` are escaped for tmux.
- ``split_window``'s ``shell`` is the one value that is a command by contract.

kill_pane and respawn_pane ask the guard (``tmux.policy.guard``) first; clear_pane
ends no process.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping, Sequence

import anyio

from ...errors import InvalidArgument, ToolError
from ...generated.python.models.clear_pane import ClearPaneInput, ClearPaneOutput
from ...generated.python.models.enter_copy_mode import EnterCopyModeInput, EnterCopyModeOutput
from ...generated.python.models.exit_copy_mode import ExitCopyModeInput, ExitCopyModeOutput
from ...generated.python.models.find_pane_by_position import (
    FindPaneByPositionInput,
    FindPaneByPositionOutput,
)
from ...generated.python.models.get_pane_info import GetPaneInfoInput, GetPaneInfoOutput
from ...generated.python.models.kill_pane import KillPaneInput, KillPaneOutput
from ...generated.python.models.list_panes import (
    ListPanesInput,
    ListPanesOutput,
    ListPanesOutputResultItem,
)
from ...generated.python.models.pipe_pane import PipePaneInput, PipePaneOutput
from ...generated.python.models.resize_pane import ResizePaneInput, ResizePaneOutput
from ...generated.python.models.respawn_pane import RespawnPaneInput, RespawnPaneOutput
from ...generated.python.models.select_pane import SelectPaneInput, SelectPaneOutput
from ...generated.python.models.set_pane_title import SetPaneTitleInput, SetPaneTitleOutput
from ...generated.python.models.split_window import SplitWindowInput, SplitWindowOutput
from ...generated.python.models.swap_pane import SwapPaneInput, SwapPaneOutput
from ...reply import Reply
from ...seam import Call
from ..tmux.errors import GONE_DURING_CALL, CommandFailed
from ..tmux.objects import layouts, spawn
from ..tmux.objects.deadpanes import dead_notes
from ..tmux.objects.rows import PANE_FORMAT, PaneRow, each_pane_once, pane_rows
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.spawn import environment_args, no_nul, spawn_environment, start_directory
from ..tmux.objects.targets import check_pane_id
from ..tmux.objects.titles import check_title
from ..tmux.objects.window import CORNER_ONLY, WindowPanes
from ..tmux.policy import Guard
from ..tmux.transport.formats import literal_format
from ..tmux.transport.ssh import remote_for
from .arguments import spawn_args
from .filters import Filters
from .rows import ROW_FIELDS, SHAPE_FIELDS, pane_fields
from .targets import in_session, selector_of, session_target, target_pane

MAX_CELLS = layouts.WINDOW_MAXIMUM  # tmux's largest window size

SPLIT_FLAGS: dict[str | None, tuple[str, ...]] = {None: (), **spawn.SPLIT_FLAGS}

SIZE = re.compile(r"^([0-9]+)(%?)\Z")


class PaneTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def list_panes(self, call: Call, params: ListPanesInput) -> Reply[ListPanesOutput]:
        keep = Filters.parse(params.filters, ListPanesOutputResultItem)
        session_id, session_name = session_target(params.session_id, params.session_name)
        selector = selector_of(
            params.window_id,
            params.session_name,
            params.session_id,
            window_index=params.window_index,
        )
        server = self.tmux.server(params.socket_name)
        rows: Sequence[PaneRow]
        if selector.window_id is not None or selector.window_index is not None:
            rows = (await selector.resolve_window(server, fields=SHAPE_FIELDS)).panes
        elif session_id is not None or session_name is not None:
            rows = await server.list_panes("-a", fields=SHAPE_FIELDS)
            rows = each_pane_once(in_session(server, rows, session_id, session_name))
        else:
            rows = each_pane_once(await server.list_panes("-a", fields=ROW_FIELDS))
        kept = keep([pane_fields(server, row) for row in rows])
        shown = {row["pane_id"] for row in kept}
        return Reply(
            ListPanesOutput.model_validate({"result": kept}),
            notes=dead_notes(row for row in rows if row.pane_id in shown),
        )

    async def get_pane_info(self, call: Call, params: GetPaneInfoInput) -> Reply[GetPaneInfoOutput]:
        selector = selector_of(params.window_id, params.session_name, params.session_id)
        server = self.tmux.server(params.socket_name)
        row = await selector.resolve_pane(server, params.pane_id, SHAPE_FIELDS)
        return Reply(GetPaneInfoOutput(**pane_fields(server, row)), notes=dead_notes([row]))

    async def select_pane(self, call: Call, params: SelectPaneInput) -> SelectPaneOutput:
        if params.pane_id is None and params.direction is None:
            # The window fields only scope a move: alone they select nothing.
            raise ToolError(
                "select_pane needs `pane_id` or `direction`, and neither was given. Pass "
                "pane_id (such as '%1', from list_panes) to select that pane, or direction "
                "('up', 'down', 'left', 'right', 'last', 'next' or 'previous') to move from "
                "the active pane of the window that window_id, or window_index with "
                "session_name or session_id, names (by default the first session's active "
                "window). Nothing was run."
            )
        server = self.tmux.server(params.socket_name)
        pane_id = check_pane_id(params.pane_id) if params.pane_id is not None else None
        selector = selector_of(
            params.window_id,
            params.session_name,
            params.session_id,
            window_index=params.window_index,
        )
        window: WindowPanes | None = None
        if pane_id is not None:
            pane = server.pane(pane_id)
            if selector.window_id is not None:
                window = await pane.window_panes()
                if selector.window_id != window.window_id:
                    raise InvalidArgument(
                        "window_id",
                        selector.window_id,
                        f"does not hold pane {pane_id} (it is in {window.window_id})",
                        "Pass only pane_id, or a window_id that holds it.",
                    )
        else:
            window = await selector.resolve_window(server)
            pane = server.pane(window.active_pane.pane_id)
        row = await pane.select_pane(params.direction, SHAPE_FIELDS, window)
        return SelectPaneOutput(**pane_fields(server, row))

    async def find_pane_by_position(
        self, call: Call, params: FindPaneByPositionInput
    ) -> Reply[FindPaneByPositionOutput]:
        server = self.tmux.server(params.socket_name)
        selector = selector_of(
            params.window_id,
            params.session_name,
            params.session_id,
            window_index=params.window_index,
        )
        window = await selector.resolve_window(server, CORNER_ONLY[params.corner], SHAPE_FIELDS)
        row = window.corner(params.corner, server.socket)
        return Reply(FindPaneByPositionOutput(**pane_fields(server, row)), notes=dead_notes([row]))

    async def split_window(self, call: Call, params: SplitWindowInput) -> SplitWindowOutput:
        selector = selector_of(
            params.window_id,
            params.session_name,
            params.session_id,
            window_index=params.window_index,
        )
        options = [*SPLIT_FLAGS[params.direction], *split_size(params.size)]
        options += await spawn_args(
            self.tmux.environ,
            params.start_directory,
            params.environment,
            params.suppress_persistent_history,
        )
        if params.shell is not None and not no_nul("shell", params.shell).strip():
            raise InvalidArgument(
                "shell", params.shell, "is empty", "Pass a command, or leave it out for a shell."
            )
        server = self.tmux.server(params.socket_name)
        pane = await selector.resolve_pane(server, params.pane_id)
        shell = () if params.shell is None else (params.shell,)
        row = await server.pane(pane.pane_id).split_window(options, shell)
        return SplitWindowOutput(**pane_fields(server, row))

    async def resize_pane(self, call: Call, params: ResizePaneInput) -> ResizePaneOutput:
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

    async def set_pane_title(self, call: Call, params: SetPaneTitleInput) -> SetPaneTitleOutput:
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

    async def swap_pane(self, call: Call, params: SwapPaneInput) -> SwapPaneOutput:
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

    async def enter_copy_mode(self, call: Call, params: EnterCopyModeInput) -> EnterCopyModeOutput:
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

    async def exit_copy_mode(self, call: Call, params: ExitCopyModeInput) -> ExitCopyModeOutput:
        server = self.tmux.server(params.socket_name)
        pane = await _target_pane(server, params)
        # -q leaves copy mode or any other mode; a pane in no mode is left alone.
        await server.run("copy-mode", "-q", "-t", pane.pane_id)
        row = await server.pane(pane.pane_id).row(note=GONE_DURING_CALL)
        return ExitCopyModeOutput(**pane_fields(server, row))

    async def pipe_pane(self, call: Call, params: PipePaneInput) -> PipePaneOutput:
        selector = selector_of(params.window_id, params.session_name, params.session_id)
        path = (
            await output_file(params.output_path, self.tmux.environ)
            if params.output_path is not None
            else None
        )
        server = self.tmux.server(params.socket_name)
        pane = await selector.resolve_pane(server, params.pane_id)
        if path is None:
            piping = await server.run("display-message", "-p", "-t", pane.pane_id, "#{pane_pipe}")
            await server.run("pipe-pane", "-t", pane.pane_id)
            if piping != ["1"]:
                return PipePaneOutput(
                    result=f"Pane {pane.pane_id} was not being piped; nothing to stop."
                )
            return PipePaneOutput(result=f"Stopped piping pane {pane.pane_id}.")
        await server.run("pipe-pane", "-t", pane.pane_id, pipe_command(path, bool(params.append)))
        how = "appending to" if params.append else "overwriting"
        return PipePaneOutput(result=f"Piping pane {pane.pane_id} output to {path} ({how} it).")

    async def respawn_pane(self, call: Call, params: RespawnPaneInput) -> RespawnPaneOutput:
        pane_id = check_pane_id(params.pane_id)
        environment = spawn_environment(
            params.environment, quiet_history=params.suppress_persistent_history is True
        )
        options: list[str] = []
        if params.start_directory is not None:
            # tmux expands -c as a format (3.3a runs #(...) in it): spell it literally.
            options += [
                "-c",
                literal_format(await start_directory(params.start_directory, self.tmux.environ)),
            ]
        options += environment_args(environment)
        if params.shell is not None:
            # After "--", a command starting with '-' is not read as a flag.
            options += ["--", no_nul("shell", params.shell)]
        server = self.tmux.server(params.socket_name)
        await Guard(server, self.tmux.environ).pane("respawn_pane", pane_id)
        pane = server.pane(pane_id)
        row = await pane.respawn_pane(
            kill=params.kill is not False, kill_field="kill", options=options
        )
        return RespawnPaneOutput(**pane_fields(server, row))

    async def clear_pane(self, call: Call, params: ClearPaneInput) -> ClearPaneOutput:
        """``send-keys -R`` resets the terminal (blank screen, home cursor), then
        ``clear-history`` drops the scrollback, including what the reset pushed there;
        pipelined, so little output can land between the two."""
        server = self.tmux.server(params.socket_name)
        selector = selector_of(params.window_id, params.session_name, params.session_id)
        pane_id = await target_pane(server, params.pane_id, selector)
        await server.pane(pane_id).run(
            ("send-keys", "-R", "-t", pane_id), ("clear-history", "-t", pane_id)
        )
        return ClearPaneOutput(result=f"Pane cleared: {pane_id}")

    async def kill_pane(self, call: Call, params: KillPaneInput) -> KillPaneOutput:
        pane_id = check_pane_id(params.pane_id)
        server = self.tmux.server(params.socket_name)
        await Guard(server, self.tmux.environ).pane("kill_pane", pane_id)
        await server.pane(pane_id).kill_pane()
        return KillPaneOutput(result=f"Pane killed: {pane_id}")


def split_size(size: str | int | None) -> list[str]:
    """``-l`` for split_window: cells, or a percentage of the split pane."""
    if size is None:
        return []
    match = SIZE.match(size) if isinstance(size, str) else None
    if isinstance(size, int) and not isinstance(size, bool):
        cells, percent = size, ""
    elif match:
        cells, percent = int(match[1]), match[2]
    else:
        cells, percent = 0, "?"
    if percent == "?" or cells < 1 or (percent and cells > 100) or cells > MAX_CELLS:
        raise InvalidArgument(
            "size",
            size,
            f"is not a size (a number of cells from 1 to {MAX_CELLS}, or a percentage from "
            "1% to 100%)",
            'Pass e.g. 10 or "30%", or leave it out for half of the pane.',
        )
    return ["-l", f"{cells}{percent}"]


def pipe_command(path: str, append: bool) -> str:
    """``cat`` into ``path``, spelled so that tmux's format and strftime expansion give
    back the shell command, in which the quoted path is one word."""
    command = f"cat {'>>' if append else '>'} {shlex.quote(path)}"
    return literal_format(command).replace("%", "%%")


async def output_file(given: str, environ: Mapping[str, str]) -> str:
    """The file pipe-pane's ``cat`` writes, checked on the host tmux runs on (over ssh
    as ``spawn.start_directory`` checks a directory there)."""
    no_nul("output_path", given)
    if not given.strip():
        raise InvalidArgument(
            "output_path", given, "is empty", "Pass a file path, or null to stop piping."
        )
    remote = remote_for(environ)
    if remote is None:
        path = os.path.abspath(os.path.expanduser(given))
        is_dir, parent_is_dir, where = os.path.isdir(path), os.path.isdir(os.path.dirname(path)), ""
    else:
        found = await anyio.to_thread.run_sync(remote.path, given)
        path, is_dir, parent_is_dir = found.path, found.is_dir, found.parent_is_dir
        where = f" on host {remote.target}"
    if is_dir:
        raise InvalidArgument(
            "output_path", given, f"is a directory ({path}){where}", "Pass the path of a file."
        )
    if not parent_is_dir:
        raise InvalidArgument(
            "output_path",
            given,
            f"is in a directory that does not exist ({os.path.dirname(path)}){where}",
            "Create the directory first, or pick a file in one that exists.",
        )
    return path


async def _target_pane(
    server: Server,
    params: ResizePaneInput | SetPaneTitleInput | EnterCopyModeInput | ExitCopyModeInput,
) -> PaneRow:
    """The pane a call names: pane_id, else the active pane of window_id, else of the
    session (a session_name beside a session_id agrees with it), else of the first session."""
    selector = selector_of(params.window_id, params.session_name, params.session_id)
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
