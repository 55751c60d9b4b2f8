"""Which tools a server shows: LIBTMUX_TOOLSETS, LIBTMUX_TOOLS, LIBTMUX_EXCLUDE_TOOLS.

Toolsets pick whole groups (teardown is opt-in), LIBTMUX_TOOLS adds tools by
name, LIBTMUX_EXCLUDE_TOOLS removes them and wins over both. A name that is
neither a toolset nor a tool of the family stops startup: a typo must not
silently hide or expose a tool. This shapes the tool list; it is not a
sandbox (a shown tool can still do anything its contract allows).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

TOOLSETS = ("inspect", "manage", "execute", "teardown")
DEFAULT_TOOLSETS = ("inspect", "manage", "execute")


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


def chosen(environ: Mapping[str, str]) -> list[str]:
    """The toolsets the environment turns on (LIBTMUX_TOOLSETS, else the default)."""
    if "LIBTMUX_TOOLSETS" not in environ:
        return list(DEFAULT_TOOLSETS)
    toolsets = _names(environ["LIBTMUX_TOOLSETS"])
    _check("LIBTMUX_TOOLSETS", toolsets, TOOLSETS, "toolsets")
    return toolsets


def visible(catalog: Mapping[str, str], environ: Mapping[str, str]) -> set[str]:
    """The tools of ``catalog`` (name -> toolset) that the environment asks to show."""
    toolsets = chosen(environ)
    added = _names(environ.get("LIBTMUX_TOOLS", ""))
    removed = _names(environ.get("LIBTMUX_EXCLUDE_TOOLS", ""))
    _check("LIBTMUX_TOOLS", added, catalog, "tools")
    _check("LIBTMUX_EXCLUDE_TOOLS", removed, catalog, "tools")
    shown = {name for name, toolset in catalog.items() if toolset in toolsets} | set(added)
    return shown - set(removed)
