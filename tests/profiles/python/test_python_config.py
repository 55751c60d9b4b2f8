"""The python profile's configuration tools (show_option, show_environment, show_hooks,
show_hook), through the MCP client against real tmux.

One tmux server and one MCP server serve the module; every test makes its own
sessions and uniquely named options and variables, and compares with what tmux
itself reports. Global hooks a test sets are unset again when it ends.
"""

from __future__ import annotations

import pytest

from scripts.lab.client import Client
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.tmux import tag

pytestmark = pytest.mark.anyio

TRICKY = "a;b #{session_name} \"dq\" 'sq' $HOME \\ ;end"


# --- fixtures ---------------------------------------------------------------------------


# --- helpers ----------------------------------------------------------------------------


def raw_value(server: TmuxServer, *args: str) -> str:
    """``show-options -v`` as tmux prints it, without the final newline."""
    return server.tmux("show-options", "-v", *args).removesuffix("\n")


def tmux_hooks(server: TmuxServer, *scope: str) -> dict[str, str]:
    """The hooks tmux lists as set: ``name[index]`` -> command."""
    found = {}
    for line in server.lines("show-hooks", *scope):
        head, space, command = line.partition(" ")
        if space and "[" in head:
            found[head] = command
    return found


async def value(client: Client, option: str, **arguments: object) -> object:
    result = await client.ok("show_option", {"option": option, **arguments})
    assert result["option"] == option
    return result["value"]


# --- show_option ------------------------------------------------------------------------


async def test_show_option_types_follow_the_option(
    shared: TmuxServer, python_client: Client
) -> None:
    shared.tmux("set-option", "-g", "history-limit", "4321")
    shared.tmux("set-option", "-g", "mouse", "on")
    try:
        assert await value(python_client, "history-limit", global_=True) == 4321
        assert await value(python_client, "mouse", global_=True) is True
        assert await value(python_client, "status-position", global_=True) == raw_value(
            shared, "-g", "status-position"
        )
        # A session with no value of its own reads the one it inherits.
        assert await value(python_client, "history-limit") == 4321
        assert await value(python_client, "history-limit", scope="session", target="main") == 4321
    finally:
        shared.tmux("set-option", "-gu", "history-limit")
        shared.tmux("set-option", "-gu", "mouse")
    assert await value(python_client, "mouse", global_=True) is False
    escape = int(raw_value(shared, "-s", "escape-time"))
    assert await value(python_client, "escape-time", scope="server") == escape


async def test_show_option_an_array_option_is_the_list_of_its_values(
    shared: TmuxServer, python_client: Client
) -> None:
    values = shared.lines("show-options", "-gv", "status-format")
    assert len(values) >= 2
    assert await value(python_client, "status-format", global_=True) == values
    assert await value(python_client, "status-format[1]", global_=True) == values[1]
    aliases = shared.lines("show-options", "-sv", "command-alias")
    assert await value(python_client, "command-alias", scope="server") == aliases
    # An array with nothing in it is an empty list, not an empty string.
    assert await value(python_client, "terminal-overrides", scope="server") == []


async def test_show_option_reads_the_scope_and_target_given(
    shared: TmuxServer, python_client: Client
) -> None:
    name = f"opt-{tag()}"
    session_id, window, pane = shared.new_session(name).ids
    shared.tmux("set-option", "-w", "-t", window, "automatic-rename", "off")
    shared.tmux("set-option", "-p", "-t", pane, "remain-on-exit", "on")
    shared.tmux("set-option", "-t", session_id, "status-left", f"left {name}")
    shared.tmux("set-option", "-p", "-t", pane, f"@pane-{name}", "pane value")
    assert await value(python_client, "automatic-rename", scope="window", target=window) is False
    assert await value(python_client, "remain-on-exit", scope="pane", target=pane) is True
    for target in (session_id, name, pane):
        found = await value(python_client, "status-left", scope="session", target=target)
        assert found == f"left {name}", target
    assert await value(python_client, f"@pane-{name}", scope="pane", target=pane) == "pane value"
    # Other sessions, and the global value, are left alone.
    assert await value(python_client, "status-left", global_=True) == raw_value(
        shared, "-g", "status-left"
    )
    assert await value(python_client, "status-left", target="main") != f"left {name}"


