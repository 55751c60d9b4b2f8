"""New sessions, windows and panes, and a pane restarted: the tmux side every profile shares.

Each is one tmux command answered with tmux's own ``-P -F`` description of what it
made, so a profile only reshapes a row. The rules the families agree on live here:

- Sessions, windows and panes are made in the background (``-d``): no client's view
  moves, and the pane that was split stays active.
- Names and directories are taken literally: tmux 3.3a expands ``new-session -s``,
  ``-n`` and ``-c`` as formats, so they go through ``literal_format``.
- Without a directory the new shell starts in this process's working directory, as it
  does when the family runs tmux as a subprocess of its own; with tmux on another host,
  where tmux puts it there (this directory means nothing on that host).
- Everything that can be judged without tmux (names, sizes, directories) is judged
  before any command runs, so a refused call changes nothing.
- A restart that would end the caller's own pane asks the self-protection guard first.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from ...errors import InvalidArgument, ToolError
from .core import Server
from .errors import GONE_DURING_CALL, CommandFailed, NotFound, Refused, TmuxError
from .formats import (
    PANE_FIELDS,
    SESSION_FORMAT,
    LinkRow,
    PaneRow,
    SessionRow,
    pane_rows,
    session_rows,
)
from .layouts import WINDOW_MAXIMUM
from .policy.guard import Guard
from .spawn import is_control, no_nul, start_directory
from .transport.formats import format_of, literal_format
from .transport.ssh import remote_for

MAX_CELLS = WINDOW_MAXIMUM  # tmux's largest window size

# split-window's flags for each side the new pane may go (typed to let a profile add
# its own entry for no side at all).
SPLIT_FLAGS: dict[str | None, tuple[str, ...]] = {
    "below": ("-v",),
    "above": ("-v", "-b"),
    "right": ("-h",),
    "left": ("-h", "-b"),
}
TOO_SMALL = ("no space", "too small", "too big")
SPLIT_FIELDS = (*PANE_FIELDS, "pane_start_path")
SPLIT_FORMAT = format_of(SPLIT_FIELDS)


def check_session_name(name: str, field: str = "session_name", *, optional: bool = True) -> str:
    """A name tmux keeps as given: 3.3a turns ``:`` and ``.`` into ``_`` and writes a
    backslash or control character as an escape, so a later exact match would fail."""
    bad = sorted({c for c in name if c in ":.\\" or is_control(c)})
    if not name or bad:
        rule = "is empty" if not name else f"contains {', '.join(map(repr, bad))}"
        other = ", or leave it out" if optional else ""
        raise InvalidArgument(
            field,
            name,
            f"{rule}; tmux would change such a name",
            f"Pick a name without ':', '.', '\\' or control characters{other}.",
        )
    return name


def check_cells(field: str, flag: str, value: int | None) -> list[str]:
    """``flag value`` for a size in cells, 1 to tmux's largest; nothing when not given."""
    if value is None:
        return []
    if not 1 <= value <= MAX_CELLS:
        raise InvalidArgument(
            field,
            value,
            f"is not between 1 and {MAX_CELLS}",
            "Pass a size in cells, or leave it out.",
        )
    return [flag, str(value)]


def check_percent(value: int | None, field: str = "percent") -> list[str]:
    """``-l N%`` for split-window: a share of the split pane, 1 to 100."""
    if value is None:
        return []
    if not 1 <= value <= 100:
        raise InvalidArgument(
            field,
            value,
            "is not a percentage from 1 to 100",
            "Pass e.g. 30 for 30% of the pane, or leave it out for half.",
        )
    return ["-l", f"{value}%"]


def split_flags(direction: str | None) -> tuple[str, ...]:
    return SPLIT_FLAGS[direction or "below"]


async def directory_args(given: str | None, field: str, environ: Mapping[str, str]) -> list[str]:
    """``-c DIR``: the directory given (checked on tmux's host, then spelled literally),
    else this process's own working directory; nothing when even that is gone, or when
    tmux runs on another host."""
    if given is not None:
        return ["-c", literal_format(await start_directory(given, environ, field))]
    if remote_for(environ) is not None:
        return []
    try:
        here = os.getcwd()
    except OSError:  # our directory was removed: let tmux pick
        return []
    return ["-c", literal_format(here)]


def literal_name(field: str, name: str | None) -> list[str]:
    """``-n NAME`` for a window name given literally; nothing when not given."""
    return [] if name is None else ["-n", literal_format(no_nul(field, name))]


def _one(rows: Sequence[object], server: Server, what: str, lines: list[str], lister: str) -> None:
    if len(rows) != 1:
        raise TmuxError(
            f"tmux on {server.socket} made a {what} but did not say which (it answered "
            f"{lines!r}). Call {lister} to find it."
        )


