"""The rust profile's create_session, create_window, split_window and respawn_pane, called
through the MCP client against real tmux and checked with tmux itself.

One tmux server and one MCP server (every toolset on) serve the module; each test makes
its own sessions, windows and panes. A refused call is checked to have changed nothing,
and one judged without tmux to have sent tmux nothing.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from scripts.lab.client import Client, open_in_process
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.family import (
    SIDES,
    corner,
    counting_window,
    end_keeping_the_pane,
    here,
    lines_of,
)
from tests.helpers.family import tmux_fields as show
from tests.helpers.family import window_running as new_window
from tests.helpers.tmux import tag

pytestmark = pytest.mark.anyio


# --- helpers ------------------------------------------------------------------------------


def failure(text: str) -> dict[str, Any]:
    """The family's error envelope: ``{message, data: {kind, retryable, stale}}``."""
    value = json.loads(text)
    assert set(value) == {"message", "data"}, value
    return {"message": value["message"], **value["data"]}


async def refused(shared: TmuxServer, client: Client, tool: str, args: dict[str, Any]) -> Any:
    """A call judged without tmux: refused as invalid_input, and nothing was sent."""
    before = shared.state()
    mark = shared.mark()
    sent = failure(await client.error(tool, args))
    shared.assert_nothing_sent_since(mark, tool)
    assert shared.state() == before
    assert sent["kind"] == "invalid_input", sent
    return sent


# --- create_session -----------------------------------------------------------------------


async def test_create_session_is_detached_named_literally_and_starts_in_our_directory(
    shared: TmuxServer, rust_client: Client
) -> None:
    name = f"#{{session_id}} #(touch {shared.tmpdir}/ran) {tag()}"
    made = await rust_client.ok("create_session", {"name": name})
    session = made["id"]
    assert made == {"id": session, "name": name, "windows": 1, "attached": False}
    assert show(shared, session, "session_name", "session_windows", "session_attached") == [
        name,
        "1",
        "0",
    ]
    assert show(shared, session, "pane_current_path") == [here()]
    assert not (shared.tmpdir / "ran").exists()
    # The client that sent it is still where it was: the new session is in the background.
    assert shared.lines("list-clients", "-t", session, "-F", "#{client_pid}") == []


async def test_create_session_start_directory_is_taken_literally(
    shared: TmuxServer, rust_client: Client
) -> None:
    directory = shared.tmpdir / f"d#{{pane_id}}-{tag()}"
    directory.mkdir()
    made = await rust_client.ok(
        "create_session", {"name": f"dir-{tag()}", "start_directory": str(directory)}
    )
    assert show(shared, made["id"], "pane_current_path") == [str(directory)]


async def test_create_session_refuses_a_name_another_session_has_and_changes_nothing(
    shared: TmuxServer, rust_client: Client
) -> None:
    name = f"taken-{tag()}"
    await rust_client.ok("create_session", {"name": name})
    before = shared.state()
    sent = failure(await rust_client.error("create_session", {"name": name}))
    assert sent["kind"] == "invalid_input" and sent["retryable"] is False
    assert "`name`" in sent["message"] and "already the name of a session" in sent["message"]
    assert shared.state() == before
    assert shared.lines("list-sessions", "-F", "#{session_name}").count(name) == 1


@pytest.mark.parametrize(
    "arguments",
    [
        {"name": ""},
        {"name": "a.b"},
        {"name": "a:b"},
        {"name": "tab\there"},
        {"name": "fine", "start_directory": "/no/such/directory"},
    ],
)
async def test_create_session_bad_input_sends_tmux_nothing(
    shared: TmuxServer, rust_client: Client, arguments: dict[str, Any]
) -> None:
    sent = await refused(shared, rust_client, "create_session", arguments)
    field = "start_directory" if "start_directory" in arguments else "name"
    assert f"`{field}`" in sent["message"]


# --- create_window ------------------------------------------------------------------------


