"""The swift profile's create_session, create_window, split_window and respawn_pane, called
through the MCP client against real tmux and checked with tmux itself.

One tmux server and one MCP server (every toolset on) serve the module; each test makes
its own sessions, windows and panes. Targets go in as raw ids and as refs; a refused
call is checked to have changed nothing, and one judged without tmux to have sent
tmux nothing.
"""

from __future__ import annotations

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
    without_ref,
)
from tests.helpers.family import swift_pane_row as pane_as_tmux_sees_it
from tests.helpers.family import tmux_fields as show
from tests.helpers.family import window_running as new_window
from tests.helpers.tmux import tag

pytestmark = pytest.mark.anyio


async def refused(shared: TmuxServer, client: Client, tool: str, args: dict[str, Any]) -> str:
    """A call judged without tmux: refused, and nothing was sent."""
    before = shared.state()
    mark = shared.mark()
    message = await client.error(tool, args)
    shared.assert_nothing_sent_since(mark, tool)
    assert shared.state() == before
    return message


# --- create_session -----------------------------------------------------------------------


async def test_create_session_is_detached_literal_sized_and_gives_a_ref(
    shared: TmuxServer, swift_client: Client
) -> None:
    name = f"#{{session_id}} #(touch {shared.tmpdir}/ran) {tag()}"
    window_name = "#{pane_id} w"
    made = await swift_client.ok(
        "create_session", {"name": name, "windowName": window_name, "width": 90, "height": 20}
    )
    session = made["id"]
    fields = ("session_name", "session_windows", "session_attached", "session_created")
    name_held, windows, attached, created = show(shared, session, *fields)
    assert without_ref(made) == {
        "id": session,
        "name": name_held,
        "windowCount": int(windows),
        "isAttached": attached != "0",
        "createdAt": int(created),
    }
    assert (name_held, windows, attached) == (name, "1", "0")
    assert show(shared, session, "window_name", "window_width", "window_height") == [
        window_name,
        "90",
        "20",
    ]
    assert show(shared, session, "pane_current_path") == [here()]
    assert not (shared.tmpdir / "ran").exists()
    # The ref names that session wherever a session is asked for.
    info = await swift_client.ok("get_session_info", {"session": made["ref"]})
    assert info["session"]["id"] == session


async def test_create_session_start_directory_is_taken_literally(
    shared: TmuxServer, swift_client: Client
) -> None:
    directory = shared.tmpdir / f"d#{{pane_id}}-{tag()}"
    directory.mkdir()
    made = await swift_client.ok(
        "create_session", {"name": f"dir-{tag()}", "startDirectory": str(directory)}
    )
    # Until its program runs, a new pane reports an empty current path (under load, for a
    # while): wait for it to be known, then hold it to the directory asked for.
    shared.until_started(made["id"])
    assert show(shared, made["id"], "pane_current_path") == [str(directory)]


async def test_create_session_refuses_a_name_another_session_has_and_changes_nothing(
    shared: TmuxServer, swift_client: Client
) -> None:
    name = f"taken-{tag()}"
    await swift_client.ok("create_session", {"name": name})
    before = shared.state()
    message = await swift_client.error("create_session", {"name": name})
    assert message.startswith("Invalid argument `name`")
    assert "already the name of a session" in message and "list_sessions" in message
    assert shared.state() == before
    assert shared.lines("list-sessions", "-F", "#{session_name}").count(name) == 1


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "a.b"}, "name"),
        ({"name": "x", "width": 10001}, "width"),
        ({"name": "x", "height": 10001}, "height"),
        ({"name": "x", "startDirectory": "/no/such/directory"}, "startDirectory"),
    ],
)
async def test_create_session_bad_input_sends_tmux_nothing(
    shared: TmuxServer, swift_client: Client, arguments: dict[str, Any], field: str
) -> None:
    message = await refused(shared, swift_client, "create_session", arguments)
    assert message.startswith(f"Invalid argument `{field}`"), message


# --- create_window ------------------------------------------------------------------------