async def test_show_option_user_values_come_back_verbatim(
    shared: TmuxServer, python_client: Client
) -> None:
    name = f"@tcm-{tag()}"
    for text in (TRICKY, "8080", "on", "two\nlines", ""):
        shared.tmux("set-option", "-g", name, text)
        assert raw_value(shared, "-g", name) == text
        assert await value(python_client, name, global_=True) == text, text
        assert await value(python_client, name) == text, text  # inherited by the session
    shared.tmux("set-option", "-g", "status-right", TRICKY)
    try:
        assert await value(python_client, "status-right", global_=True) == TRICKY
    finally:
        shared.tmux("set-option", "-gu", "status-right")


async def test_show_option_an_unset_user_option_is_null(python_client: Client) -> None:
    assert await value(python_client, f"@unset-{tag()}", global_=True) is None
    assert await value(python_client, f"@unset-{tag()}", scope="window") is None


async def test_show_option_session_names_match_exactly(
    shared: TmuxServer, python_client: Client
) -> None:
    name = f"exact-{tag()}"
    session_id = shared.new_session(f"{name}-longer").id
    shared.tmux("set-option", "-t", session_id, "status-left", "the longer one")
    # tmux's own target parser would take the prefix for the longer session.
    message = await python_client.error(
        "show_option", {"option": "status-left", "scope": "session", "target": name}
    )
    assert "target" in message and name in message and "list_sessions" in message


async def test_show_option_errors_name_what_was_wrong(
    shared: TmuxServer, python_client: Client
) -> None:
    message = await python_client.error("show_option", {"option": "no-such-option-tcm"})
    assert "no-such-option-tcm" in message
    message = await python_client.error(
        "show_option", {"option": "status-left", "scope": "window", "target": "@999"}
    )
    assert "target" in message and "@999" in message and "list_windows" in message
    message = await python_client.error(
        "show_option", {"option": "remain-on-exit", "scope": "pane", "target": "%999"}
    )
    assert "target" in message and "%999" in message and "list_panes" in message
    message = await python_client.error("show_option", {"option": "status-left; kill-server"})
    assert "option" in message
    assert shared.tmux("list-sessions")  # still running


# --- show_environment -------------------------------------------------------------------


async def test_show_environment_global_and_per_session(
    shared: TmuxServer, python_client: Client
) -> None:
    key = tag().upper()
    name = f"env-{tag()}"
    session_id = shared.new_session(name).id
    shared.tmux("set-environment", "-g", f"TCM_G_{key}", TRICKY)
    shared.tmux("set-environment", "-g", f"TCM_ML_{key}", "first\nSECOND=not a variable\n-x")
    shared.tmux("set-environment", "-g", "-r", f"TCM_GONE_{key}")
    shared.tmux("set-environment", "-t", name, f"TCM_S_{key}", "session=only")
    shared.tmux("set-environment", "-t", name, "-r", f"TCM_SGONE_{key}")

    variables = (await python_client.ok("show_environment"))["variables"]
    assert variables[f"TCM_G_{key}"] == TRICKY
    assert variables[f"TCM_ML_{key}"] == "first\nSECOND=not a variable\n-x"
    assert "SECOND" not in variables and "x" not in variables
    assert variables[f"TCM_GONE_{key}"] is True
    assert f"TCM_S_{key}" not in variables

    for arguments in (
        {"session_name": name},
        {"session_id": session_id},
        {"session_id": session_id, "session_name": name},  # both, naming the same session
    ):
        scoped = (await python_client.ok("show_environment", arguments))["variables"]
        assert scoped[f"TCM_S_{key}"] == "session=only", arguments
        assert scoped[f"TCM_SGONE_{key}"] is True
        assert f"TCM_G_{key}" not in scoped


async def test_show_environment_of_a_session_that_does_not_exist(python_client: Client) -> None:
    message = await python_client.error("show_environment", {"session_name": "no-such-session"})
    assert "no-such-session" in message and "list_sessions" in message
    message = await python_client.error("show_environment", {"session_id": "main"})
    assert "session_id" in message


# --- show_hooks and show_hook -----------------------------------------------------------


