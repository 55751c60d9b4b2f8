"""Every python tool that takes ``session_id`` and ``session_name`` checks the pair first.

libtmux-mcp's target fields let a call name a session twice. Rather than let
one field silently win in some tools and be refused in others, every tool
method runs ``targets.check_session_pair`` before its own work: agreeing
values pass, a pair naming two sessions (or a field naming none) is refused
with both named, after one read-only lookup.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..compose import Method, Wrap
from ..tmux.objects.server import Tmux
from ..tmux.objects.targets import (
    check_pane_id,
    check_session_pair,
    check_window_id,
    check_window_index,
)

ID_SHAPES: dict[str, Callable[[str], str]] = {
    "pane_id": check_pane_id,
    "window_id": check_window_id,
    "window_index": check_window_index,
}
"""Fields whose shape is checked before the lookup, so a malformed call runs nothing."""


def _given(params: Any, field: str) -> str | None:
    value = getattr(params, field, None)
    return value if isinstance(value, str) else None  # None, or a model's MISSING


def session_pair_check(tmux: Tmux) -> Wrap:
    """The ``wrap`` for ``compose``: a tool method that checks the pair before it runs.

    Only tool methods are wrapped (``compose``'s ``wrapped``): resource, prompt and
    completion methods take other parameters.
    """

    def wrap(name: str, method: Method) -> Method:
        @functools.wraps(method)
        async def call(params: Any) -> Any:
            session_id = _given(params, "session_id")
            session_name = _given(params, "session_name")
            if session_id is not None and session_name is not None:
                for field, check in ID_SHAPES.items():
                    value = _given(params, field)
                    if value is not None:
                        check(value)
                server = tmux.server(_given(params, "socket_name"))
                await check_session_pair(server, session_id, session_name)
            return await method(params)

        return call

    return wrap