async def test_create_window_by_session_ref_in_the_background_named_literally(
    shared: TmuxServer, swift_client: Client
) -> None:
    made_session = await swift_client.ok("create_session", {"name": f"cw-{tag()}"})
    session = made_session["id"]
    title = "#{pane_id} ;x"
    made = await swift_client.ok("create_window", {"session": made_session["ref"], "name": title})
    window = made["id"]
    fields = ("window_name", "window_panes", "window_width", "window_height", "window_active")
    name, panes, width, height, active = show(shared, window, *fields)
    assert {key: made[key] for key in made if not key.endswith("Ref")} == {
        "id": window,
        "name": name,
        "paneCount": int(panes),
        "width": int(width),
        "height": int(height),
        "sessionID": session,
        "index": 1,
        "isActive": active == "1",
        "target": f"{session}:1",
    }
    assert (name, active) == (title, "0")
    assert show(shared, window, "pane_current_path") == [here()]
    # Both refs name the window; by name the session is found too.
    for ref in (made["windowRef"], made["linkRef"]):
        info = await swift_client.ok("get_window_info", {"windowId": ref})
        assert info["window"]["id"] == window
    by_name = await swift_client.ok("create_window", {"session": made_session["name"]})
    assert by_name["target"] == f"{session}:2"
    assert show(shared, by_name["id"], "automatic-rename") == ["1"]


async def test_create_window_unknown_session_and_bad_input_change_nothing(
    shared: TmuxServer, swift_client: Client
) -> None:
    before = shared.state()
    message = await swift_client.error("create_window", {"session": f"none-{tag()}"})
    assert "`session`" in message and "list_sessions" in message
    assert shared.state() == before
    message = await refused(
        shared,
        swift_client,
        "create_window",
        {"session": "main", "startDirectory": "/no/such/directory"},
    )
    assert message.startswith("Invalid argument `startDirectory`")
    message = await refused(shared, swift_client, "create_window", {"session": "tmr1.s.forged.x"})
    assert "`session`" in message


# --- split_window -------------------------------------------------------------------------


async def test_split_window_each_side_returns_the_new_pane_as_tmux_sees_it(
    shared: TmuxServer, swift_client: Client
) -> None:
    for direction, fits in SIDES.items():
        _, pane = new_window(shared)
        made = await swift_client.ok("split_window", {"paneId": pane, "direction": direction})
        new = made["id"]
        assert fits(corner(shared, new), corner(shared, pane)), direction
        # Until the new pane's child has exec'd its shell, tmux names its command "tmux".
        assert made["currentCommand"] in ("tmux", "sh"), made
        seen = pane_as_tmux_sees_it(shared, new)
        assert without_ref(made) | {"currentCommand": seen["currentCommand"]} == seen
        assert made["isActive"] is False and show(shared, pane, "pane_active") == ["1"]
    # By ref, below by default, in our directory; the new pane's ref works in turn.
    _, pane = new_window(shared)
    ref = (await swift_client.ok("get_pane_info", {"paneId": pane}))["pane"]["ref"]
    made = await swift_client.ok("split_window", {"paneId": ref})
    assert SIDES["below"](corner(shared, made["id"]), corner(shared, pane))
    assert show(shared, made["id"], "pane_current_path") == [here()]
    again = await swift_client.ok("split_window", {"paneId": made["ref"], "direction": "right"})
    assert show(shared, again["id"], "window_id") == [made["windowID"]]


async def test_split_window_start_directory_is_taken_literally(
    shared: TmuxServer, swift_client: Client
) -> None:
    directory = shared.tmpdir / f"s#(touch ran)-{tag()}"
    directory.mkdir()
    _, pane = new_window(shared)
    made = await swift_client.ok("split_window", {"paneId": pane, "startDirectory": str(directory)})
    assert show(shared, made["id"], "pane_current_path") == [str(directory)]


async def test_split_window_bad_input_sends_nothing_and_unknown_pane_changes_nothing(
    shared: TmuxServer, swift_client: Client
) -> None:
    pane = shared.active_pane()
    for arguments, field in (
        ({"paneId": "main"}, "paneId"),
        ({"paneId": "tmr1.p.forged.x"}, "paneId"),
        ({"paneId": pane, "startDirectory": "/no/such/directory"}, "startDirectory"),
    ):
        message = await refused(shared, swift_client, "split_window", arguments)
        assert message.startswith(f"Invalid argument `{field}`"), message
    before = shared.state()
    message = await swift_client.error("split_window", {"paneId": "%9999"})
    assert "%9999" in message and "list_panes" in message
    assert shared.state() == before