async def test_show_hooks_lists_the_global_hooks_set(
    shared: TmuxServer, python_client: Client
) -> None:
    key = tag()
    shared.tmux("set-hook", "-g", "session-renamed[3]", f"set-option -g @tcm-{key} '{TRICKY}'")
    shared.tmux("set-hook", "-g", "pane-exited", f"set-option -g @tcm-pe-{key} 1")
    try:
        entries = (await python_client.ok("show_hooks", {"global_": True}))["entries"]
        listed = {**tmux_hooks(shared, "-g"), **tmux_hooks(shared, "-gw")}
        assert {f"{e['hook_name']}[{e['index']}]": e["command"] for e in entries} == listed
        command = listed["session-renamed[3]"]
        assert f"@tcm-{key}" in command and "#{session_name}" in command
        assert {"hook_name": "session-renamed", "index": 3, "command": command} in entries
        assert any(e["hook_name"] == "pane-exited" for e in entries)  # a window hook
        # Hooks that are not set are not listed.
        assert all(e["command"] for e in entries)

        sessions = await python_client.ok("show_hooks", {"global_": True, "scope": "session"})
        assert not any(e["hook_name"] == "pane-exited" for e in sessions["entries"])
    finally:
        shared.tmux("set-hook", "-gu", "session-renamed[3]")
        shared.tmux("set-hook", "-gu", "pane-exited")


async def test_show_hooks_of_a_session_and_a_window(
    shared: TmuxServer, python_client: Client
) -> None:
    key = tag()
    name = f"hooks-{key}"
    session_id, window, pane = shared.new_session(name).ids
    shared.tmux("set-hook", "-t", name, "client-attached", f"set-option -g @tcm-s-{key} 1")
    shared.tmux("set-hook", "-w", "-t", window, "window-renamed", f"set-option -g @tcm-w-{key} 1")
    for target in (name, session_id):
        entries = (await python_client.ok("show_hooks", {"scope": "session", "target": target}))[
            "entries"
        ]
        assert entries == [
            {
                "hook_name": "client-attached",
                "index": 0,
                "command": tmux_hooks(shared, "-t", name)["client-attached[0]"],
            }
        ]
    windowed = (await python_client.ok("show_hooks", {"scope": "window", "target": window}))[
        "entries"
    ]
    assert [(e["hook_name"], e["index"]) for e in windowed] == [("window-renamed", 0)]
    # With no scope: the session's hooks and its window's.
    both = (await python_client.ok("show_hooks", {"target": pane}))["entries"]
    assert {e["hook_name"] for e in both} == {"client-attached", "window-renamed"}
    # None of them is global.
    globally = (await python_client.ok("show_hooks", {"global_": True}))["entries"]
    assert not any(key in e["command"] for e in globally)


async def test_show_hook_reads_one_hook(shared: TmuxServer, python_client: Client) -> None:
    key = tag()
    shared.tmux("set-hook", "-g", "after-new-window[2]", f"set-option -g @tcm-a-{key} 'x;y'")
    shared.tmux("set-hook", "-g", "after-new-window[5]", f"set-option -g @tcm-b-{key} 1")
    try:
        listed = tmux_hooks(shared, "-g")
        entries = await python_client.ok(
            "show_hook", {"hook_name": "after-new-window", "global_": True}
        )
        assert entries["entries"] == [
            {"hook_name": "after-new-window", "index": 2, "command": listed["after-new-window[2]"]},
            {"hook_name": "after-new-window", "index": 5, "command": listed["after-new-window[5]"]},
        ]
        one = await python_client.ok(
            "show_hook", {"hook_name": "after-new-window[5]", "global_": True}
        )
        assert [e["index"] for e in one["entries"]] == [5]
    finally:
        shared.tmux("set-hook", "-gu", "after-new-window")
    # A hook with nothing set has no entries.
    unset = await python_client.ok("show_hook", {"hook_name": "after-kill-pane", "global_": True})
    assert unset == {"entries": []}
    local = await python_client.ok("show_hook", {"hook_name": "pane-exited", "target": "main"})
    assert local == {"entries": []}


async def test_show_hook_and_show_hooks_errors(python_client: Client) -> None:
    message = await python_client.error("show_hook", {"hook_name": "no-such-hook"})
    assert "hook_name" in message and "no-such-hook" in message
    # An option that is not a hook is not one, though tmux's show-hooks prints it.
    message = await python_client.error(
        "show_hook", {"hook_name": "history-limit", "global_": True}
    )
    assert "hook_name" in message and "history-limit" in message
    message = await python_client.error("show_hooks", {"scope": "server"})
    assert "scope" in message and "global_" in message
    message = await python_client.error("show_hooks", {"scope": "session", "target": "%999"})
    assert "%999" in message and "list_panes" in message
