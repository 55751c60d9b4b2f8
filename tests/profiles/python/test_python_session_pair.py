"""session_id and session_name given together: one rule for every python tool.

Agreeing values are fine; values naming two sessions (or a field naming none)
are refused with both fields and both sessions named, after nothing but the
lookup that tells. The tools are found from the contracts: every input schema
(or array item of one, as send_keys_batch's operations) holding both fields.

One tmux server (``main`` and ``other``) and one server for the module: the
refusals change nothing, and the accepted calls only read.
"""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from scripts.lab.client import Client, contracts
from scripts.lab.tmuxserver import TmuxServer

pytestmark = pytest.mark.anyio

BOTH = ("session_id", "session_name")


def has_both(schema: Any) -> bool:
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    return all(field in properties for field in BOTH)


def sample(schema: dict[str, Any], root: dict[str, Any]) -> Any:
    """A harmless value that a schema accepts (for required fields besides the target)."""
    if "$ref" in schema:
        target: Any = root
        for part in str(schema["$ref"]).removeprefix("#/").split("/"):
            target = target[part]
        return sample(target, root)
    if "enum" in schema:
        return schema["enum"][0]
    for combinator in ("anyOf", "oneOf"):
        if combinator in schema:
            return sample(schema[combinator][0], root)
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "string":
        return "x" * max(1, int(schema.get("minLength", 1)))
    if kind in ("integer", "number"):
        return max(1, schema.get("minimum", 1))
    if kind == "boolean":
        return False
    if kind == "array":
        return [sample(schema["items"], root)] * max(1, int(schema.get("minItems", 1)))
    if kind == "object":
        return call_with(schema, root, {})
    raise AssertionError(f"no sample for {schema}")


def call_with(
    schema: dict[str, Any], root: dict[str, Any], targets: dict[str, str]
) -> dict[str, Any]:
    """An instance of an object schema: ``targets`` wherever the session fields are, the
    required fields sampled."""
    properties = schema.get("properties", {})
    arguments = {
        name: sample(properties[name], root)
        for name in schema.get("required", [])
        if name not in BOTH
    }
    if has_both(schema):
        arguments.update(targets)
    for name, sub in properties.items():
        if sub.get("type") == "array" and has_both(sub.get("items")):
            arguments[name] = [call_with(sub["items"], root, targets)]
    return arguments


def takes_both(schema: dict[str, Any]) -> bool:
    nested = [sub.get("items") for sub in schema.get("properties", {}).values()]
    return has_both(schema) or any(has_both(items) for items in nested)


PAIRED = sorted(
    name for name, contract in contracts("python").items() if takes_both(contract["inputSchema"])
)


def arguments_for(tool: str, targets: dict[str, str]) -> dict[str, Any]:
    schema = contracts("python")[tool]["inputSchema"]
    arguments = call_with(schema, schema, targets)
    Draft202012Validator(schema).validate(arguments)
    return arguments


def test_the_tools_taking_both_fields_are_found_from_the_contracts() -> None:
    assert len(PAIRED) >= 30
    assert {"kill_session", "capture_pane", "send_keys_batch", "select_pane"} <= set(PAIRED)
    for tool in PAIRED:  # every one gets a call its contract accepts
        arguments_for(tool, {"session_id": "$0", "session_name": "main"})


@pytest.fixture(scope="module")
def world(shared: TmuxServer) -> tuple[str, str]:
    """The ``main`` session's id and a second session's id, named ``other``."""
    main = shared.tmux("display-message", "-p", "-t", "main", "#{session_id}").strip()
    other = shared.tmux(
        "new-session", "-d", "-s", "other", "-x", "80", "-y", "24", "-P", "-F", "#{session_id}"
    ).strip()
    return main, other


@pytest.fixture(scope="module")
def python_env(world: tuple[str, str]) -> dict[str, str]:
    """The tools taking a session, served once ``world``'s sessions are there."""
    return {"LIBTMUX_TOOLSETS": TOOLSETS}


@pytest.fixture(scope="module")
async def python_client(python_client: Client) -> Client:
    """The plugin's, once its control client has attached: before a log is read."""
    await python_client.ok("list_sessions")
    return python_client


def everything(tmux: TmuxServer) -> list[str]:
    """What a refused call must leave as it was, environment included."""
    return [
        *tmux.state(),
        *tmux.lines("list-sessions", "-F", "#{session_id} #{session_name} #{session_windows}"),
        *tmux.lines("show-environment", "-g"),
        *tmux.lines("show-environment", "-t", "main"),
        *tmux.lines("show-environment", "-t", "other"),
    ]


async def test_every_tool_refuses_a_session_id_and_name_naming_two_sessions(
    shared: TmuxServer, world: tuple[str, str], python_client: Client
) -> None:
    main, other = world
    before = everything(shared)
    for tool in PAIRED:
        mark = shared.mark()
        arguments = arguments_for(tool, {"session_id": main, "session_name": "other"})
        message = await python_client.error(tool, arguments)
        for word in ("session_id`", "session_name`", main, "'main'", "'other'", other):
            assert word in message, (tool, word, message)
        assert "Pass only one of them" in message, tool
        sent = [item.command for item in shared.sent_since(mark) if item.reaches_a_server]
        assert sent == ["list-sessions"], (tool, sent)
    assert everything(shared) == before


async def test_a_field_naming_no_session_is_refused_the_same_way(
    shared: TmuxServer, world: tuple[str, str], python_client: Client
) -> None:
    main, _ = world
    before = everything(shared)
    for targets, named in (
        ({"session_id": "$99", "session_name": "main"}, ("'$99' names no session", main)),
        ({"session_id": main, "session_name": "mai"}, ("'mai' names no session", "'main'")),
    ):
        for tool in ("kill_session", "rename_session", "send_keys_batch"):
            message = await python_client.error(tool, arguments_for(tool, targets))
            for word in named:
                assert word in message, (tool, word, message)
    assert everything(shared) == before


async def test_agreeing_session_id_and_name_are_accepted(
    shared: TmuxServer, world: tuple[str, str], python_client: Client
) -> None:
    main, other = world
    pane = shared.tmux("display-message", "-p", "-t", "other", "#{pane_id}").strip()
    both = {"session_id": other, "session_name": "other"}
    assert (await python_client.ok("get_session_info", both))["session_name"] == "other"
    assert (await python_client.ok("get_pane_info", both))["pane_id"] == pane
    windows = (await python_client.ok("list_windows", both))["result"]
    assert {window["session_id"] for window in windows} == {other}
    assert (await python_client.ok("display_message", {**both, "format_string": "#{pane_id}"})) == {
        "result": pane
    }
    both = {"session_id": main, "session_name": "main"}
    assert (await python_client.ok("get_session_info", both))["session_id"] == main


TOOLSETS = "inspect,manage,execute,teardown"
