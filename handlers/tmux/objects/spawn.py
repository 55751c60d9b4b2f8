"""What a command that starts a process in tmux takes from the agent: names, sizes,
directory, environment, all judged before any command runs, so a refused call changes nothing.

Names and directories are taken literally: tmux 3.3a expands ``new-session -s``, ``-n``
and ``-c`` as formats, so they go through ``literal_format``. Without a directory the
new shell starts in this process's working directory, as it does when the family runs
tmux as a subprocess of its own; with tmux on another host, where tmux puts it there.

``new-session``, ``new-window``, ``split-window`` and ``respawn-pane`` all take ``-c DIR``
and ``-e NAME=value``. tmux 3.3a expands ``-c`` as a format (pass the result of
``start_directory`` through ``transport.formats.literal_format``) and falls back to another
directory when it cannot enter the one given, so the path is checked here first, on the
host tmux runs on (see ``start_directory``).
``-e`` values are not expanded: they reach the process exactly as given.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

import anyio

from ....errors import InvalidArgument
from ..transport.formats import literal_format
from ..transport.ssh import remote_for
from .layouts import WINDOW_MAXIMUM

MAX_CELLS = WINDOW_MAXIMUM  # tmux's largest window size

# What suppress_persistent_history sets: the value each variable must have.
QUIET_HISTORY = {"HISTFILE": "", "fish_history": "", "fish_private_mode": "1"}
QUIET_HISTORY_HINT = {
    "HISTFILE": "leave it out or set it to an empty string",
    "fish_history": "leave it out or set it to an empty string",
    "fish_private_mode": "leave it out or set it to '1'",
}
ENVIRONMENT_HOW = 'Pass an object such as {"NAME": "value"}, or that object as a JSON string.'


def no_nul(field: str, value: str) -> str:
    """tmux arguments end at a NUL byte: a value holding one could not arrive whole."""
    if "\0" in value:
        raise InvalidArgument(
            field, value, "contains a NUL byte, which tmux cannot take", "Remove it."
        )
    return value


def is_control(char: str) -> bool:
    return ord(char) < 0x20 or ord(char) == 0x7F


def check_variable_name(field: str, name: str, shown: object = None) -> str:
    """An environment variable name: not empty, no ``=``, whitespace or control character."""
    if not name or "=" in name or any(is_control(c) or c.isspace() for c in name):
        raise InvalidArgument(
            field,
            name if shown is None else shown,
            "is not a variable name (it may not be empty or contain '=', whitespace or "
            "control characters)",
            "Use names such as PATH or MY_VAR.",
        )
    return name


def spawn_environment(
    given: Mapping[str, str] | str | None, *, quiet_history: bool, field: str = "environment"
) -> dict[str, str]:
    """The variables for a new process: ``given`` (an object, or one as a JSON string),
    checked, plus the history-suppressing ones when ``quiet_history``."""
    variables: dict[str, object]
    if given is None or (isinstance(given, str) and not given.strip()):
        variables = {}
    elif isinstance(given, str):
        try:
            decoded = json.loads(given)
        except ValueError:
            raise InvalidArgument(field, given, "is not a JSON object", ENVIRONMENT_HOW) from None
        if not isinstance(decoded, dict):
            raise InvalidArgument(field, given, "is not a JSON object", ENVIRONMENT_HOW)
        variables = dict(decoded)
    else:
        variables = dict(given)
    result: dict[str, str] = {}
    for name, value in variables.items():
        if not isinstance(value, str):
            raise InvalidArgument(
                field, {name: value}, "gives a value that is not a string", ENVIRONMENT_HOW
            )
        check_variable_name(field, name, {name: value})
        result[name] = no_nul(field, value)
    if quiet_history:
        for name, wanted in QUIET_HISTORY.items():
            if result.get(name, wanted) != wanted:
                raise InvalidArgument(
                    field,
                    {name: result[name]},
                    "contradicts suppress_persistent_history: true",
                    QUIET_HISTORY_HINT[name].capitalize()
                    + ", or drop suppress_persistent_history.",
                )
            result[name] = wanted
        control = [part for part in result.get("HISTCONTROL", "").split(":") if part]
        if "ignorespace" not in control and "ignoreboth" not in control:
            control.append("ignorespace")
        result["HISTCONTROL"] = ":".join(control)
    return result


def environment_args(variables: Mapping[str, str]) -> list[str]:
    """``-e NAME=value`` for each variable (tmux splits at the first ``=``)."""
    args: list[str] = []
    for name, value in variables.items():
        args += ["-e", f"{name}={value}"]
    return args


async def start_directory(
    given: str, environ: Mapping[str, str], field: str = "start_directory"
) -> str:
    """An existing directory of the host tmux runs on, as an absolute path.

    Here: ``~`` expanded, relative to our cwd. On another host (``--ssh``) the question
    goes there over the one ssh connection, as a fixed ``sh -c`` script that reads the
    path from its standard input (``transport.ssh.PATH_SCRIPT``: ``~`` is that host's home, a relative
    path is taken from it). A shell rather than tmux, since no tmux command tests a
    directory, and the script is constant text: the value never becomes shell syntax.
    """
    no_nul(field, given)
    remote = remote_for(environ)
    if remote is not None:
        found = await anyio.to_thread.run_sync(remote.path, given)
        if not found.is_dir:
            raise InvalidArgument(
                field,
                given,
                f"is not an existing directory on host {remote.target}",
                "Pass the path of a directory that exists on that host, or leave it out.",
            )
        return found.path
    path = os.path.abspath(os.path.expanduser(given))
    if not os.path.isdir(path):
        raise InvalidArgument(
            field,
            given,
            f"is not an existing directory (looked for {path})",
            "Pass the path of a directory that exists, or leave it out.",
        )
    return path


# split-window's flags for each side the new pane may go (typed to let a profile add
# its own entry for no side at all).
SPLIT_FLAGS: dict[str | None, tuple[str, ...]] = {
    "below": ("-v",),
    "above": ("-v", "-b"),
    "right": ("-h",),
    "left": ("-h", "-b"),
}


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
