"""Errors a handler raises to answer the agent with ``isError: true``.

The message is the whole answer: it names what was wrong (the field, the
target and the socket) and what to do next. The runtime never adds to it.
"""

from __future__ import annotations

# What a failure is, for profiles whose error text is the family's envelope
# (``{"message", "data": {"kind", "retryable", "stale"}}``): kinds a caller may retry
# as they are, and kinds that say the caller's view of tmux is out of date.
RETRYABLE_KINDS = frozenset({"timeout", "transport", "capacity", "unreachable"})
STALE_KINDS = frozenset({"object_gone"})


def envelope_data(kind: str) -> dict[str, object]:
    """The ``data`` of the family's envelope for a failure of ``kind``."""
    return {"kind": kind, "retryable": kind in RETRYABLE_KINDS, "stale": kind in STALE_KINDS}


class ToolError(Exception):
    """A failure the agent should read and act on.

    ``kind`` sorts it for profiles that send an error envelope: a subclass names its
    own, and a handler may name another for one failure (``kind="refused"``).
    """

    kind = "other"

    def __init__(self, message: str, *, kind: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if kind is not None:
            self.kind = kind


class InvalidArgument(ToolError):
    """An argument that passed the schema but cannot be used (e.g. ``pane_id: "abc"``)."""

    kind = "invalid_input"

    def __init__(self, field: str, value: object, rule: str, next_step: str) -> None:
        super().__init__(f"Invalid argument `{field}`: {shown(value)} {rule}. {next_step}")
        self.field = field


def shown(value: object, limit: int = 80) -> str:
    """A value as the agent sent it, cut short: an error must stay readable (and small)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 5]}...{text[-1]}"


class NotFound(ToolError):
    """The target a resource URI names does not exist (answered as resource-not-found).

    The message names the target and the tmux socket it was looked for on.
    """

    kind = "object_gone"