async def new_session(
    server: Server,
    name: str,
    *,
    field: str,
    options: Sequence[str] = (),
) -> SessionRow:
    """A detached session named ``name`` (checked by the caller); ``options`` are the
    further flags (``-n``, ``-c``, ``-x``, ``-y``), already checked."""
    args = ["new-session", "-d", "-P", "-F", SESSION_FORMAT, "-s", literal_format(name)]
    try:
        lines = await server.run(*args, *options)
    except CommandFailed as exc:
        if "duplicate session" in exc.stderr:
            raise InvalidArgument(
                field,
                name,
                f"is already the name of a session on tmux {server.socket}",
                "Pick another name, or use that session (list_sessions shows it). "
                "Nothing was created.",
            ) from None
        raise
    rows = session_rows(lines)
    _one(rows, server, "session", lines, "list_sessions")
    return rows[0]


async def new_window(
    server: Server,
    session_id: str,
    *,
    options: Sequence[str] = (),
    extra: Sequence[str] = (),
) -> LinkRow:
    """A window at the first free index of ``session_id``, in the background; its
    placement row (with the further ``extra`` fields, ours, in ``raw``).

    The row is read after the window exists: in ``new-window -P`` itself tmux 3.3a
    reports the new window as linked into several sessions.
    """
    args = ["new-window", "-d", "-P", "-F", "#{window_id}", "-t", f"{session_id}:"]
    try:
        lines = await server.run(*args, *options)
    except CommandFailed as exc:
        if "can't find session" in exc.stderr:
            raise NotFound(
                "session", session_id, socket=server.socket, note=GONE_DURING_CALL
            ) from None
        raise
    links = await server.list_links("-t", session_id, extra=extra) if lines else []
    rows = [row for row in links if row.window_id == lines[0]]
    _one(rows, server, "window", lines, "list_windows")
    return rows[0]


async def split(
    server: Server, pane_id: str, *, field: str, options: Sequence[str] = ()
) -> PaneRow:
    """The new pane from splitting ``pane_id`` (``options``: side, size, directory);
    the split pane stays active."""
    args = ["split-window", "-d", "-P", "-F", SPLIT_FORMAT, *options, "-t", pane_id]
    try:
        lines = await server.run(*args)
    except CommandFailed as exc:
        if "can't find pane" in exc.stderr:
            raise NotFound("pane", pane_id, socket=server.socket, field=field) from None
        if any(text in exc.stderr for text in TOO_SMALL):
            raise ToolError(
                f"Pane {pane_id} on tmux {server.socket} is too small to split that way "
                f"(tmux: {exc.stderr}). Split a bigger pane, ask for a smaller share, or make "
                "the window bigger. Nothing was created.",
                kind="refused",
            ) from None
        raise
    rows = pane_rows(lines, SPLIT_FIELDS)
    _one(rows, server, "pane", lines, "list_panes")
    raw = rows[0].raw
    # Until the new shell's process group is set up tmux reports no current path; the
    # shell is then still where it was started.
    if not raw["pane_current_path"]:
        raw["pane_current_path"] = raw["pane_start_path"]
    return rows[0]


async def respawn(
    server: Server,
    environ: Mapping[str, str],
    pane_id: str,
    *,
    kill: bool,
    guarded: bool,
    kill_field: str,
    field: str,
    options: Sequence[str] = (),
    override: str = "",
) -> PaneRow:
    """Rerun the pane's own command in it; ``kill`` ends a live process first, and then
    (when ``guarded``) never in the pane this process runs in; ``override`` tells a
    refused caller how the profile lifts that. The pane's row after."""
    if kill and guarded:
        try:
            await Guard(server, environ).pane("respawn_pane", pane_id)
        except Refused as exc:
            raise Refused(f"{exc.message} {override}".rstrip()) from None
    args = ["respawn-pane", "-t", pane_id, *(["-k"] if kill else []), *options]
    try:
        await server.run(*args)
    except CommandFailed as exc:
        if "can't find pane" in exc.stderr:
            raise NotFound("pane", pane_id, socket=server.socket, field=field) from None
        if "still active" in exc.stderr:
            raise ToolError(
                f"Pane {pane_id} on tmux {server.socket} still runs its process, so it was "
                f"not restarted. Pass {kill_field}: true to end that process first, or wait "
                "until it exits.",
                kind="refused",
            ) from None
        raise
    row = await server.pane(pane_id)
    if row is None:  # the command exited at once and the pane closed
        raise ToolError(
            f"Pane {pane_id} on tmux {server.socket} was restarted but closed at once: its "
            "command exited immediately. Set remain-on-exit on its window to keep such a pane "
            "open.",
            kind="partial_effect",
        )
    return row
