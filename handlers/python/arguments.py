"""What the python profile's arguments take beyond their schemas: text tmux can type,
timeouts that are numbers, caps left unset, what a new process gets.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ...errors import InvalidArgument
from ..tmux.objects.spawn import environment_args, spawn_environment, start_directory
from ..tmux.transport.formats import literal_format

NO_CAP = 1 << 62


def typeable(field: str, value: str, *, nul: bool = False) -> str:
    """Refuse what cannot travel to tmux as an argument: NUL, and lone surrogates."""
    if not nul and "\0" in value:
        raise InvalidArgument(
            field,
            value,
            "contains a NUL character, which tmux cannot type",
            "Remove it (send the key name C-@ with literal false to type a NUL).",
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgument(
            field,
            value,
            "is not valid Unicode text (it holds a lone surrogate)",
            "Send the text as proper UTF-8.",
        ) from None
    return value


def checked_timeout(field: str, value: float) -> float:
    if math.isnan(value):
        raise InvalidArgument(field, value, "is not a number", "Pass a number of seconds.")
    return value


def checked_cap(field: str, value: int | None, unset: str = "null for no cap") -> int:
    """A cap the caller may leave unset (None: no cap); zero or less is refused."""
    if value is None:
        return NO_CAP
    if value < 1:
        raise InvalidArgument(
            field, value, "must be 1 or more", f"Pass a positive number, or {unset}."
        )
    return value


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
