"""Every python tool that takes ``session_id`` and ``session_name`` checks the pair first.

libtmux-mcp's target fields let a call name a session twice. Rather than let
one field silently win in some tools and be refused in others, every tool
method runs ``targets.check_session_pair`` before its own work: agreeing
values pass, a pair naming two sessions (or a field naming none) is refused
with both named, after one read-only lookup.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

from ..tmux.targets import check_pane_id, check_session_pair, check_window_id, check_window_index

H = TypeVar("H", bound=type)
Method = Callable[[Any, Any], Awaitable[Any]]

ID_SHAPES: dict[str, Callable[[str], str]] = {
    "pane_id": check_pane_id,
    "window_id": check_window_id,
    "window_index": check_window_index,
}
"""Fields whose shape is checked before the lookup, so a malformed call runs nothing."""


def _given(params: Any, field: str) -> str | None:
    value = getattr(params, field, None)
    return value if isinstance(value, str) else None  # None, or a model's MISSING


def _checked(method: Method) -> Method:
    @functools.wraps(method)
    async def call(self: Any, params: Any) -> Any:
        session_id, session_name = _given(params, "session_id"), _given(params, "session_name")
        if session_id is not None and session_name is not None:
            for field, check in ID_SHAPES.items():
                value = _given(params, field)
                if value is not None:
                    check(value)
            server = self.tmux.server(_given(params, "socket_name"))
            await check_session_pair(server, session_id, session_name)
        return await method(self, params)

    return call


def session_pair_checked(methods: Iterable[str]) -> Callable[[H], H]:
    """Wrap each tool method (named by the registry) on the decorated handler class.

    Resource, prompt and completion methods take other parameters and are left alone.
    """

    def decorate(cls: H) -> H:
        for name in sorted(methods):
            setattr(cls, name, _checked(getattr(cls, name)))
        return cls

    return decorate
