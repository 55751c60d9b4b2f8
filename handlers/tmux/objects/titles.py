"""The one check of a pane title before ``select-pane -T`` sees it.

tmux (3.3a) keeps the old title, without an error, when the new one holds a control
character (newline, tab, escape, C1); so such a title is refused up front, and a
call that reports success has really changed the title. NUL never gets here: the
text rule refuses it before any handler runs.
"""

from __future__ import annotations

import unicodedata

from ....errors import InvalidArgument


def check_title(title: str, field: str = "title") -> str:
    """``title`` unchanged, or ``InvalidArgument`` naming ``field`` and the first control
    character in it."""
    bad = next((ch for ch in title if unicodedata.category(ch) == "Cc"), None)
    if bad is not None:
        raise InvalidArgument(
            field,
            title,
            f"contains the control character {bad!r}, which tmux does not accept in a "
            "title (it would keep the old title)",
            "Remove newlines, tabs and other control characters from the title.",
        )
    return title
