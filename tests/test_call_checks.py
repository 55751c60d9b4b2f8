"""What dispatch and the batches do with a verdict: one judgement, before anything runs.

The checkers now agree on every value (``test_one_verdict``), so a checker
that disagrees, or a model stricter than its schema, can only be a fault; it
is injected here to show that such a fault refuses the call instead of
letting it through, and that a batch judges every operation before the first
one runs. The batches run against a real tmux server, in this process.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import mcp.types as types
import pytest
from pydantic import BaseModel, ConfigDict

from scripts.lab.client import error_text
from scripts.lab.tmuxserver import TmuxServer
from tmux_contract_mcp.arguments import check_arguments
from tmux_contract_mcp.dispatch import call_tool
from tmux_contract_mcp.errors import ToolError
from tmux_contract_mcp.profiles import Tool, create_handlers, load_profile
from tmux_contract_mcp.seam import Call, HandlerSet

pytestmark = pytest.mark.anyio

BATCH = "call_read_tools_batch"


def served(profile: str, name: str) -> Tool:
    tool = load_profile(profile).tool(name)
    assert tool is not None
    return tool


class Recorder(HandlerSet):
    """Handlers that note every call they get; ``answer`` makes each call's result."""

    def __init__(self, answer: Callable[[], Any]) -> None:
        self.calls: list[BaseModel] = []
        self.answer = answer

    def __getattr__(self, method: str) -> Callable[[Call, BaseModel], Any]:
        async def handle(call: Call, params: BaseModel) -> Any:
            self.calls.append(params)
            return self.answer()

        return handle


def fail() -> Any:
    raise ToolError("the handler ran")


# --- integral floats reach the handler as ints ----------------------------------------------


async def test_a_handler_gets_an_int_for_an_integral_float_where_the_contract_says_integer() -> (
    None
):
    handlers = Recorder(fail)
    tool = served("python", "capture_pane")
    result = await call_tool(tool, handlers, Call(), {"max_lines": 5.0, "start": -0.0, "end": 1e2})
    assert error_text(result) == "the handler ran"
    (params,) = handlers.calls
    values = params.model_dump(exclude_unset=True)
    assert values == {"max_lines": 5, "start": 0, "end": 100}
    assert all(type(value) is int for value in values.values())


def test_a_nested_integral_float_reaches_the_operations_model_as_an_int() -> None:
    tool = served("swift", BATCH)
    params = check_arguments(
        tool,
        {"operations": [{"tool": "capture_pane", "arguments": {"paneId": "%1", "maxLines": 5.0}}]},
    )
    arguments = params.model_dump()["operations"][0]["arguments"]
    assert type(arguments["maxLines"]) is int and arguments["maxLines"] == 5


# --- one schema engine: what it refuses reaches no handler, and is never sent -----------------


async def test_a_call_the_schema_refuses_reaches_no_handler() -> None:
    handlers = Recorder(fail)
    tool = served("python", "capture_pane")
    result = await call_tool(tool, handlers, Call(), {"max_lines": "5"})
    assert result.is_error
    message = error_text(result)
    assert "Invalid arguments for capture_pane" in message
    assert "`max_lines`" in message and "(rule: type)" in message and "Nothing was run" in message
    assert handlers.calls == []


async def test_a_result_that_breaks_its_output_schema_is_not_sent() -> None:
    tool = served("swift", "get_tmux_variables")
    output = tool.output_model.model_validate({"values": {"pane_id": "%1"}})
    handlers = Recorder(lambda: output)
    arguments = {"names": ["pane_id"]}
    sent = await call_tool(tool, handlers, Call(), arguments)
    assert not sent.is_error and sent.structured_content == {"values": {"pane_id": "%1"}}
    broken = tool.output_model.model_construct(values={"pane_id": 5})  # the injected fault
    handlers.answer = lambda: broken
    with pytest.warns(UserWarning, match="serializ"):  # pydantic notices the fault too
        result = await call_tool(tool, handlers, Call(), arguments)
    assert result.is_error and result.structured_content is None
    message = error_text(result)
    assert "breaks its output schema" in message
    assert "`values.pane_id`" in message and "(rule: type)" in message


# --- a batch judges every operation before the first one runs -------------------------------


class Refusing(BaseModel):
    """A model stricter than its schema: it wants a field no call gives."""

    model_config = ConfigDict(extra="forbid")
    never_given: int


@asynccontextmanager
async def handlers_for(profile: str, tmux: TmuxServer) -> AsyncIterator[Any]:
    handlers = create_handlers(load_profile(profile), tmux.server_env())
    try:
        yield handlers
    finally:
        await handlers.aclose()


def stricter_model_for(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """The fault: the named tool's model refuses what its schema accepts."""
    model: property = vars(Tool)["input_model"]
    original = model.fget
    assert original is not None
    monkeypatch.setattr(
        Tool,
        "input_model",
        property(lambda tool: Refusing if tool.entry.name == name else original(tool)),
    )


async def run_batch(profile: str, tmux: TmuxServer, operations: list[Any]) -> types.CallToolResult:
    async with handlers_for(profile, tmux) as handlers:
        return await call_tool(served(profile, BATCH), handlers, Call(), {"operations": operations})


@pytest.mark.parametrize(
    ("profile", "operations", "path"),
    [
        (
            "python",
            [{"tool": "list_sessions"}, {"tool": "capture_pane", "arguments": {}}],
            "`operations[1].arguments.never_given`",
        ),
        (
            "swift",
            [
                {"tool": "list_sessions", "arguments": {}},
                {"tool": "capture_pane", "arguments": {"paneId": "%0"}},
            ],
            "`operations[1].arguments.never_given`",
        ),
    ],
)
async def test_an_operation_only_the_model_refuses_refuses_the_whole_batch_before_any_runs(
    tmux: TmuxServer,
    monkeypatch: pytest.MonkeyPatch,
    profile: str,
    operations: list[Any],
    path: str,
) -> None:
    mark = tmux.mark()
    ran = await run_batch(profile, tmux, operations)
    assert not ran.is_error, error_text(ran)
    assert tmux.sent_since(mark), "the log must see the first operation run"

    mark = tmux.mark()
    stricter_model_for(monkeypatch, "capture_pane")
    result = await run_batch(profile, tmux, operations)
    assert result.is_error, result.structured_content
    message = error_text(result)
    assert "Invalid arguments for capture_pane" in message
    assert path in message and "rule: missing" in message, message
    tmux.assert_nothing_sent_since(mark)
