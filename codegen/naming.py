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


def resource_method(resource: str) -> str:
    """The handler method that reads a resource: ``get_pane`` -> ``resource_get_pane``."""
    return f"resource_{identifier(resource)}"


def resource_module(resource: str) -> str:
    return f"resource_{identifier(resource)}"


def resource_variables_class(resource: str) -> str:
    return f"{pascal(resource)}ResourceVariables"


def resource_result_class(resource: str) -> str:
    return f"{pascal(resource)}ResourceResult"


def prompt_method(prompt: str) -> str:
    """The handler method that renders a prompt: ``run_and_wait`` -> ``prompt_run_and_wait``."""
    return f"prompt_{identifier(prompt)}"


def prompt_module(prompt: str) -> str:
    return f"prompt_{identifier(prompt)}"


def prompt_arguments_class(prompt: str) -> str:
    return f"{pascal(prompt)}PromptArguments"