async def test_create_window_in_a_session_by_name_or_id_in_the_background(
    shared: TmuxServer, rust_client: Client
) -> None:
    name = f"cw-{tag()}"
    session = (await rust_client.ok("create_session", {"name": name}))["id"]
    title = "#{pane_id} ;x"
    made = await rust_client.ok("create_window", {"session": name, "name": title})
    window = made["id"]
    fields = ("session_id", "window_index", "window_name", "window_panes", "window_active")
    assert show(shared, window, *fields) == [session, "1", title, "1", "0"]
    assert made == {
        "id": window,
        "session_id": session,
        "index": 1,
        "name": title,
        "panes": 1,
        "active": False,
        "linked": False,
    }
    assert show(shared, window, "pane_current_path") == [here()]
    # Unnamed: tmux names it after its program.
    unnamed = await rust_client.ok("create_window", {"session": session, "name": None})
    assert unnamed["index"] == 2
    assert show(shared, unnamed["id"], "window_name", "automatic-rename") == [
        unnamed["name"],
        "1",
    ]
    assert show(shared, window, "automatic-rename") == ["0"]


async def test_create_window_unknown_session_is_object_gone_and_changes_nothing(
    shared: TmuxServer, rust_client: Client
) -> None:
    before = shared.state()
    sent = failure(await rust_client.error("create_window", {"session": f"none-{tag()}"}))
    assert sent["kind"] == "object_gone" and sent["stale"] is True
    assert "`session`" in sent["message"] and "list_sessions" in sent["message"]
    assert shared.state() == before
    missing = {"session": "main", "start_directory": "/no/such/directory"}
    assert (
        "`start_directory`"
        in (await refused(shared, rust_client, "create_window", missing))["message"]
    )


# --- split_window -------------------------------------------------------------------------


async def test_split_window_puts_the_new_pane_on_each_side_and_keeps_the_old_one_active(
    shared: TmuxServer, rust_client: Client
) -> None:
    for direction, fits in SIDES.items():
        _, pane = new_window(shared)
        made = await rust_client.ok("split_window", {"pane": pane, "direction": direction})
        new = made["id"]
        assert fits(corner(shared, new), corner(shared, pane)), direction
        assert show(shared, pane, "pane_active") == ["1"]
        assert made["window_id"] == show(shared, new, "window_id")[0]
        assert made["active"] is False and made["caller"] == "unknown"
    _, pane = new_window(shared)
    made = await rust_client.ok("split_window", {"pane": pane, "direction": None})
    assert SIDES["below"](corner(shared, made["id"]), corner(shared, pane))
    assert show(shared, made["id"], "pane_current_path") == [here()] == [made["path"]]


async def test_split_window_percent_sizes_the_new_pane(
    shared: TmuxServer, rust_client: Client
) -> None:
    _, pane = new_window(shared)
    (height,) = show(shared, pane, "pane_height")
    made = await rust_client.ok("split_window", {"pane": pane, "percent": 30})
    (new_height,) = show(shared, made["id"], "pane_height")
    assert abs(int(new_height) - int(height) * 30 // 100) <= 1, (height, new_height)


async def test_split_window_start_directory_is_taken_literally(
    shared: TmuxServer, rust_client: Client
) -> None:
    directory = shared.tmpdir / f"s#(touch ran)-{tag()}"
    directory.mkdir()
    _, pane = new_window(shared)
    made = await rust_client.ok(
        "split_window", {"pane": pane, "start_directory": str(directory), "direction": "left"}
    )
    assert made["path"] == str(directory)
    assert show(shared, made["id"], "pane_current_path") == [str(directory)]


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"percent": 0}, "percent"),
        ({"percent": 101}, "percent"),
        ({"start_directory": "/no/such/directory"}, "start_directory"),
        ({"pane": "main"}, "pane"),
    ],
)
async def test_split_window_bad_input_sends_tmux_nothing(
    shared: TmuxServer, rust_client: Client, arguments: dict[str, Any], field: str
) -> None:
    pane = shared.active_pane()
    sent = await refused(shared, rust_client, "split_window", {"pane": pane, **arguments})
    assert f"`{field}`" in sent["message"]


