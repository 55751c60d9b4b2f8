"""Every name the generator writes comes from here."""

from __future__ import annotations

import keyword
import re

PACKAGE = "tmux_contract_mcp"


def pascal(name: str) -> str:
    """``find_pane_by_position`` -> ``FindPaneByPosition``."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^0-9A-Za-z]+", name) if part)


def identifier(name: str) -> str:
    """A Python identifier for a tool name (the handler method's name)."""
    ident = re.sub(r"\W", "_", name)
    if ident[:1].isdigit() or keyword.iskeyword(ident):
        ident = f"tool_{ident}"
    return ident


def module_name(tool: str) -> str:
    return identifier(tool)


def input_class(tool: str) -> str:
    return f"{pascal(tool)}Input"


def output_class(tool: str) -> str:
    return f"{pascal(tool)}Output"


def interface_class(profile: str) -> str:
    return f"{pascal(profile)}ProfileHandlers"


def profile_package(profile: str) -> str:
    return f"{PACKAGE}.generated.{profile}"


def models_module(profile: str, tool: str) -> str:
    return f"{profile_package(profile)}.models.{module_name(tool)}"
