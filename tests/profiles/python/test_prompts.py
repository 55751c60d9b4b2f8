"""The python profile's prompts, rendered by the real MCP client.

Each prompt is listed as its contract says and renders a recipe whose every
tool call names a tool this server serves, with arguments that tool's
contract accepts. Missing, unknown or invalid arguments are invalid params
naming the argument. Rendering runs nothing in tmux.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from mcp.shared.exceptions import MCPError

from scripts.lab.client import Client, contracts, prompt_contracts
from scripts.lab.tmuxserver import TmuxServer

pytestmark = pytest.mark.anyio

# A tool call as a recipe writes it: the tool's name, a space, its arguments as JSON.
CALL = re.compile(r"\b([a-z_]+) (\{.*?\})(?=$|[,.;)]?\s)", re.MULTILINE)

ARGUMENTS = {
    "run_and_wait": {"command": "make test && echo 'done'", "pane_id": "%3", "timeout": "45"},
    "diagnose_failing_pane": {"pane_id": "%7"},
    "build_dev_workspace": {"session_name": "dev", "log_command": "tail -F app.log"},
    "interrupt_gracefully": {"pane_id": "%12"},
}


async def render(client: Client, name: str, arguments: dict[str, str]) -> str:
    result = await client.session.get_prompt(name, arguments)
    assert result.description == prompt_contracts("python")[name].description
    assert len(result.messages) == 1
    message = result.messages[0]
    assert message.role == "user"
    assert message.content.type == "text"
    return str(message.content.text)


def tool_calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    return [(name, json.loads(arguments)) for name, arguments in CALL.findall(text)]


async def invalid(client: Client, name: str, arguments: dict[str, str]) -> str:
    with pytest.raises(MCPError) as caught:
        await client.session.get_prompt(name, arguments)
    assert caught.value.error.code == -32602
    return caught.value.error.message


async def test_prompts_list_advertises_each_prompt_contract_exactly(python_client: Client) -> None:
    listed = await python_client.session.list_prompts()
    wire = {
        p.name: p.model_dump(mode="json", by_alias=True, exclude_none=True) for p in listed.prompts
    }
    assert wire == {name: p.advertised for name, p in prompt_contracts("python").items()}
    assert sorted(wire) == sorted(ARGUMENTS)


@pytest.mark.parametrize("name", sorted(ARGUMENTS))
async def test_every_tool_call_a_recipe_shows_is_one_this_server_accepts(
    python_client: Client, name: str
) -> None:
    text = await render(python_client, name, ARGUMENTS[name])
    calls = tool_calls(text)
    assert len(calls) >= 2, text
    assert len(calls) == text.count(' {"'), "a call the pattern above did not read"
    served = contracts("python")
    for tool, arguments in calls:
        assert tool in served, f"{name} shows an unknown tool {tool}"
        Draft202012Validator(served[tool]["inputSchema"]).validate(arguments)


async def test_run_and_wait_runs_the_command_with_run_command(python_client: Client) -> None:
    text = await render(python_client, "run_and_wait", ARGUMENTS["run_and_wait"])
    tool, arguments = tool_calls(text)[0]
    assert tool == "run_command"
    assert arguments == {"pane_id": "%3", "command": "make test && echo 'done'", "timeout": 45}
    assert "exit_status" in text and "timed_out" in text and "effective_timeout" in text


async def test_run_and_wait_timeout_defaults_to_sixty_seconds(python_client: Client) -> None:
    text = await render(python_client, "run_and_wait", {"command": "ls", "pane_id": "%1"})
    assert tool_calls(text)[0] == (
        "run_command",
        {"pane_id": "%1", "command": "ls", "timeout": 60},
    )


async def test_diagnose_reads_with_snapshot_pane_then_follows_with_capture_since(
    python_client: Client,
) -> None:
    text = await render(python_client, "diagnose_failing_pane", {"pane_id": "%7"})
    tools = [tool for tool, _ in tool_calls(text)]
    assert tools[0] == "snapshot_pane"
    assert "capture_since" in tools
    assert tools.index("capture_since") > tools.index("snapshot_pane")
    assert all(arguments["pane_id"] == "%7" for _, arguments in tool_calls(text))


async def test_build_dev_workspace_creates_splits_and_starts_the_log_command(
    python_client: Client,
) -> None:
    text = await render(python_client, "build_dev_workspace", ARGUMENTS["build_dev_workspace"])
    calls = tool_calls(text)
    assert calls[0] == ("create_session", {"session_name": "dev"})
    assert [tool for tool, _ in calls].count("split_window") == 2
    assert ("send_keys", {"pane_id": "<logs>", "keys": "tail -F app.log"}) in calls
    default = await render(python_client, "build_dev_workspace", {"session_name": "dev"})
    assert ("send_keys", {"pane_id": "<logs>", "keys": "watch -n 1 date"}) in tool_calls(default)


async def test_interrupt_gracefully_sends_one_ctrl_c_then_checks(python_client: Client) -> None:
    text = await render(python_client, "interrupt_gracefully", {"pane_id": "%12"})
    calls = tool_calls(text)
    tools = [tool for tool, _ in calls]
    assert ("send_keys", {"pane_id": "%12", "keys": "C-c", "enter": False}) in calls
    assert tools.index("send_keys") < tools.index("wait_for_text")
    assert tools.count("get_pane_info") == 2


async def test_a_value_is_json_encoded_into_the_recipe(python_client: Client) -> None:
    command = 'printf "%s\\n" "a}b" ; echo `x`'
    text = await render(python_client, "run_and_wait", {"command": command, "pane_id": "%1"})
    assert tool_calls(text)[0][1]["command"] == command


async def test_rendering_runs_nothing_in_tmux(python_client: Client, shared: TmuxServer) -> None:
    mark = shared.mark()
    for name, arguments in ARGUMENTS.items():
        await render(python_client, name, arguments)
    shared.assert_nothing_sent_since(mark)
    await python_client.ok("list_panes")  # the log does see a tool that asks tmux
    assert shared.sent_since(mark)


@pytest.mark.parametrize(
    ("name", "argument"),
    [
        (name, argument["name"])
        for name, prompt in sorted(prompt_contracts("python").items())
        for argument in prompt.arguments
        if argument["required"]
    ],
)
async def test_a_missing_required_argument_is_invalid_params_naming_it(
    python_client: Client, name: str, argument: str
) -> None:
    arguments = {k: v for k, v in ARGUMENTS[name].items() if k != argument}
    message = await invalid(python_client, name, arguments)
    assert f"`{argument}` is missing" in message


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"command": "ls", "pane_id": "%1", "timeout": "soon"}, "`timeout`"),
        ({"command": "ls", "pane_id": "%1", "timeout": "-5"}, "`timeout`"),
        ({"command": "ls", "pane_id": "%1", "timeout": '"30"'}, "`timeout`"),
        ({"command": "ls", "pane_id": "1"}, "`pane_id`"),
        ({"command": "", "pane_id": "%1"}, "`command`"),
        ({"command": "ls", "pane_id": "%1", "pane": "%2"}, "`pane`"),
    ],
)
async def test_an_invalid_argument_is_invalid_params_naming_it(
    python_client: Client, arguments: dict[str, str], named: str
) -> None:
    assert named in await invalid(python_client, "run_and_wait", arguments)


async def test_an_unknown_prompt_is_invalid_params_naming_it(python_client: Client) -> None:
    message = await invalid(python_client, "run_and_pray", {})
    assert "run_and_pray" in message
