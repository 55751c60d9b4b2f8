"""Which tools a server shows: LIBTMUX_TOOLSETS, LIBTMUX_TOOLS, LIBTMUX_EXCLUDE_TOOLS.

Toolsets pick whole groups (the profile's data says which exist and which are
on when LIBTMUX_TOOLSETS is unset), LIBTMUX_TOOLS adds tools by name,
LIBTMUX_EXCLUDE_TOOLS removes them and wins over both. A name that is neither
a toolset nor a tool of the profile stops startup: a typo must not silently
hide or expose a tool. This shapes the tool list; it is not a sandbox (a shown
tool can still do anything its contract allows).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

TOOLSETS_ENV = "LIBTMUX_TOOLSETS"
TOOLS_ENV = "LIBTMUX_TOOLS"
EXCLUDE_TOOLS_ENV = "LIBTMUX_EXCLUDE_TOOLS"


class Toolsets(NamedTuple):
    """A profile's toolsets in order, and those on by default (its registry's data)."""

    names: tuple[str, ...]
    default: tuple[str, ...]


class ToolsetConfigError(ValueError):
    """An unknown toolset or tool name in the environment."""


def _names(value: str) -> list[str]:
    return [name.strip() for name in value.split(",") if name.strip()]


def _check(variable: str, names: Iterable[str], known: Iterable[str], what: str) -> None:
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise ToolsetConfigError(
            f"{variable} names unknown {what} {', '.join(map(repr, unknown))}; "
            f"known {what}: {', '.join(sorted(known))}"
        )


def chosen(toolsets: Toolsets, environ: Mapping[str, str]) -> list[str]:
    """The toolsets the environment turns on (LIBTMUX_TOOLSETS, else the default)."""
    if TOOLSETS_ENV not in environ:
        return list(toolsets.default)
    names = _names(environ[TOOLSETS_ENV])
    _check(TOOLSETS_ENV, names, toolsets.names, "toolsets")
    return names


def visible(catalog: Mapping[str, str], toolsets: Toolsets, environ: Mapping[str, str]) -> set[str]:
    """The tools of ``catalog`` (name -> toolset) that the environment asks to show."""
    on = chosen(toolsets, environ)
    added = _names(environ.get(TOOLS_ENV, ""))
    removed = _names(environ.get(EXCLUDE_TOOLS_ENV, ""))
    _check(TOOLS_ENV, added, catalog, "tools")
    _check(EXCLUDE_TOOLS_ENV, removed, catalog, "tools")
    shown = {name for name, toolset in catalog.items() if toolset in on} | set(added)
    return shown - set(removed)
