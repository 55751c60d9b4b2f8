"""Bad input gets a clear error naming the field or target, and changes nothing in tmux.

One tmux server (a 2x2 grid) and one server per profile for the whole module: a
refusal changes nothing, and each test compares the state before and after itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from scripts.lab.client import Client, open_in_process
from scripts.lab.tmuxserver import TmuxServer

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def shared() -> Iterator[TmuxServer]:
    server = TmuxServer.start()
    try:
        server.grid()
        yield server
    finally:
        server.kill()


# (arguments, words the message must contain). None of these may run a tmux command.
PYTHON_REJECTED_BEFORE_TMUX: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "extra argument": (
        "select_pane",
        {"pane_id": "%0", "bogus": 1},
        ("bogus", "additionalProperties"),
    ),
    "wrong type": ("select_pane", {"pane_id": 5}, ("pane_id", "type")),
    "bad enum": ("select_pane", {"direction": "sideways"}, ("direction", "sideways", "enum")),
    "missing required": ("find_pane_by_position", {}, ("corner", "required")),
    "bad corner": ("find_pane_by_position", {"corner": "middle"}, ("corner", "middle")),
    "malformed pane id": ("select_pane", {"pane_id": "abc"}, ("pane_id", "abc", "list_panes")),
    "malformed window id": (
        "select_pane",
        {"window_id": "1", "direction": "up"},
        ("window_id", "'1'"),
    ),
    "malformed session id": (
        "find_pane_by_position",
        {"corner": "top-left", "session_id": "main"},
        ("session_id", "main"),
    ),
    "malformed window index": (
        "find_pane_by_position",
        {"corner": "top-left", "session_name": "main", "window_index": "first"},
        ("window_index", "first"),
    ),
    "window index alone": (
        "select_pane",
        {"window_index": "0", "direction": "up"},
        ("window_index", "session_name"),
    ),
    "socket name with a slash": (
        "select_pane",
        {"pane_id": "%0", "socket_name": "../x"},
        ("socket_name", "../x"),
    ),
    "null for a required enum": ("find_pane_by_position", {"corner": None}, ("corner",)),
}

RUST_REJECTED_BEFORE_TMUX: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "extra argument": ({"pane": "%0", "pane_id": "%0"}, ("pane_id", "additionalProperties")),
    "wrong type": ({"pane": 0}, ("pane", "type")),
    "bad enum": ({"pane": "%0", "direction": "diagonal"}, ("direction", "diagonal")),
    "missing required": ({}, ("pane", "required")),
    "malformed pane id": ({"pane": "abc"}, ("pane", "abc")),
    "lax boolean-like string": ({"pane": "%0", "direction": 1}, ("direction",)),
}


@pytest.mark.parametrize("case", sorted(PYTHON_REJECTED_BEFORE_TMUX))
async def test_python_invalid_call_names_the_field_and_runs_no_tmux_command(
    shared: TmuxServer, python_client: Client, case: str
) -> None:
    tool, arguments, words = PYTHON_REJECTED_BEFORE_TMUX[case]
    before = shared.state()
    mark = shared.mark()
    message = await python_client.error(tool, arguments)
    for word in words:
        assert word in message, (word, message)
    shared.assert_nothing_sent_since(mark)
    assert shared.state() == before


@pytest.mark.parametrize("case", sorted(RUST_REJECTED_BEFORE_TMUX))
async def test_rust_invalid_call_names_the_field_and_runs_no_tmux_command(
    shared: TmuxServer, rust_client: Client, case: str
) -> None:
    arguments, words = RUST_REJECTED_BEFORE_TMUX[case]
    before = shared.state()
    mark = shared.mark()
    message = await rust_client.error("select_pane", arguments)
    for word in words:
        assert word in message, (word, message)
    shared.assert_nothing_sent_since(mark)
    assert shared.state() == before


@pytest.mark.parametrize("profile", ["python", "rust"])
async def test_the_log_the_tests_above_read_sees_a_valid_call(
    shared: TmuxServer, clients: dict[str, Client], profile: str
) -> None:
    """What a valid call sends shows in the log the tests above find empty."""
    mark = shared.mark()
    if profile == "rust":
        await clients[profile].ok("select_pane", {"pane": shared.active_pane()})
    else:
        await clients[profile].ok("find_pane_by_position", {"corner": "top-left"})
    assert any(sent.reaches_a_server for sent in shared.sent_since(mark))


@pytest.mark.parametrize("profile", ["python", "rust"])
async def test_unknown_targets_name_the_target_and_socket_and_change_nothing(
    shared: TmuxServer, clients: dict[str, Client], profile: str
) -> None:
    before = shared.state()
    client = clients[profile]
    if profile == "rust":
        message = await client.error("select_pane", {"pane": "%999", "direction": "up"})
        assert "%999" in message and shared.name in message and "list_panes" in message
    else:
        cases: list[tuple[dict[str, Any], tuple[str, ...]]] = [
            ({"pane_id": "%999"}, ("%999",)),
            ({"window_id": "@99", "direction": "up"}, ("@99", "list_windows")),
            ({"session_name": "nosuch", "direction": "up"}, ("'nosuch'", "list_sessions")),
            ({"session_id": "$42", "direction": "up"}, ("$42",)),
            ({"session_name": "main", "window_index": "7", "direction": "up"}, ("7", "main")),
        ]
        for arguments, words in cases:
            message = await client.error("select_pane", arguments)
            for word in (*words, shared.name):
                assert word in message, (arguments, word, message)
    assert shared.state() == before


async def test_python_unknown_socket_names_the_socket(python_client: Client) -> None:
    message = await python_client.error("select_pane", {"pane_id": "%0", "socket_name": "nosuch"})
    assert "nosuch" in message and "no tmux server" in message


async def test_rust_unknown_socket_names_the_socket(shared: TmuxServer) -> None:
    async with open_in_process(shared.server_env(LIBTMUX_SOCKET="nosuch"), "rust") as client:
        message = await client.error("select_pane", {"pane": "%0"})
    assert "nosuch" in message and "no tmux server" in message


async def test_last_with_no_previous_pane_says_so(shared: TmuxServer, rust_client: Client) -> None:
    # A window of its own: its one pane has never had another active beside it.
    pane = shared.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:").strip()
    message = await rust_client.error("select_pane", {"pane": pane, "direction": "last"})
    assert "no previously active pane" in message


@pytest.mark.parametrize(
    ("profile", "other_profiles_tool"),
    [("python", "get_tmux_variables"), ("rust", "kill_server")],
)
async def test_unknown_tool_is_a_protocol_error(
    clients: dict[str, Client], profile: str, other_profiles_tool: str
) -> None:
    for name in ("no_such_tool", other_profiles_tool):
        with pytest.raises(MCPError) as caught:
            await clients[profile].session.call_tool(name, {})
        assert caught.value.error.code == -32602
        assert name in caught.value.error.message and "not served" in caught.value.error.message
        if profile == "rust":  # the family's envelope: the kind rides in data
            assert caught.value.error.data == {
                "kind": "invalid_input",
                "retryable": False,
                "stale": False,
            }
        else:
            assert caught.value.error.data is None


@pytest.mark.parametrize("profile", ["python", "rust", "swift"])
async def test_a_hidden_tool_says_which_toolset_holds_it_and_how_to_show_it(
    shared: TmuxServer, profile: str
) -> None:
    env = shared.server_env(LIBTMUX_TOOLSETS="inspect")
    async with open_in_process(env, profile) as hiding:
        with pytest.raises(MCPError) as caught:
            await hiding.session.call_tool("kill_pane", {})
    message = caught.value.error.message
    assert "kill_pane" in message and "teardown toolset" in message
    assert "LIBTMUX_TOOLSETS" in message and "LIBTMUX_TOOLS" in message


async def test_python_pane_id_with_a_window_that_does_not_hold_it_is_refused(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = shared.active_pane()
    other = shared.tmux("new-window", "-d", "-P", "-F", "#{window_id}", "-t", "main:").strip()
    before = shared.state()
    message = await python_client.error("select_pane", {"pane_id": pane, "window_id": other})
    assert "window_id" in message and other in message and pane in message
    assert shared.state() == before
