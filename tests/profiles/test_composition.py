"""Every profile's parts fit its generated interface by name and by type.

``compose`` binds each interface method to the part method of the same name, so
nothing but this test holds a part's parameters and result to the contract's
models: every tool, resource and prompt method must take exactly the interface's
parameter types and return its result type (a tool may leave out the ``Reply``).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import typing
from typing import Any

import pytest

from tmux_contract_mcp.generated import PROFILES
from tmux_contract_mcp.generated.python.interface import PythonProfileHandlers
from tmux_contract_mcp.handlers.compose import declared, defined
from tmux_contract_mcp.profiles import create_handlers, load_profile
from tmux_contract_mcp.reply import Reply


def model_names(profile: str) -> dict[str, Any]:
    """What the interface imports only for type checkers: every model, and ``Reply``."""
    models = importlib.import_module(f"tmux_contract_mcp.generated.{profile}.models")
    names: dict[str, Any] = {"Reply": Reply}
    for info in pkgutil.iter_modules(models.__path__):
        names.update(vars(importlib.import_module(f"{models.__name__}.{info.name}")))
    return names


def hints(function: Any, profile: str = "python") -> dict[str, Any]:
    return typing.get_type_hints(function, localns=model_names(profile))


def served_methods(profile: str) -> list[str]:
    registry = importlib.import_module(f"tmux_contract_mcp.generated.{profile}.registry")
    return sorted(
        [entry.method for entry in registry.TOOLS]
        + [entry.method for entry in registry.RESOURCES]
        + [entry.method for entry in registry.PROMPTS]
    )


def owner(name: str, parts: tuple[object, ...]) -> object:
    (found,) = [part for part in parts if name in defined(part)]
    return found


@pytest.mark.parametrize("profile", PROFILES)
def test_every_served_method_is_declared_by_the_interface(profile: str) -> None:
    interface = load_profile(profile).interface
    assert served_methods(profile)
    assert set(served_methods(profile)) <= set(declared(interface))


@pytest.mark.parametrize("profile", PROFILES)
def test_each_part_method_takes_and_returns_the_interface_types(profile: str) -> None:
    served = load_profile(profile)
    handlers: Any = create_handlers(served, {})  # composed: its parts are on the object
    mismatched: list[str] = []
    for name in served_methods(profile):
        wanted = hints(getattr(served.interface, name), profile)
        part = owner(name, handlers.parts)
        got = hints(getattr(type(part), name), profile)
        returned, allowed = got.pop("return"), wanted.pop("return")
        allowed_types = set(typing.get_args(allowed)) or {allowed}
        if got != wanted:
            mismatched.append(f"{type(part).__name__}.{name} takes {got}, not {wanted}")
        if returned != allowed and returned not in allowed_types:
            mismatched.append(f"{type(part).__name__}.{name} returns {returned}, not {allowed}")
    assert mismatched == []


def test_a_part_method_with_another_parameter_type_is_caught() -> None:
    """The comparison above can fail: a method typed for another model is told apart."""
    wanted = hints(PythonProfileHandlers.capture_pane)
    got = hints(PythonProfileHandlers.snapshot_pane)
    assert got["params"] != wanted["params"]
    assert got["return"] not in set(typing.get_args(wanted["return"]))


@pytest.mark.parametrize("profile", PROFILES)
def test_parts_hold_their_services_as_instance_state_only(profile: str) -> None:
    """No part keeps state on its class, where every instance would share it."""
    handlers: Any = create_handlers(load_profile(profile), {})  # composed: parts on the object
    for part in handlers.parts:
        state = {
            name
            for cls in type(part).__mro__[:-1]
            for name, value in vars(cls).items()
            if not name.startswith("__")
            and not inspect.isfunction(value)
            and not isinstance(value, (staticmethod, classmethod, property))
        }
        assert state == set(), type(part).__name__
