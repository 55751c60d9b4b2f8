"""Layouts ``select-layout`` may be given, checked before tmux sees them.

tmux 3.3a crashes, taking every session with it, on ``select-layout`` with a word that
is not a known layout (or a unique prefix of one) and does not start with a hex digit,
e.g. ``main`` or an empty string; so only the preset names this tmux knows and
well-formed layout strings with a correct checksum ever reach it. Messages name the
field ``layout`` and say how the profile's caller gets a saved layout string
(``saved``, e.g. "a window_layout string exactly as list_windows returned it").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ....errors import InvalidArgument, ToolError

# The preset layouts, and the tmux version that knows them.
LAYOUTS: dict[str, tuple[int, int]] = {
    "even-horizontal": (0, 0),
    "even-vertical": (0, 0),
    "main-horizontal": (0, 0),
    "main-horizontal-mirrored": (3, 5),
    "main-vertical": (0, 0),
    "main-vertical-mirrored": (3, 5),
    "tiled": (0, 0),
}
# A layout string: a 16-bit checksum in hex, then cells `WxH,X,Y` with a pane number
# or a `{...}` / `[...]` list of cells. tmux checks the structure itself.
LAYOUT_STRING = re.compile(r"^([0-9a-f]{4}),([0-9x,\[\]{}]+)\Z")
VERSION = re.compile(r"(\d+)\.(\d+)")

# tmux's bounds for a window's size, in cells (WINDOW_MINIMUM, WINDOW_MAXIMUM in tmux.h):
# no size, split or resize step a tool takes can mean more than the largest window.
WINDOW_MINIMUM = 1
WINDOW_MAXIMUM = 10000
RESIZE_FLAGS = {"up": "-U", "down": "-D", "left": "-L", "right": "-R"}
# Where the rust and swift families' callers get a saved layout (``saved`` above).
SAVED_BY_VARIABLE = (
    "a layout string exactly as the window_layout format variable gives it "
    '(get_tmux_variables with names ["window_layout"])'
)


def layout_shape(layout: str, saved: str) -> str:
    """A layout string with a correct checksum, or a name made of letters and '-'."""
    string = LAYOUT_STRING.fullmatch(layout)
    if string is not None:
        if int(string.group(1), 16) != layout_checksum(string.group(2)):
            raise InvalidArgument(
                "layout",
                layout,
                "is a layout string whose checksum does not match (it was changed or cut)",
                f"Pass {saved}.",
            )
        return layout
    if not re.fullmatch(r"[a-z-]+", layout):
        raise unknown_layout(layout, saved)
    return layout


def known_layout(layout: str, version: str, saved: str) -> str:
    """The preset ``layout`` names for a tmux of ``version`` (exact or unique prefix, as
    tmux matches), spelled out in full; a layout string is returned as it is."""
    if LAYOUT_STRING.fullmatch(layout):
        return layout
    here = tmux_version(version)
    known = [name for name, since in LAYOUTS.items() if here >= since]
    if layout in known:
        return layout
    matches = [name for name in known if name.startswith(layout)]
    if len(matches) == 1:
        return matches[0]
    newer = [name for name in LAYOUTS if name not in known and name.startswith(layout)]
    if not matches and (layout in newer or len(newer) == 1):
        raise too_new(layout, newer[0] if layout not in newer else layout, version, known)
    raise unknown_layout(layout, saved, known, matches)


def too_new(layout: str, name: str, version: str, known: Sequence[str]) -> ToolError:
    """``layout`` names the preset ``name``, which the tmux of ``version`` does not know."""
    major, minor = LAYOUTS[name]
    return ToolError(
        f"Invalid argument `layout`: {layout!r} names the preset {name}, which needs tmux "
        f"{major}.{minor} or newer; this tmux server runs {version}. Pick one of "
        f"{', '.join(known)}, or upgrade tmux.",
        kind="unsupported_version",
    )


def tmux_version(version: str) -> tuple[int, int]:
    """tmux's version as (major, minor); a build without one ('master') counts as newest."""
    found = VERSION.search(version)
    return (int(found.group(1)), int(found.group(2))) if found else (999, 0)


def unknown_layout(
    layout: str, saved: str, known: Sequence[str] = tuple(LAYOUTS), matches: Sequence[str] = ()
) -> InvalidArgument:
    rule = (
        f"is ambiguous: it starts {', '.join(matches)}"
        if len(matches) > 1
        else "is neither a preset layout nor a layout string"
    )
    return InvalidArgument("layout", layout, rule, f"Pass one of {', '.join(known)}, or {saved}.")


def layout_checksum(body: str) -> int:
    """tmux's layout checksum (layout_checksum in layout-custom.c)."""
    csum = 0
    for byte in body.encode("ascii"):
        csum = ((csum >> 1) + ((csum & 1) << 15) + byte) & 0xFFFF
    return csum
