"""Errors a handler raises to answer the agent with ``isError: true``.

The message is the whole answer: it names what was wrong (the field, the
target and the socket) and what to do next. The runtime never adds to it.
"""

from __future__ import annotations


class ToolError(Exception):
    """A failure the agent should read and act on."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidArgument(ToolError):
    """An argument that passed the schema but cannot be used (e.g. ``pane_id: "abc"``)."""

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
