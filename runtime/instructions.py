"""The server instructions: the profile's lines, filled in from this start's facts.

The profile declares its lines as data (``INSTRUCTIONS`` in its registry),
with ``{placeholders}``. This module fills the ones the runtime knows (which
toolsets are on and off) and asks the handlers for the rest
(``instruction_facts()``, e.g. the pane this process runs in). A line
with a placeholder that has no value here is left out, so a fact that does
not hold (no caller pane outside tmux) is never stated.
"""

from __future__ import annotations

import string
from collections.abc import Mapping

from .profiles import Profile
from .seam import HandlerSet
from .toolsets import chosen


def toolset_facts(profile: Profile, environ: Mapping[str, str]) -> dict[str, str]:
    """The profile's toolsets that hold tools, on and off as the environment chooses,
    in the profile's order."""
    family = [t for t in profile.toolsets.names if t in profile.catalog.values()]
    on = set(chosen(profile.toolsets, environ))
    return {
        "toolsets_on": ", ".join(t for t in family if t in on) or "none",
        "toolsets_off": ", ".join(t for t in family if t not in on),
    }


def render(lines: tuple[str, ...], facts: Mapping[str, str]) -> str:
    """Each line filled from ``facts``; a line needing a missing or empty fact is dropped."""
    kept = []
    for line in lines:
        names = {name for _, name, _, _ in string.Formatter().parse(line) if name is not None}
        if all(facts.get(name) for name in names):
            kept.append(line.format_map(facts))
    return "\n".join(kept)


def instructions_for(
    profile: Profile, handlers: HandlerSet, environ: Mapping[str, str]
) -> str | None:
    """What the server tells a client at initialize about itself and where it runs."""
    if not profile.instructions:
        return None
    facts = toolset_facts(profile, environ)
    facts.update(handlers.instruction_facts())
    return render(profile.instructions, facts) or None
