"""One handler object for a profile, assembled from parts that each implement some methods.

The generated interface of a profile declares one method per tool, resource
and prompt. A profile's handlers are written as small parts (listing, reading,
waits, ...), each an ordinary object built from the services it needs (the
tmux core, the caller's identity, a search or wait service), never a mixin.
``compose`` binds every method the interface declares to the one part that
defines it, so the runtime sees one object and no part reaches into another's
state. A method nobody defines, or that two parts define, stops startup with
both named.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from ..seam import HOOKS, HandlerSet

Method = Callable[..., Awaitable[Any]]
Wrap = Callable[[str, Method], Method]


class CompositionError(TypeError):
    """The parts do not implement the interface exactly once each.

    ``missing`` names the declared methods no part defines (empty for a method
    two parts define).
    """

    def __init__(self, message: str, missing: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.missing = tuple(missing)


def declared(interface: type) -> list[str]:
    """The public methods the interface declares (abstract or with a default), and the
    hooks every handler set has (``seam.HOOKS``)."""
    own = {
        name
        for name, value in vars(interface).items()
        if not name.startswith("_") and inspect.isfunction(value)
    }
    return sorted(own | set(HOOKS))


def defined(part: object) -> set[str]:
    """The public methods a part's class (and its bases, but not ``object``) defines."""
    names: set[str] = set()
    for cls in type(part).__mro__[:-1]:
        names.update(
            name
            for name, value in vars(cls).items()
            if not name.startswith("_") and inspect.isfunction(value)
        )
    return names


def compose(
    interface: type[Any],
    parts: Sequence[object],
    *,
    wrap: Wrap | None = None,
    wrapped: Iterable[str] = (),
) -> HandlerSet:
    """An instance of ``interface`` (a generated interface, so a ``HandlerSet``) whose
    methods are the parts' methods of the same name.

    ``interface`` is typed ``type[Any]`` because mypy will not take an abstract class
    as ``type[T]``; it is checked to be a ``HandlerSet`` here.

    ``wrap(name, method)`` is applied to each method named in ``wrapped`` (such
    as every tool method, for a check every tool shares). A method with a body
    in the interface (no part defines it) keeps that body.
    """
    if not issubclass(interface, HandlerSet):
        raise CompositionError(f"{interface.__name__} is not a generated handler interface")
    providers: dict[str, list[object]] = {}
    for part in parts:
        for name in defined(part):
            providers.setdefault(name, []).append(part)
    abstract = set(getattr(interface, "__abstractmethods__", ()))
    to_wrap = frozenset(wrapped) if wrap is not None else frozenset()
    namespace: dict[str, Any] = {}
    missing: list[str] = []
    for name in declared(interface):
        found = providers.get(name, [])
        if len(found) > 1:
            owners = ", ".join(type(part).__name__ for part in found)
            raise CompositionError(f"{interface.__name__}.{name} is defined by {owners}")
        if not found:
            if name in abstract:
                missing.append(name)
            continue
        method: Method = getattr(found[0], name)
        if wrap is not None and name in to_wrap:
            method = wrap(name, method)
        namespace[name] = staticmethod(method)
    if missing:
        raise CompositionError(
            f"{interface.__name__}: no part defines {', '.join(missing)}", missing
        )
    namespace["parts"] = tuple(parts)
    composed = type(f"Composed{interface.__name__}", (interface,), namespace)
    handlers = composed()
    assert isinstance(handlers, HandlerSet)
    return handlers
