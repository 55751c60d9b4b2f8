"""The python profile's parts fit the generated interface by name and by type.

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

from tmux_contract_mcp.generated.python import models, registry
from tmux_contract_mcp.generated.python.interface import PythonProfileHandlers
from tmux_contract_mcp.handlers.compose import declared, defined
from tmux_contract_mcp.handlers.python import create_handlers
from tmux_contract_mcp.reply import Reply


def model_names() -> dict[str, Any]:
    """What the interface imports only for type checkers: every model, and ``Reply``."""
    names: dict[str, Any] = {"Reply": Reply}
    for info in pkgutil.iter_modules(models.__path__):
        names.update(vars(importlib.import_module(f"{models.__name__}.{info.name}")))
    return names


MODELS = model_names()


def hints(function: Any) -> dict[str, Any]:
    return typing.get_type_hints(function, localns=MODELS)


def served_methods() -> list[str]:
    return sorted(
        [entry.method for entry in registry.TOOLS]
        + [entry.method for entry in registry.RESOURCES]
        + [entry.method for entry in registry.PROMPTS]
    )


def owner(name: str, parts: tuple[object, ...]) -> object:
    (found,) = [part for part in parts if name in defined(part)]
    return found


def test_every_served_method_is_declared_by_the_interface() -> None:
    assert set(served_methods()) <= set(declared(PythonProfileHandlers))
    assert len(served_methods()) == len(registry.TOOLS) + 6 + 4  # six resources, four prompts


def test_each_part_method_takes_and_returns_the_interface_types() -> None:
    handlers: Any = create_handlers({})  # composed: its parts are on the object
    mismatched: list[str] = []
    for name in served_methods():
        wanted = hints(getattr(PythonProfileHandlers, name))
        part = owner(name, handlers.parts)
        got = hints(getattr(type(part), name))
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


def test_parts_hold_their_services_as_instance_state_only() -> None:
    """No part keeps state on its class, where every instance would share it."""
    handlers: Any = create_handlers({})  # composed: its parts are on the object
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
