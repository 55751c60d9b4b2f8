"""What a tool that types into a pane may type, and which pane it types into.

Shared by send_keys, paste_text and run_command: the same refusals of
untypeable text, the same target fields, the same wording of a missing pane.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

from ...errors import InvalidArgument
from ..tmux.errors import CommandFailed, NotFound
from ..tmux.objects.pane import ACTIVE_ONLY
from ..tmux.objects.server import Server, Tmux
from ..tmux.objects.targets import (
    WindowSelector,
    check_pane_id,
    check_session_id,
    check_window_id,
)


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


def selector_of(
    window_id: str | None,
    session_name: str | None,
    session_id: str | None,
    prefix: str = "",
) -> WindowSelector:
    """The window selector of a call's target fields, shapes checked (a session_name beside
    a session_id agrees with it: see ``check_session_pair``)."""
    if window_id is not None:
        check_window_id(window_id, f"{prefix}window_id")
    if session_id is not None:
        check_session_id(session_id, f"{prefix}session_id")
        session_name = None
    return WindowSelector(window_id, None, session_name, session_id)


async def target_pane(server: Server, pane_id: str | None, selector: WindowSelector) -> str:
    """``pane_id`` as given (the command using it reports a missing pane), else the
    active pane of the selected window, else of the first session's active window."""
    if pane_id is not None:
        return pane_id
    return (await selector.resolve_window(server, ACTIVE_ONLY)).active_pane.pane_id


def no_pane(server: Server, pane_id: str) -> NotFound:
    return NotFound("pane", pane_id, socket=server.socket, field="pane_id")


async def on_pane(server: Server, pane_id: str, *commands: Sequence[str]) -> list[list[str]]:
    """Run ``commands`` (one round trip where the transport can) aimed at ``pane_id``."""
    try:
        return await server.run_many(*commands)
    except CommandFailed as exc:
        if exc.not_found:
            raise no_pane(server, pane_id) from None
        raise


def checked_timeout(field: str, value: float) -> float:
    if math.isnan(value):
        raise InvalidArgument(field, value, "is not a number", "Pass a number of seconds.")
    return value


class Targeted(Protocol):
    """The target fields of send_keys, paste_text and run_command."""

    @property
    def pane_id(self) -> str | None: ...
    @property
    def window_id(self) -> str | None: ...
    @property
    def session_name(self) -> str | None: ...
    @property
    def session_id(self) -> str | None: ...
    @property
    def socket_name(self) -> str | None: ...


async def aim(tmux: Tmux, params: Targeted) -> tuple[Server, str]:
    """The server and pane a typing call names, every field's shape checked first."""
    if params.pane_id is not None:
        check_pane_id(params.pane_id)
    selector = selector_of(params.window_id, params.session_name, params.session_id)
    server = tmux.server(params.socket_name)
    return server, await target_pane(server, params.pane_id, selector)