# --- respawn_pane -------------------------------------------------------------------------


async def test_respawn_pane_reruns_the_panes_own_command_with_kill_first_or_force(
    shared: TmuxServer, swift_client: Client
) -> None:
    pane, log = counting_window(shared)
    (pid,) = show(shared, pane, "pane_pid")
    message = await swift_client.error("respawn_pane", {"paneId": pane})
    assert "still runs its process" in message and "killFirst" in message
    assert show(shared, pane, "pane_pid") == [pid] and lines_of(log, 1) == ["started"]
    cursor = (await swift_client.ok("capture_since", {"paneId": pane}))["cursor"]
    made = await swift_client.ok("respawn_pane", {"paneId": pane, "killFirst": True})
    assert made["pane"] == pane
    assert lines_of(log, 2) == ["started", "started"]
    since = await swift_client.ok("capture_since", {"paneId": pane, "cursor": cursor})
    assert since["restarted"] is True
    # The ref it answers with names the same pane; force ends the process as well.
    again = await swift_client.ok("respawn_pane", {"paneId": made["paneRef"], "force": True})
    assert again["pane"] == pane
    assert lines_of(log, 3) == ["started"] * 3


async def test_respawn_pane_restarts_a_dead_pane_in_the_directory_given(
    shared: TmuxServer, swift_client: Client
) -> None:
    pane, log = counting_window(shared)
    end_keeping_the_pane(shared, pane)
    directory = shared.tmpdir / f"r#{{pane_id}}-{tag()}"
    directory.mkdir()
    made = await swift_client.ok("respawn_pane", {"paneId": pane, "startDirectory": str(directory)})
    assert made["pane"] == pane and show(shared, pane, "pane_dead") == ["0"]
    assert lines_of(log, 2) == ["started", "started"]
    assert show(shared, pane, "pane_current_path") == [str(directory)]


async def test_respawn_pane_bad_input_sends_nothing_and_unknown_pane_changes_nothing(
    shared: TmuxServer, swift_client: Client
) -> None:
    pane = shared.active_pane()
    for arguments, field in (
        ({"paneId": "1", "killFirst": True}, "paneId"),
        ({"paneId": pane, "killFirst": True, "startDirectory": "/no/such"}, "startDirectory"),
    ):
        message = await refused(shared, swift_client, "respawn_pane", arguments)
        assert message.startswith(f"Invalid argument `{field}`"), message
    before = shared.state()
    message = await swift_client.error("respawn_pane", {"paneId": "%9999", "force": True})
    assert "%9999" in message
    assert shared.state() == before


# --- respawn_pane and the caller's own pane ----------------------------------------------


@pytest.fixture(scope="module")
async def inside(shared: TmuxServer) -> AsyncIterator[tuple[Client, str]]:
    """A swift MCP server that believes it runs in a pane of the module's tmux (the
    TMUX and TMUX_PANE tmux would give it there); and that pane."""
    pane, _ = counting_window(shared)
    pid = shared.tmux("display-message", "-p", "#{pid}").strip()
    env = shared.server_env(
        LIBTMUX_TOOLSETS="inspect,manage,execute,teardown",
        TMUX=f"{shared.socket_path},{pid},0",
        TMUX_PANE=pane,
    )
    async with open_in_process(env, "swift") as client:
        yield client, pane


async def test_respawn_pane_kill_first_spares_the_callers_pane_and_only_force_ends_it(
    shared: TmuxServer, inside: tuple[Client, str]
) -> None:
    client, own = inside
    (pid,) = show(shared, own, "pane_pid")
    before = shared.state()
    message = await client.error("respawn_pane", {"paneId": own, "killFirst": True})
    assert message.startswith("Refused") and own in message and "force: true" in message
    assert show(shared, own, "pane_pid") == [pid] and shared.state() == before
    other, log = counting_window(shared)
    assert (await client.ok("respawn_pane", {"paneId": other, "killFirst": True}))["pane"] == other
    assert lines_of(log, 2) == ["started", "started"]
    forced = await client.ok("respawn_pane", {"paneId": own, "force": True})
    assert forced["pane"] == own and show(shared, own, "pane_pid") != [pid]
