"""tmux formats on the wire: one request for many fields, parsed back into rows.

Fields are joined by a control character no tmux id or number contains;
a value that itself holds a newline (a pane title can) is rejoined. A value of
ours passed where tmux expands formats is spelled so that expansion gives it back
(``literal_format``). What the rows mean is the objects layer's (``objects.rows``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache

SEP = "\x1f"

_HASH_RUN = re.compile(r"(#+)(\[?)")


def format_of(fields: Sequence[str]) -> str:
    """The ``-F`` format asking for ``fields``; names are ours, never a user's."""
    return SEP.join(f"#{{{name}}}" for name in fields)


def parse_rows(lines: Iterable[str], fields: Sequence[str]) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    pending: str | None = None
    want = len(fields) - 1
    for line in lines:
        pending = line if pending is None else f"{pending}\n{line}"
        if pending.count(SEP) >= want:
            values = pending.split(SEP, want)
            rows.append(dict(zip(fields, values, strict=True)))
            pending = None
    return rows


def as_int(value: str) -> int | None:
    try:
        return int(value)
    except ValueError:
        return None


_FLAGS = {"1": True, "0": False}


def as_flag(value: str) -> bool | None:
    return _FLAGS.get(value)


@cache
def cached_format(fields: Sequence[str]) -> str:
    """The ``-F`` format asking for ``fields`` (a tuple), built once per tuple."""
    return format_of(fields)


def literal_format(text: str) -> str:
    """``text`` spelled so that one pass of tmux's format expansion gives ``text`` back.

    For a user value passed where tmux expands formats although it is a name or a path:
    in 3.3a ``rename-window``, ``rename-session``, ``new-window -n``, ``new-session -s``
    and ``load-buffer``'s path all do, so ``#{...}`` would be replaced and ``#(...)``
    would run a shell command. Every ``#`` is doubled, except a run of ``#`` right
    before ``[`` (a style), which tmux copies through unchanged.
    """
    return _HASH_RUN.sub(lambda m: m.group(0) if m.group(2) else m.group(1) * 2, text)


# tmux (3.3a) counts every attached client, this process's own included, in these
# variables: session_attached, session_attached_list, session_many_attached, their
# session_group_* forms, window_active_clients and window_active_clients_list.
_CLIENT_COUNTING = re.compile(r"session_(?:group_)?(?:many_)?attached|window_active_clients")


def counts_clients(text: str) -> bool:
    """Whether a format (or a variable name) may name a variable that counts attached clients.

    Matched anywhere in the text, so a false alarm only costs the caller a slower path.
    """
    return _CLIENT_COUNTING.search(text) is not None