async def test_split_window_unknown_pane_is_object_gone(
    shared: TmuxServer, rust_client: Client
) -> None:
    before = shared.state()
    sent = failure(await rust_client.error("split_window", {"pane": "%9999"}))
    assert sent["kind"] == "object_gone" and "%9999" in sent["message"]
    assert shared.state() == before


# --- respawn_pane -------------------------------------------------------------------------


async def test_respawn_pane_reruns_the_panes_own_command_only_with_kill_first(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane, log = counting_window(shared)
    (pid,) = show(shared, pane, "pane_pid")
    sent = failure(await rust_client.error("respawn_pane", {"pane": pane}))
    assert sent["kind"] == "refused" and "kill_first" in sent["message"]
    assert show(shared, pane, "pane_pid") == [pid] and lines_of(log, 1) == ["started"]
    made = await rust_client.ok("respawn_pane", {"pane": pane, "kill_first": True})
    assert made["id"] == pane and made["caller"] == "unknown"
    assert lines_of(log, 2) == ["started", "started"]
    assert show(shared, pane, "pane_pid") != [pid]


async def test_respawn_pane_restarts_a_dead_pane_without_kill_first(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane, log = counting_window(shared)
    end_keeping_the_pane(shared, pane)
    made = await rust_client.ok("respawn_pane", {"pane": pane})
    assert made["id"] == pane and show(shared, pane, "pane_dead") == ["0"]
    assert lines_of(log, 2) == ["started", "started"]


async def test_respawn_pane_bad_input_sends_nothing_and_unknown_pane_is_object_gone(
    shared: TmuxServer, rust_client: Client
) -> None:
    await refused(shared, rust_client, "respawn_pane", {"pane": "1", "kill_first": True})
    before = shared.state()
    sent = failure(await rust_client.error("respawn_pane", {"pane": "%9999", "kill_first": True}))
    assert sent["kind"] == "object_gone" and "%9999" in sent["message"]
    assert shared.state() == before


# --- respawn_pane and the caller's own pane ----------------------------------------------


@pytest.fixture(scope="module")
async def inside(shared: TmuxServer) -> AsyncIterator[tuple[Client, str]]:
    """A rust MCP server that believes it runs in a pane of the module's tmux (the
    TMUX and TMUX_PANE tmux would give it there); and that pane."""
    _, pane = new_window(shared)
    pid = shared.tmux("display-message", "-p", "#{pid}").strip()
    env = shared.server_env(
        LIBTMUX_TOOLSETS="inspect,manage,execute,teardown",
        TMUX=f"{shared.socket_path},{pid},0",
        TMUX_PANE=pane,
    )
    async with open_in_process(env, "rust") as client:
        yield client, pane


async def test_respawn_pane_never_kills_the_callers_own_pane(
    shared: TmuxServer, inside: tuple[Client, str]
) -> None:
    client, own = inside
    (pid,) = show(shared, own, "pane_pid")
    before = shared.state()
    sent = failure(await client.error("respawn_pane", {"pane": own, "kill_first": True}))
    assert sent["kind"] == "self_protection" and own in sent["message"]
    assert show(shared, own, "pane_pid") == [pid] and shared.state() == before
    # Another pane is restarted as asked, and the caller's own pane is told apart.
    other, log = counting_window(shared)
    made = await client.ok("respawn_pane", {"pane": other, "kill_first": True})
    assert made["caller"] == "other" and lines_of(log, 2) == ["started", "started"]
    split = await client.ok("split_window", {"pane": own})
    assert split["caller"] == "other" and show(shared, own, "pane_pid") == [pid]
