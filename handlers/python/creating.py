"""Creating sessions, windows and panes; setting options and environment; pipes and pastes.

Every user value reaches tmux as an argument of its own, and none of them is run:

- tmux 3.3a expands ``new-session -s``, ``-n`` and ``-c`` as formats (``#{...}`` is
  replaced, ``#(cmd)`` runs ``cmd``), so names and directories go through
  ``formats.literal_format``. ``-e`` values, option values, environment values and
  buffer names are not expanded.
- Option and variable names and values follow ``--``, so one starting with ``-`` is
  not read as a flag.
- ``pipe-pane`` runs its argument with ``sh -c`` after expanding it as a format and
  with ``strftime``. The command is ours (``cat >> FILE``); the path is quoted for the
  shell, then ``#`` and ``%`` are escaped for tmux.
- ``split_window``'s ``shell`` is the one value that is a command by contract.

New sessions, windows and panes are created in the background (``-d``) and described
from tmux's own ``-P -F`` reply, so creating one takes a single tmux command.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping

import anyio

from ...errors import InvalidArgument
from ...generated.python.models.create_session import CreateSessionInput, CreateSessionOutput
from ...generated.python.models.create_window import CreateWindowInput, CreateWindowOutput
from ...generated.python.models.paste_buffer import PasteBufferInput, PasteBufferOutput
from ...generated.python.models.pipe_pane import PipePaneInput, PipePaneOutput
from ...generated.python.models.set_environment import (
    SetEnvironmentInput,
    SetEnvironmentOutput,
)
from ...generated.python.models.set_option import SetOptionInput, SetOptionOutput
from ...generated.python.models.split_window import SplitWindowInput, SplitWindowOutput
from ..tmux.errors import CommandFailed, TmuxError
from ..tmux.objects import layouts, settings, spawn
from ..tmux.objects.pane import ACTIVE_ONLY
from ..tmux.objects.rows import PANE_FORMAT, pane_rows
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.spawn import (
    check_session_name,
    check_variable_name,
    environment_args,
    no_nul,
    spawn_environment,
    start_directory,
)
from ..tmux.objects.targets import WindowSelector
from ..tmux.transport.formats import format_of, literal_format, parse_rows
from ..tmux.transport.ssh import remote_for
from .config import on_target, target_flags
from .reading import no_buffer
from .shapes import pane_fields

MAX_CELLS = layouts.WINDOW_MAXIMUM  # tmux's largest window size

# Fields of the -P -F replies. A name may hold a newline, so no name comes last
# (parse_rows rejoins a row split inside any field but the last).
SESSION_REPLY = (
    "session_id",
    "session_name",
    "session_windows",
    "session_attached",
    "session_created",
    "pane_id",
)
WINDOW_REPLY = (
    "window_id",
    "window_name",
    "window_index",
    "session_id",
    "session_name",
    "window_panes",
    "window_layout",
    "window_active",
    "window_width",
    "window_height",
    "pane_id",
)

SPLIT_FLAGS: dict[str | None, tuple[str, ...]] = {None: (), **spawn.SPLIT_FLAGS}
SIZE = re.compile(r"^([0-9]+)(%?)\Z")


def check_cells(field: str, value: int | None) -> list[str]:
    """``-x``/``-y`` for new-session: the field names its own flag."""
    return spawn.check_cells(field, f"-{field}", value)


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


async def spawn_args(
    environ: Mapping[str, str],
    directory: str | None,
    environment: dict[str, str] | str | None,
    quiet_history: bool | None,
) -> list[str]:
    """``-c`` and ``-e`` for a command that starts a process."""
    variables = spawn_environment(environment, quiet_history=bool(quiet_history))
    args = []
    if directory is not None:
        args += ["-c", literal_format(await start_directory(directory, environ))]
    return args + environment_args(variables)


def created(server: Server, what: str, lines: list[str], fields: tuple[str, ...]) -> dict[str, str]:
    rows = parse_rows(lines, fields)
    if len(rows) != 1:
        raise TmuxError(
            f"tmux on {server.socket} created a {what} but did not say which "
            f"(it answered {lines!r}). Call list_sessions or list_windows to find it."
        )
    return rows[0]


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


class CreatingTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    # --- create_session ----------------------------------------------------------------

    async def create_session(self, params: CreateSessionInput) -> CreateSessionOutput:
        args = ["new-session", "-d", "-P", "-F", format_of(SESSION_REPLY)]
        if params.session_name is not None:
            args += ["-s", literal_format(check_session_name(params.session_name))]
        if params.window_name is not None:
            args += ["-n", literal_format(no_nul("window_name", params.window_name))]
        args += check_cells("x", params.x) + check_cells("y", params.y)
        args += await spawn_args(
            self.tmux.environ,
            params.start_directory,
            params.environment,
            params.suppress_persistent_history,
        )
        server = self.tmux.server(params.socket_name)
        try:
            lines = await server.run(*args)
        except CommandFailed as exc:
            if "duplicate session" in exc.stderr:
                raise TmuxError(
                    f"A session named {params.session_name!r} already exists on tmux "
                    f"{server.socket}. Pick another session_name, or use that session "
                    "(list_sessions shows it)."
                ) from None
            raise
        row = created(server, "session", lines, SESSION_REPLY)
        return CreateSessionOutput(
            session_id=row["session_id"],
            session_name=row["session_name"],
            window_count=int(row["session_windows"] or 0),
            session_attached=row["session_attached"],
            session_created=row["session_created"] or None,
            active_pane_id=row["pane_id"] or None,
        )

    # --- create_window -----------------------------------------------------------------

    async def create_window(self, params: CreateWindowInput) -> CreateWindowOutput:
        selector = WindowSelector(session_name=params.session_name, session_id=params.session_id)
        args = ["new-window", "-P", "-F", format_of(WINDOW_REPLY)]
        if not params.attach:
            args.append("-d")
        if params.window_name is not None:
            args += ["-n", literal_format(no_nul("window_name", params.window_name))]
        args += await spawn_args(
            self.tmux.environ,
            params.start_directory,
            params.environment,
            params.suppress_persistent_history,
        )
        server = self.tmux.server(params.socket_name)
        current = (await selector.resolve_window(server, ACTIVE_ONLY)).active_pane
        session_id = current.session_id
        if params.direction is None:
            args += ["-t", f"{session_id}:"]  # the first free index
        else:
            place = "-a" if params.direction == "after" else "-b"
            args += [place, "-t", f"{session_id}:{current['window_index']}"]
        row = created(server, "window", await server.run(*args), WINDOW_REPLY)
        return CreateWindowOutput(
            window_id=row["window_id"],
            window_name=row["window_name"],
            window_index=row["window_index"],
            session_id=row["session_id"],
            session_name=row["session_name"],
            pane_count=int(row["window_panes"] or 0),
            window_layout=row["window_layout"] or None,
            window_active=row["window_active"],
            window_width=row["window_width"],
            window_height=row["window_height"],
            active_pane_id=row["pane_id"] or None,
        )

    # --- split_window ------------------------------------------------------------------

    async def split_window(self, params: SplitWindowInput) -> SplitWindowOutput:
        selector = WindowSelector(
            params.window_id, params.window_index, params.session_name, params.session_id
        )
        args = ["split-window", "-d", "-P", "-F", PANE_FORMAT, *SPLIT_FLAGS[params.direction]]
        args += split_size(params.size)
        args += await spawn_args(
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
        args += ["-t", pane.pane_id]
        if params.shell is not None:
            args += ["--", params.shell]
        try:
            lines = await server.run(*args)
        except CommandFailed as exc:
            if any(text in exc.stderr for text in ("no space", "too small", "too big")):
                raise TmuxError(
                    f"Pane {pane.pane_id} on tmux {server.socket} is too small to split "
                    f"{params.direction or 'below'}"
                    + (f" with size {params.size!r}" if params.size is not None else "")
                    + f" (tmux: {exc.stderr}). Pass a smaller size, split another pane, or "
                    "make the window bigger (resize_window)."
                ) from None
            raise
        rows = pane_rows(lines)
        if len(rows) != 1:
            raise TmuxError(
                f"tmux on {server.socket} split pane {pane.pane_id} but did not say into "
                f"which pane (it answered {lines!r}). Call list_panes to find it."
            )
        return SplitWindowOutput(**pane_fields(server, rows[0]))

    # --- set_option --------------------------------------------------------------------

    async def set_option(self, params: SetOptionInput) -> SetOptionOutput:
        name = settings.check_option_name(params.option, "option")
        value = no_nul("value", params.value)
        server = self.tmux.server(params.socket_name)
        flags = list(settings.scope_flags(params.scope))
        if params.global_:
            flags.append("-g")
        scoped = not params.global_ and params.scope != "server"
        flags += await target_flags(server, params.target, default=scoped)
        try:
            await on_target(
                server, params.target, server.run("set-option", *flags, "--", name, value)
            )
        except CommandFailed as exc:
            raise option_error(server, params, exc) from None
        return SetOptionOutput(option=params.option, value=params.value, status="set")

    # --- set_environment ---------------------------------------------------------------

    async def set_environment(self, params: SetEnvironmentInput) -> SetEnvironmentOutput:
        name = check_variable_name("name", no_nul("name", params.name))
        value = no_nul("value", params.value)
        server = self.tmux.server(params.socket_name)
        session_id = None  # the global environment
        if params.session_id is not None or params.session_name is not None:
            selector = WindowSelector(
                session_name=params.session_name, session_id=params.session_id
            )
            session_id = (await selector.resolve_window(server, ACTIVE_ONLY)).active_pane.session_id
        scope = ("-g",) if session_id is None else ("-t", session_id)
        await server.run("set-environment", *scope, "--", name, value)
        return SetEnvironmentOutput(name=params.name, value=params.value, status="set")

    # --- pipe_pane ---------------------------------------------------------------------

    async def pipe_pane(self, params: PipePaneInput) -> PipePaneOutput:
        selector = WindowSelector(params.window_id, None, params.session_name, params.session_id)
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

    # --- paste_buffer ------------------------------------------------------------------

    async def paste_buffer(self, params: PasteBufferInput) -> PasteBufferOutput:
        name = no_nul("buffer_name", params.buffer_name)
        selector = WindowSelector(params.window_id, None, params.session_name, params.session_id)
        server = self.tmux.server(params.socket_name)
        pane = await selector.resolve_pane(server, params.pane_id)
        args = ["paste-buffer", "-b", name, "-t", pane.pane_id]
        if params.bracket:
            args.append("-p")
        try:
            await server.run(*args)
        except CommandFailed as exc:
            if "no buffer" in exc.stderr:
                raise no_buffer(server, name) from None
            raise
        return PasteBufferOutput(result=f"Pasted buffer {name!r} into pane {pane.pane_id}.")


def option_error(server: Server, params: SetOptionInput, exc: CommandFailed) -> TmuxError:
    """tmux's refusal of a set-option, worded for the agent."""
    if "invalid option" in exc.stderr or "unknown option" in exc.stderr:
        return TmuxError(
            f"tmux on {server.socket} has no option named {params.option!r} (from `option`): "
            f"{exc.stderr}. Check the name (see `man tmux`, OPTIONS), or prefix a user "
            "option with '@'."
        )
    if "ambiguous option" in exc.stderr:
        return TmuxError(
            f"{params.option!r} (from `option`) matches several tmux options on "
            f"{server.socket} ({exc.stderr}). Pass the option's full name."
        )
    return TmuxError(
        f"tmux on {server.socket} refused {params.option}={params.value!r}: {exc.stderr}. "
        "Check the value against the option's type (see `man tmux`, OPTIONS), the scope "
        "and the target."
    )
