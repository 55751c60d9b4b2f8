"""``compose`` binds each interface method to the one part that defines it."""

from __future__ import annotations

import abc
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from tmux_contract_mcp.handlers.compose import CompositionError, compose
from tmux_contract_mcp.seam import HandlerSet


class Interface(HandlerSet, abc.ABC):
    @abc.abstractmethod
    async def list_things(self, params: int) -> int: ...

    @abc.abstractmethod
    async def kill_thing(self, params: int) -> int: ...


class Listing:
    def __init__(self, offset: int) -> None:
        self.offset = offset

    async def list_things(self, params: int) -> int:
        return params + self.offset

    def helper(self) -> str:  # not declared by the interface: never bound
        return "helper"


class Killing:
    async def kill_thing(self, params: int) -> int:
        return -params


class Facts:
    def instruction_facts(self) -> dict[str, str]:
        return {"caller_pane": "%1"}


@pytest.mark.anyio
async def test_each_method_runs_on_the_part_that_defines_it() -> None:
    handlers = compose(Interface, [Listing(10), Killing()])
    assert isinstance(handlers, Interface)
    assert await handlers.list_things(1) == 11
    assert await handlers.kill_thing(3) == -3
    assert not hasattr(handlers, "helper")


def test_a_method_with_a_body_keeps_it_unless_a_part_defines_it() -> None:
    assert compose(Interface, [Listing(0), Killing()]).instruction_facts() == {}
    facts = compose(Interface, [Listing(0), Killing(), Facts()]).instruction_facts()
    assert facts == {"caller_pane": "%1"}


def test_a_method_no_part_defines_stops_composition_naming_it() -> None:
    with pytest.raises(CompositionError, match="no part defines kill_thing"):
        compose(Interface, [Listing(0)])


def test_a_method_two_parts_define_stops_composition_naming_both() -> None:
    class AlsoListing:
        async def list_things(self, params: int) -> int:
            return 0

    with pytest.raises(CompositionError, match="list_things is defined by Listing, AlsoListing"):
        compose(Interface, [Listing(0), AlsoListing(), Killing()])


@pytest.mark.anyio
async def test_wrap_applies_only_to_the_methods_named() -> None:
    seen: list[str] = []

    def wrap(name: str, method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def call(params: int) -> Any:
            seen.append(name)
            return await method(params)

        return call

    handlers = compose(Interface, [Listing(0), Killing()], wrap=wrap, wrapped=["kill_thing"])
    assert isinstance(handlers, Interface)
    await handlers.list_things(1)
    await handlers.kill_thing(1)
    assert seen == ["kill_thing"]


def test_only_a_handler_set_is_composed() -> None:
    class NotAHandlerSet(abc.ABC):
        @abc.abstractmethod
        async def list_things(self, params: int) -> int: ...

    with pytest.raises(CompositionError, match="not a generated handler interface"):
        compose(NotAHandlerSet, [Listing(0)])
