"""One tmux command that runs some commands or others, as a format reads at that moment.

``if-shell -F -t TARGET CONDITION THEN ELSE`` expands ``CONDITION`` against ``TARGET``
(no shell runs) and queues the branch it picks right after itself, so the branch runs
before any other client's command can: what the condition read is still so when the
branch acts. That is how a command is made to act only while a pane is in a state it
may act on, in the same round trip as the action (see ``objects.blocked``).

Each branch is a command list written by ``quoting.command_list``: tmux parses it when
the branch runs and expands nothing in it, so every argument arrives literally. tmux
counts a format as true when it is neither empty nor starts with ``0``.

What it answers: the ``if-shell`` itself prints nothing; the branch's commands print
what they print and fail as they fail (tmux skips the rest of a branch after a failure).
Over a control client that is one reply block for the ``if-shell`` and one per branch
command that ran; ``control`` ends such a reply with a fence line of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from .quoting import command_list

IF_FORMAT = ("if-shell", "-F")


def if_format(
    target: str | None,
    condition: str,
    then: Sequence[Sequence[str]],
    otherwise: Sequence[Sequence[str]],
) -> tuple[str, ...]:
    """The command running ``then`` when ``condition`` (a format of ours, never a user's)
    reads true against ``target`` (None: tmux's current pane), else ``otherwise``."""
    aimed = ("-t", target) if target is not None else ()
    return (*IF_FORMAT, *aimed, condition, command_list(then), command_list(otherwise))


def is_if_format(args: Sequence[str]) -> bool:
    """Whether ``args`` is an ``if-shell`` as ``if_format`` writes it: its condition a format
    (``-F``), so no shell runs and it never waits."""
    return tuple(args[:2]) == IF_FORMAT
