"""The swift profile's 16 inspect tools, each called directly through the MCP client against real tmux.

One tmux server and one MCP server serve the whole module (starting the MCP
server costs over a second); every test makes its own sessions, windows and
panes with unique names and only asserts about those, or compares with what
tmux itself reports at that moment. Tests that need a server process of their
own (no tmux server, refs across processes) open one.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from scripts.lab.client import Client, open_in_process
from scripts.lab.tmuxserver import TMUX, TmuxServer
from tests.helpers.family import history_lines as contents
from tests.helpers.family import swift_pane_row as pane_as_tmux_sees_it
from tests.helpers.family import tmux_fields as show
from tests.helpers.family import until_line as wait_for_line
from tests.helpers.family import window_running as new_window
from tests.helpers.family import without_ref
from tests.helpers.tmux import tag

pytestmark = pytest.mark.anyio

CORNERS = ("top-left", "top-right", "bottom-left", "bottom-right")
# --- fixtures ---------------------------------------------------------------------------


# --- helpers ----------------------------------------------------------------------------


def reader(*lines: str) -> list[str]:
    """A pane command: print ``lines``, then echo back each line typed (without tty echo)."""
    script = 'stty -echo; for l in "$@"; do printf "%s\\n" "$l"; done; exec cat'
    return ["sh", "-c", script, "sh", *lines]


def numbered(count: int, prefix: str) -> list[str]:
    """A pane command printing ``<prefix>1`` … ``<prefix><count>``, then echoing typed lines."""
    return ["sh", "-c", f"stty -echo; seq 1 {count} | sed 's/^/{prefix}/'; exec cat"]


def grid(server: TmuxServer, window: str) -> dict[str, str]:
    """Split ``window`` into a 2x2 grid; corner name -> pane id."""
    server.tmux("split-window", "-h", "-t", window)
    first, second = [
        line.split()[1]
        for line in server.lines("list-panes", "-t", window, "-F", "#{pane_index} #{pane_id}")
    ]
    server.tmux("split-window", "-v", "-t", first)
    server.tmux("split-window", "-v", "-t", second)
    server.tmux("select-layout", "-t", window, "tiled")
    corners = server.corners(window)
    assert len(set(corners.values())) == 4, corners
    return corners


def type_lines(server: TmuxServer, pane: str, *lines: str) -> None:
    """Type ``lines`` into a ``reader`` pane (which prints each back)."""
    for line in lines:
        server.tmux("send-keys", "-t", pane, "-l", "--", line)
        server.tmux("send-keys", "-t", pane, "Enter")


def feed(server: TmuxServer, pane: str, *lines: str) -> None:
    """Type ``lines`` and wait until the last one is printed."""
    type_lines(server, pane, *lines)
    wait_for_line(server, pane, lines[-1])


def unique_pane_ids(server: TmuxServer, *scope: str) -> set[str]:
    return set(server.lines("list-panes", *scope, "-F", "#{pane_id}"))


# --- capture_pane -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def swift_env() -> dict[str, str]:
    """The default toolsets and wait ceiling."""
    return {}


async def test_capture_pane_returns_the_screen_text_with_trailing_blank_rows_trimmed(
    shared: TmuxServer, swift_client: Client
) -> None:
    _, pane = new_window(shared, *reader("alpha", "beta", "", "gamma"))
    wait_for_line(shared, pane, "gamma")
    captured = await swift_client.ok("capture_pane", {"paneId": pane})
    # The blank line between output is kept; the 46 empty rows under it are not.
    assert captured == {"paneId": pane, "lines": ["alpha", "beta", "", "gamma"], "droppedLines": 0}


async def test_capture_pane_max_lines_keeps_the_newest_lines_and_counts_the_rest(
    shared: TmuxServer, swift_client: Client
) -> None:
    _, pane = new_window(shared, *numbered(50, "line-"))
    wait_for_line(shared, pane, "line-50")
    everything = await swift_client.ok(
        "capture_pane", {"paneId": pane, "start": -100, "maxLines": 10}
    )
    assert everything["lines"] == [f"line-{i}" for i in range(41, 51)]
    assert everything["droppedLines"] == 40
    # The screen only (50 rows, one of them the cursor's): what tmux shows, newest 10 kept.
    visible = shared.tmux("capture-pane", "-p", "-t", pane).rstrip("\n").splitlines()
    while visible and not visible[-1]:
        visible.pop()
    screen = await swift_client.ok("capture_pane", {"paneId": pane, "maxLines": 10})
    assert screen["lines"] == visible[-10:] == [f"line-{i}" for i in range(41, 51)]
    assert screen["droppedLines"] == len(visible) - 10


async def test_capture_pane_negative_start_and_end_reach_into_history(
    shared: TmuxServer, swift_client: Client
) -> None:
    _, pane = new_window(shared, *numbered(100, "line-"))
    wait_for_line(shared, pane, "line-100")
    history = int(show(shared, pane, "history_size")[0])
    assert history > 5
    # History line -k is the k-th newest line that scrolled off the top.
    tail = await swift_client.ok("capture_pane", {"paneId": pane, "start": -5, "end": -1})
    assert tail["lines"] == [f"line-{i}" for i in range(history - 4, history + 1)]
    oldest = await swift_client.ok(
        "capture_pane", {"paneId": pane, "start": -history, "end": -history}
    )
    assert oldest["lines"] == ["line-1"]
    top_of_screen = await swift_client.ok("capture_pane", {"paneId": pane, "start": 0, "end": 0})
    assert top_of_screen["lines"] == [f"line-{history + 1}"]


async def test_capture_pane_join_wrapped_joins_a_line_longer_than_the_pane(
    shared: TmuxServer, swift_client: Client
) -> None:
    long_line = "0123456789" * 30
    _, pane = new_window(shared, *reader(long_line, "after"))
    wait_for_line(shared, pane, "after")
    width = int(show(shared, pane, "pane_width")[0])
    assert width < len(long_line)
    wrapped = await swift_client.ok("capture_pane", {"paneId": pane})
    assert wrapped["lines"][0] == long_line[:width]
    assert "".join(wrapped["lines"][:-1]) == long_line
    joined = await swift_client.ok("capture_pane", {"paneId": pane, "joinWrapped": True})
    assert joined["lines"] == [long_line, "after"]


async def test_capture_pane_accepts_a_ref_from_list_panes(
    shared: TmuxServer, swift_client: Client
) -> None:
    window, pane = new_window(shared, *reader("by-ref"))
    wait_for_line(shared, pane, "by-ref")
    listed = await swift_client.ok("list_panes", {"window": window})
    [row] = listed["panes"]
    assert row["id"] == pane and row["ref"] != pane
    by_ref = await swift_client.ok("capture_pane", {"paneId": row["ref"]})
    assert by_ref == {"paneId": pane, "lines": ["by-ref"], "droppedLines": 0}


async def test_capture_pane_unknown_pane_names_the_pane_and_the_socket(
    shared: TmuxServer, swift_client: Client
) -> None:
    message = await swift_client.error("capture_pane", {"paneId": "%999"})
    assert "%999" in message
    assert shared.socket_path in message


async def test_capture_pane_malformed_pane_id_names_the_field(swift_client: Client) -> None:
    message = await swift_client.error("capture_pane", {"paneId": "abc"})
    assert "paneId" in message and "'abc'" in message


async def test_capture_pane_forged_ref_is_refused(swift_client: Client) -> None:
    message = await swift_client.error("capture_pane", {"paneId": "tmr1.p.AAAA.BBBB"})
    assert "paneId" in message and "tmr1.p.AAAA.BBBB" in message


# --- capture_since ----------------------------------------------------------------------


async def test_capture_since_continues_from_its_cursor(
    shared: TmuxServer, swift_client: Client
) -> None:
    _, pane = new_window(shared, *reader("one", "two"))
    wait_for_line(shared, pane, "two")
    first = await swift_client.ok("capture_since", {"paneId": pane})
    assert first["lines"] == ["one", "two"]
    assert first["pane"] == pane
    assert (first["linesMissed"], first["restarted"], first["droppedLines"]) == (False, False, 0)
    assert first["cursor"]
    pane_ref = (await swift_client.ok("get_pane_info", {"paneId": pane}))["pane"]["ref"]
    assert first["paneRef"] == pane_ref

    feed(shared, pane, "three", "four", "five")
    second = await swift_client.ok("capture_since", {"paneId": pane, "cursor": first["cursor"]})
    assert second["lines"] == ["three", "four", "five"]
    assert (second["linesMissed"], second["restarted"], second["droppedLines"]) == (False, False, 0)

    started = time.monotonic()
    third = await swift_client.ok("capture_since", {"paneId": pane, "cursor": second["cursor"]})
    assert third["lines"] == []
    assert time.monotonic() - started < 2.0  # no waitMs: nothing to wait for
    # The cursor still points at the same place: later output is found from it.
    feed(shared, pane, "six")
    fourth = await swift_client.ok("capture_since", {"paneId": pane, "cursor": third["cursor"]})
    assert fourth["lines"] == ["six"]


async def test_capture_since_holds_back_the_row_the_cursor_is_still_on(
    shared: TmuxServer, swift_client: Client
) -> None:
    script = "stty -echo; printf 'done\\npartial'; exec cat"
    _, pane = new_window(shared, "sh", "-c", script)
    wait_for_line(shared, pane, "partial")
    first = await swift_client.ok("capture_since", {"paneId": pane})
    assert first["lines"] == ["done"]
    type_lines(shared, pane, "-end")
    wait_for_line(shared, pane, "partial-end")
    second = await swift_client.ok("capture_since", {"paneId": pane, "cursor": first["cursor"]})
    assert second["lines"] == ["partial-end"]


async def test_capture_since_refuses_a_cursor_of_another_pane(
    shared: TmuxServer, swift_client: Client
) -> None:
    _, pane_a = new_window(shared, *reader("a"))
    _, pane_b = new_window(shared, *reader("b"))
    wait_for_line(shared, pane_a, "a")
    cursor = (await swift_client.ok("capture_since", {"paneId": pane_a}))["cursor"]
    message = await swift_client.error("capture_since", {"paneId": pane_b, "cursor": cursor})
    assert "cursor" in message
    assert pane_a in message and pane_b in message


async def test_capture_since_refuses_a_garbage_cursor(
    shared: TmuxServer, swift_client: Client
) -> None:
    _, pane = new_window(shared, *reader("x"))
    for garbage in ("garbage", "eyJ2IjoxfQ.AAAAAAAAAAAA", ""):
        message = await swift_client.error("capture_since", {"paneId": pane, "cursor": garbage})
        assert "cursor" in message, garbage


async def test_capture_since_reports_a_respawned_pane_as_restarted(
    shared: TmuxServer, swift_client: Client
) -> None:
    _, pane = new_window(shared, *reader("before"))
    wait_for_line(shared, pane, "before")
    first = await swift_client.ok("capture_since", {"paneId": pane})
    assert first["lines"] == ["before"]
    shared.tmux("respawn-pane", "-k", "-t", pane, *reader("after"))
    wait_for_line(shared, pane, "after")
    second = await swift_client.ok("capture_since", {"paneId": pane, "cursor": first["cursor"]})
    assert second["restarted"] is True
    assert second["lines"] == ["after"]
    # The new cursor belongs to the new process: continuing from it is not a restart.
    feed(shared, pane, "later")
    third = await swift_client.ok("capture_since", {"paneId": pane, "cursor": second["cursor"]})
    assert third["restarted"] is False
    assert third["lines"] == ["later"]


async def test_capture_since_wait_returns_output_printed_during_the_wait(
    shared: TmuxServer, swift_client: Client
) -> None:
    _, pane = new_window(shared, *reader("start"))
    wait_for_line(shared, pane, "start")
    first = await swift_client.ok("capture_since", {"paneId": pane})
    assert first["lines"] == ["start"]
    waited: dict[str, Any] = {}

    async def call() -> None:
        waited.update(
            await swift_client.ok(
                "capture_since", {"paneId": pane, "cursor": first["cursor"], "waitMs": 3000}
            )
        )

    with anyio.fail_after(15):
        async with anyio.create_task_group() as group:
            group.start_soon(call)
            await anyio.sleep(0.3)  # let the call start waiting: not a timing assertion
            await anyio.to_thread.run_sync(type_lines, shared, pane, "late")
    assert waited["lines"] == ["late"]
    assert waited["restarted"] is False


async def test_capture_since_wait_without_output_returns_nothing_after_the_wait(
    shared: TmuxServer, swift_client: Client
) -> None:
    _, pane = new_window(shared, *reader("quiet"))
    wait_for_line(shared, pane, "quiet")
    first = await swift_client.ok("capture_since", {"paneId": pane})
    started = time.monotonic()
    waited = await swift_client.ok(
        "capture_since", {"paneId": pane, "cursor": first["cursor"], "waitMs": 500}
    )
    elapsed = time.monotonic() - started
    assert waited["lines"] == []
    assert elapsed >= 0.49  # it did wait
    # Nothing was consumed by the wait: output after it is read from the returned cursor.
    feed(shared, pane, "afterwards")
    after = await swift_client.ok("capture_since", {"paneId": pane, "cursor": waited["cursor"]})
    assert after["lines"] == ["afterwards"]


async def test_capture_since_max_lines_keeps_the_newest_and_counts_the_dropped(
    shared: TmuxServer, swift_client: Client
) -> None:
    _, pane = new_window(shared, *numbered(30, "m"))
    wait_for_line(shared, pane, "m30")
    first = await swift_client.ok("capture_since", {"paneId": pane, "maxLines": 5})
    assert first["lines"] == ["m26", "m27", "m28", "m29", "m30"]
    assert first["droppedLines"] == 25
    feed(shared, pane, *(f"n{i}" for i in range(1, 7)))
    second = await swift_client.ok(
        "capture_since", {"paneId": pane, "cursor": first["cursor"], "maxLines": 4}
    )
    assert second["lines"] == ["n3", "n4", "n5", "n6"]
    assert second["droppedLines"] == 2
    assert second["linesMissed"] is False


async def test_capture_since_reports_lines_missed_when_history_overflowed(
    shared: TmuxServer, swift_client: Client
) -> None:
    session = f"hl-{tag()}"
    shared.new_session(session)
    shared.tmux("set-option", "-t", session, "history-limit", "100")
    script = "stty -echo; echo ready; read x; seq 1 1000 | sed 's/^/n/'; exec cat"
    _, pane = new_window(shared, "sh", "-c", script, session=session)
    wait_for_line(shared, pane, "ready")
    first = await swift_client.ok("capture_since", {"paneId": pane})
    assert first["lines"] == ["ready"]
    shared.tmux("send-keys", "-t", pane, "Enter")
    wait_for_line(shared, pane, "n1000")
    history, cursor_y = (int(v) for v in show(shared, pane, "history_size", "cursor_y"))
    assert 0 < history <= 100  # tmux drops the oldest rows in chunks
    after = await swift_client.ok(
        "capture_since", {"paneId": pane, "cursor": first["cursor"], "maxLines": 2000}
    )
    assert after["linesMissed"] is True
    assert after["restarted"] is False
    # Every row tmux still holds, and they are the newest ones, in order.
    kept = history + cursor_y
    assert after["lines"] == [f"n{i}" for i in range(1001 - kept, 1001)]
    assert after["droppedLines"] == 0


# --- find_pane_by_position --------------------------------------------------------------


async def test_find_pane_by_position_returns_each_corner_of_a_grid(
    shared: TmuxServer, swift_client: Client
) -> None:
    window = shared.new_session(f"grid-{tag()}").window
    corners = grid(shared, window)
    for corner in CORNERS:
        found = await swift_client.ok(
            "find_pane_by_position", {"corner": corner, "windowId": window}
        )
        pane = found["pane"]
        assert pane["id"] == corners[corner], corner
        assert without_ref(pane) == pane_as_tmux_sees_it(shared, corners[corner])
        vertical, horizontal = (part.capitalize() for part in corner.split("-"))
        assert pane[f"isAt{vertical}"] is True and pane[f"isAt{horizontal}"] is True


async def test_find_pane_by_position_takes_a_window_ref(
    shared: TmuxServer, swift_client: Client
) -> None:
    session = f"grid-{tag()}"
    window = shared.new_session(session).window
    corners = grid(shared, window)
    info = await swift_client.ok("get_window_info", {"windowId": window})
    for corner in ("top-left", "bottom-right"):
        found = await swift_client.ok(
            "find_pane_by_position", {"corner": corner, "windowId": info["window"]["ref"]}
        )
        assert found["pane"]["id"] == corners[corner]
    listed = await swift_client.ok("list_windows", {"session": session})
    [row] = listed["windows"]
    assert row["windowRef"] == info["window"]["ref"]


async def test_find_pane_by_position_unknown_window_is_an_error(swift_client: Client) -> None:
    message = await swift_client.error(
        "find_pane_by_position", {"corner": "top-left", "windowId": "@999"}
    )
    assert "@999" in message and "windowId" in message
    message = await swift_client.error(
        "find_pane_by_position", {"corner": "top-left", "windowId": "w1"}
    )
    assert "windowId" in message


# --- get_pane_info ----------------------------------------------------------------------


async def test_get_pane_info_matches_what_tmux_reports(
    shared: TmuxServer, swift_client: Client
) -> None:
    window = shared.new_session(f"info-{tag()}").window
    corners = grid(shared, window)
    pane = corners["bottom-right"]
    shared.tmux("respawn-pane", "-k", "-c", "/tmp", "-t", pane, "sh", "-c", "exec cat")
    deadline = time.monotonic() + 10
    while show(shared, pane, "pane_current_command") != ["cat"]:
        assert time.monotonic() < deadline, "cat never started"
        time.sleep(0.02)
    shared.tmux("set-option", "-w", "-t", window, "synchronize-panes", "on")
    shared.tmux("copy-mode", "-t", pane)
    expected = pane_as_tmux_sees_it(shared, pane)
    # The values that make this comparison mean something.
    assert expected["currentCommand"] == "cat"
    assert expected["currentPath"] == str(Path("/tmp").resolve())
    assert (expected["modeCount"], expected["isSynchronized"]) == (1, True)
    assert (expected["isAtTop"], expected["isAtBottom"]) == (False, True)
    info = await swift_client.ok("get_pane_info", {"paneId": pane})
    assert without_ref(info["pane"]) == expected
    assert info["pane"]["ref"].startswith("tmr1.")
    # The ref names the same pane and comes back unchanged.
    again = await swift_client.ok("get_pane_info", {"paneId": info["pane"]["ref"]})
    assert again == info
    other = await swift_client.ok("get_pane_info", {"paneId": corners["top-left"]})
    assert other["pane"]["ref"] != info["pane"]["ref"]
    assert without_ref(other["pane"]) == pane_as_tmux_sees_it(shared, corners["top-left"])


async def test_get_pane_info_of_a_dead_pane(shared: TmuxServer, swift_client: Client) -> None:
    made = shared.new_session(f"dead-{tag()}")
    window, pane = made.window, made.pane
    shared.tmux("set-option", "-w", "-t", window, "remain-on-exit", "on")
    shared.tmux("respawn-pane", "-k", "-t", pane, "true")
    deadline = time.monotonic() + 10
    while show(shared, pane, "pane_dead")[0] != "1":
        assert time.monotonic() < deadline, "the pane never died"
        time.sleep(0.02)
    info = await swift_client.ok("get_pane_info", {"paneId": pane})
    assert info["pane"]["isDead"] is True
    assert without_ref(info["pane"]) == pane_as_tmux_sees_it(shared, pane)


# --- get_server_info --------------------------------------------------------------------


async def test_get_server_info_reports_the_running_server(
    shared: TmuxServer, swift_client: Client
) -> None:
    version = subprocess.run([TMUX, "-V"], capture_output=True, text=True, check=True).stdout
    info = await swift_client.ok("get_server_info")
    assert info == {
        "running": True,
        "version": version.split()[1],
        "socketPath": shared.socket_path,
    }


async def test_get_server_info_without_a_server_is_not_an_error(shared: TmuxServer) -> None:
    nobody = f"none{tag()}"
    async with open_in_process(shared.server_env(LIBTMUX_SOCKET=nobody), "swift") as alone:
        info = await alone.ok("get_server_info")
    assert info["running"] is False
    assert "version" not in info
    # socketPath is optional; when given it is the socket that has no server.
    assert info.get("socketPath") in (None, str(Path(shared.socket_path).parent / nobody))
    assert not Path(shared.socket_path).parent.joinpath(nobody).exists()


# --- get_session_info / list_sessions ---------------------------------------------------


async def test_get_session_info_by_id_name_and_ref(
    shared: TmuxServer, swift_client: Client
) -> None:
    name = f"sess-{tag()}"
    session_id = shared.new_session(name).id
    new_window(shared, session=name)
    windows, created = show(shared, session_id, "session_windows", "session_created")
    assert windows == "2"
    by_id = await swift_client.ok("get_session_info", {"session": session_id})
    session = by_id["session"]
    assert without_ref(session) == {
        "id": session_id,
        "name": name,
        "windowCount": 2,
        "isAttached": False,
        "createdAt": int(created),
    }
    assert await swift_client.ok("get_session_info", {"session": name}) == by_id
    assert await swift_client.ok("get_session_info", {"session": session["ref"]}) == by_id


async def test_get_session_info_a_name_that_looks_like_an_id_is_still_a_name(
    shared: TmuxServer, swift_client: Client
) -> None:
    # "$77" cannot be a session id of this server yet; as a name it is exact.
    session_id = shared.new_session("$77").id
    found = await swift_client.ok("get_session_info", {"session": "$77"})
    assert found["session"]["id"] == session_id
    assert found["session"]["name"] == "$77"
    shared.tmux("kill-session", "-t", session_id)


async def test_get_session_info_unknown_session_is_an_error(
    shared: TmuxServer, swift_client: Client
) -> None:
    message = await swift_client.error("get_session_info", {"session": "no-such-session"})
    assert "no-such-session" in message and "session" in message
    assert shared.socket_path in message
    message = await swift_client.error("get_session_info", {"session": "$999"})
    assert "$999" in message


async def test_is_attached_ignores_the_servers_own_control_client(
    shared: TmuxServer, swift_client: Client
) -> None:
    sessions = (await swift_client.ok("list_sessions"))["sessions"]
    clients = shared.lines("list-clients", "-F", "#{client_pid} #{session_id}")
    # The MCP server's control-mode client is attached to a session of this tmux server.
    assert clients, "expected the MCP server's control client to be attached"
    attached_to = {line.split()[1] for line in clients}
    assert attached_to <= {s["id"] for s in sessions}
    for session in sessions:
        assert session["isAttached"] is False, session
        info = await swift_client.ok("get_session_info", {"session": session["id"]})
        assert info["session"]["isAttached"] is False


async def test_is_attached_counts_a_client_of_someone_else(
    shared: TmuxServer, swift_client: Client
) -> None:
    name = f"att-{tag()}"
    session_id = shared.new_session(name).id
    env = {**shared.env}
    outsider = subprocess.Popen(
        [TMUX, "-L", shared.name, "-C", "attach-session", "-t", session_id],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={"PATH": env["PATH"], "HOME": env["HOME"], "TMUX_TMPDIR": env["TMUX_TMPDIR"]},
    )
    try:
        deadline = time.monotonic() + 10
        while not shared.lines("list-clients", "-t", session_id):
            assert time.monotonic() < deadline, "the outside client never attached"
            time.sleep(0.02)
        info = await swift_client.ok("get_session_info", {"session": session_id})
        assert info["session"]["isAttached"] is True
        listed = {s["id"]: s for s in (await swift_client.ok("list_sessions"))["sessions"]}
        assert listed[session_id]["isAttached"] is True
        assert listed[session_id] == info["session"]
    finally:
        assert outsider.stdin is not None
        outsider.stdin.close()
        outsider.wait(timeout=10)
    deadline = time.monotonic() + 10
    while shared.lines("list-clients", "-t", session_id):
        assert time.monotonic() < deadline, "the outside client never left"
        time.sleep(0.02)
    info = await swift_client.ok("get_session_info", {"session": session_id})
    assert info["session"]["isAttached"] is False


async def test_list_sessions_matches_tmux_and_sees_a_new_session(
    shared: TmuxServer, swift_client: Client
) -> None:
    def tmux_sessions() -> set[tuple[str, str, int]]:
        rows = shared.lines(
            "list-sessions", "-F", "#{session_id}\x1f#{session_name}\x1f#{session_windows}"
        )
        return {(i, n, int(w)) for i, n, w in (row.split("\x1f") for row in rows)}

    def listed(result: dict[str, Any]) -> set[tuple[str, str, int]]:
        return {(s["id"], s["name"], s["windowCount"]) for s in result["sessions"]}

    before = await swift_client.ok("list_sessions")
    assert listed(before) == tmux_sessions()
    name = f"ls-{tag()}"
    session_id = shared.new_session(name).id
    new_window(shared, session=name)
    after = await swift_client.ok("list_sessions")
    assert listed(after) == tmux_sessions()
    assert (session_id, name, 2) in listed(after)
    assert listed(after) - listed(before) == {(session_id, name, 2)}
    created = dict(
        row.split("\x1f")
        for row in shared.lines("list-sessions", "-F", "#{session_id}\x1f#{session_created}")
    )
    for session in after["sessions"]:
        assert session["createdAt"] == int(created[session["id"]])
        assert session["ref"].startswith("tmr1.")


# --- get_tmux_variables -----------------------------------------------------------------


async def test_get_tmux_variables_for_a_pane(shared: TmuxServer, swift_client: Client) -> None:
    name = f"vars-{tag()}"
    shared.new_session(name)
    window, pane = new_window(shared, session=name)
    window_index = show(shared, window, "window_index")[0]
    assert window_index != "0"
    names = ["session_name", "pane_id", "window_index", "no_such_variable_tcm"]
    found = await swift_client.ok("get_tmux_variables", {"names": names, "paneId": pane})
    assert found == {
        "values": {
            "session_name": name,
            "pane_id": pane,
            "window_index": window_index,
            "no_such_variable_tcm": None,
        }
    }
    ref = (await swift_client.ok("get_pane_info", {"paneId": pane}))["pane"]["ref"]
    assert await swift_client.ok("get_tmux_variables", {"names": names, "paneId": ref}) == found


async def test_get_tmux_variables_without_a_pane(shared: TmuxServer, swift_client: Client) -> None:
    version = shared.tmux("display-message", "-p", "#{version}").strip()
    found = await swift_client.ok("get_tmux_variables", {"names": ["version", "nonexistent_tcm"]})
    assert found == {"values": {"version": version, "nonexistent_tcm": None}}


async def test_get_tmux_variables_refuses_bad_names_before_running_tmux(
    shared: TmuxServer, swift_client: Client, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    mark = shared.mark()
    message = await swift_client.error("get_tmux_variables", {"names": []})
    assert "names" in message
    for bad in (f"#(touch {marker})", "a}b", "pane_id}#(touch x)#{pane_id", "1abc", ""):
        message = await swift_client.error("get_tmux_variables", {"names": ["session_name", bad]})
        assert "names[1]" in message, bad
    message = await swift_client.error(
        "get_tmux_variables", {"names": [f"#(touch {marker})"], "paneId": "%0"}
    )
    assert "names[0]" in message
    shared.assert_nothing_sent_since(mark)
    assert not marker.exists()
    # The log sees a valid call's command.
    await swift_client.ok("get_tmux_variables", {"names": ["pane_id"], "paneId": "%0"})
    assert shared.sent_since(mark)
    assert not marker.exists()


# --- get_window_info / list_windows -----------------------------------------------------


async def test_get_window_info_gives_the_window_and_every_placement(
    shared: TmuxServer, swift_client: Client
) -> None:
    first, second = f"wa-{tag()}", f"wb-{tag()}"
    made = shared.new_session(first)
    first_id, window = made.id, made.window
    second_id = shared.new_session(second).id
    shared.tmux("rename-window", "-t", window, "shown")
    shared.tmux("split-window", "-t", window)
    width, height = show(shared, window, "window_width", "window_height")
    alone = await swift_client.ok("get_window_info", {"windowId": window})
    assert without_ref(alone["window"]) == {
        "id": window,
        "name": "shown",
        "paneCount": 2,
        "width": int(width),
        "height": int(height),
    }
    assert [without_ref(p) for p in alone["placements"]] == [
        {
            "sessionID": first_id,
            "windowID": window,
            "index": 0,
            "isActive": True,
            "target": f"{first_id}:0",
        }
    ]

    shared.tmux("link-window", "-d", "-s", window, "-t", f"{second}:5")
    linked = await swift_client.ok("get_window_info", {"windowId": window})
    assert linked["window"] == alone["window"]
    placements = sorted(
        (without_ref(p) for p in linked["placements"]), key=lambda p: str(p["target"])
    )
    assert placements == sorted(
        [
            {
                "sessionID": first_id,
                "windowID": window,
                "index": 0,
                "isActive": True,
                "target": f"{first_id}:0",
            },
            {
                "sessionID": second_id,
                "windowID": window,
                "index": 5,
                "isActive": False,
                "target": f"{second_id}:5",
            },
        ],
        key=lambda p: str(p["target"]),
    )
    refs = [p["ref"] for p in linked["placements"]]
    assert len(set(refs)) == 2 and linked["window"]["ref"] not in refs
    assert await swift_client.ok("get_window_info", {"windowId": linked["window"]["ref"]}) == linked


async def test_a_placement_ref_is_accepted_where_a_window_id_is(
    shared: TmuxServer, swift_client: Client
) -> None:
    first, second = f"pla-{tag()}", f"plb-{tag()}"
    window = shared.new_session(first).window
    shared.new_session(second)
    corners = grid(shared, window)
    shared.tmux("link-window", "-d", "-s", window, "-t", f"{second}:2")
    info = await swift_client.ok("get_window_info", {"windowId": window})
    occurrences = (await swift_client.ok("list_windows", {"session": second}))["windows"]
    link_refs = [p["ref"] for p in info["placements"]]
    assert {w["linkRef"] for w in occurrences if w["id"] == window} <= set(link_refs)
    for ref in link_refs:
        assert await swift_client.ok("get_window_info", {"windowId": ref}) == info
        found = await swift_client.ok(
            "find_pane_by_position", {"corner": "top-right", "windowId": ref}
        )
        assert found["pane"]["id"] == corners["top-right"]
        listed = await swift_client.ok("list_panes", {"window": ref})
        assert {row["id"] for row in listed["panes"]} == set(corners.values())


async def test_get_window_info_unknown_window_is_an_error(swift_client: Client) -> None:
    message = await swift_client.error("get_window_info", {"windowId": "@999"})
    assert "@999" in message and "windowId" in message


async def test_list_windows_gives_one_row_per_placement(
    shared: TmuxServer, swift_client: Client
) -> None:
    first, second = f"lwa-{tag()}", f"lwb-{tag()}"
    made = shared.new_session(first)
    first_id, window = made.id, made.window
    second_id = shared.new_session(second).id
    shared.tmux("link-window", "-d", "-s", window, "-t", f"{second}:3")

    def tmux_rows(*scope: str) -> list[tuple[str, str, int]]:
        rows = shared.lines(
            "list-windows", *scope, "-F", "#{window_id} #{session_id} #{window_index}"
        )
        return sorted((w, s, int(i)) for w, s, i in (row.split() for row in rows))

    def rows(result: dict[str, Any]) -> list[tuple[str, str, int]]:
        return sorted((w["id"], w["sessionID"], w["index"]) for w in result["windows"])

    everything = await swift_client.ok("list_windows")
    assert rows(everything) == tmux_rows("-a")
    assert [w for w, _, _ in rows(everything)].count(window) == 2
    for row in everything["windows"]:
        assert row["target"] == f"{row['sessionID']}:{row['index']}"
    in_second = await swift_client.ok("list_windows", {"session": second})
    assert rows(in_second) == tmux_rows("-t", second_id)
    assert (window, second_id, 3) in rows(in_second)
    linked = next(w for w in in_second["windows"] if w["id"] == window)
    width, height, name = show(shared, window, "window_width", "window_height", "window_name")
    assert linked["name"] == name
    assert (linked["paneCount"], linked["width"], linked["height"]) == (1, int(width), int(height))
    assert linked["isActive"] is False
    in_first = await swift_client.ok("list_windows", {"session": first_id})
    assert rows(in_first) == [(window, first_id, 0)]
    assert in_first["windows"][0]["windowRef"] == linked["windowRef"]
    assert in_first["windows"][0]["linkRef"] != linked["linkRef"]
    session_ref = (await swift_client.ok("get_session_info", {"session": first}))["session"]["ref"]
    assert await swift_client.ok("list_windows", {"session": session_ref}) == in_first


# --- list_panes -------------------------------------------------------------------------


async def test_list_panes_lists_each_pane_once_even_in_a_linked_window(
    shared: TmuxServer, swift_client: Client
) -> None:
    first, second = f"lpa-{tag()}", f"lpb-{tag()}"
    window = shared.new_session(first).window
    shared.new_session(second)
    shared.tmux("split-window", "-t", window)
    shared.tmux("link-window", "-d", "-s", window, "-t", f"{second}:4")
    assert len(shared.lines("list-panes", "-a")) > len(unique_pane_ids(shared, "-a"))
    listed = await swift_client.ok("list_panes")
    ids = [row["id"] for row in listed["panes"]]
    assert len(ids) == len(set(ids))
    assert set(ids) == unique_pane_ids(shared, "-a")
    for row in listed["panes"]:
        if row["windowID"] == window:
            assert without_ref(row) == pane_as_tmux_sees_it(shared, row["id"])


async def test_list_panes_filters_by_session_and_window(
    shared: TmuxServer, swift_client: Client
) -> None:
    first, second = f"lfa-{tag()}", f"lfb-{tag()}"
    made = shared.new_session(first)
    first_id, first_window = made.id, made.window
    shared.tmux("split-window", "-t", first_window)
    other_window, _ = new_window(shared, session=first)
    made = shared.new_session(second)
    second_id, second_window = made.id, made.window
    session_ref = (await swift_client.ok("get_session_info", {"session": first}))["session"]["ref"]
    window_ref = (await swift_client.ok("get_window_info", {"windowId": first_window}))["window"][
        "ref"
    ]

    def ids(result: dict[str, Any]) -> set[str]:
        return {row["id"] for row in result["panes"]}

    in_session = unique_pane_ids(shared, "-s", "-t", first_id)
    assert len(in_session) == 3
    for session in (first_id, first, session_ref):
        assert ids(await swift_client.ok("list_panes", {"session": session})) == in_session, session
    in_window = unique_pane_ids(shared, "-t", first_window)
    assert len(in_window) == 2
    for window in (first_window, window_ref):
        assert ids(await swift_client.ok("list_panes", {"window": window})) == in_window, window
    both = await swift_client.ok("list_panes", {"session": first, "window": first_window})
    assert ids(both) == in_window
    assert ids(await swift_client.ok("list_panes", {"window": other_window})) == unique_pane_ids(
        shared, "-t", other_window
    )
    message = await swift_client.error("list_panes", {"session": second_id, "window": first_window})
    assert "window" in message and first_window in message
    assert ids(await swift_client.ok("list_panes", {"session": second})) == unique_pane_ids(
        shared, "-t", second_window
    )


async def test_list_panes_unknown_session_or_window_is_an_error(swift_client: Client) -> None:
    message = await swift_client.error("list_panes", {"session": "no-such-session"})
    assert "session" in message and "no-such-session" in message
    message = await swift_client.error("list_panes", {"window": "@999"})
    assert "window" in message and "@999" in message


# --- search_panes -----------------------------------------------------------------------


async def test_search_panes_finds_a_line_with_its_pane_and_line_number(
    shared: TmuxServer, swift_client: Client
) -> None:
    needle = f"needle-{tag()}"
    lines = [f"{needle} early", *(f"pad {i}" for i in range(80)), f"{needle} late"]
    _, pane = new_window(shared, *reader(*lines))
    wait_for_line(shared, pane, f"{needle} late")
    found = await swift_client.ok("search_panes", {"pattern": needle})
    assert found["truncated"] is False and found["truncatedBy"] == []
    assert found["panesSearched"] == found["panesAvailable"] == len(unique_pane_ids(shared, "-a"))
    assert [(m["pane"], m["text"]) for m in found["matches"]] == [
        (pane, f"{needle} early"),
        (pane, f"{needle} late"),
    ]
    early, late = found["matches"]
    assert early["line"] < 0 <= late["line"]  # the first scrolled into history
    pane_ref = (await swift_client.ok("get_pane_info", {"paneId": pane}))["pane"]["ref"]
    for match in found["matches"]:
        assert match["paneRef"] == pane_ref
        exact = await swift_client.ok(
            "capture_pane", {"paneId": pane, "start": match["line"], "end": match["line"]}
        )
        assert exact["lines"] == [match["text"]]


async def test_search_panes_regex_mode(shared: TmuxServer, swift_client: Client) -> None:
    needle = f"rx{tag()}"
    _, pane = new_window(shared, *reader(f"{needle}-123-z", f"{needle}-12-z", f"{needle}-abc-z"))
    wait_for_line(shared, pane, f"{needle}-abc-z")
    pattern = needle + r"-[0-9]{3}-z"
    found = await swift_client.ok("search_panes", {"pattern": pattern, "regex": True})
    assert [(m["pane"], m["text"]) for m in found["matches"]] == [(pane, f"{needle}-123-z")]
    literal = await swift_client.ok("search_panes", {"pattern": pattern, "regex": False})
    assert literal["matches"] == []
    assert (await swift_client.ok("search_panes", {"pattern": pattern}))["matches"] == []


async def test_search_panes_invalid_regex_names_the_pattern(swift_client: Client) -> None:
    message = await swift_client.error("search_panes", {"pattern": "(unclosed", "regex": True})
    assert "pattern" in message and "(unclosed" in message


async def test_search_panes_caps_matches_per_pane(shared: TmuxServer, swift_client: Client) -> None:
    needle = f"many-{tag()}"
    _, pane = new_window(shared, *reader(*(f"{needle} {i}" for i in range(5))))
    wait_for_line(shared, pane, f"{needle} 4")
    found = await swift_client.ok("search_panes", {"pattern": needle, "maxMatchesPerPane": 2})
    assert [m["text"] for m in found["matches"]] == [f"{needle} 0", f"{needle} 1"]
    assert found["truncated"] is True
    assert "maxMatchesPerPane" in found["truncatedBy"]
    enough = await swift_client.ok("search_panes", {"pattern": needle, "maxMatchesPerPane": 5})
    assert len(enough["matches"]) == 5
    assert enough["truncated"] is False and enough["truncatedBy"] == []


async def test_search_panes_limited_to_one_session(
    shared: TmuxServer, swift_client: Client
) -> None:
    needle = f"both-{tag()}"
    first, second = f"sa-{tag()}", f"sb-{tag()}"
    made = shared.new_session(first, *reader(needle))
    first_id, first_pane = made.id, made.pane
    second_pane = shared.new_session(second, *reader(needle)).pane
    shared.tmux("split-window", "-t", first_pane)
    wait_for_line(shared, first_pane, needle)
    wait_for_line(shared, second_pane, needle)
    everywhere = await swift_client.ok("search_panes", {"pattern": needle})
    assert {m["pane"] for m in everywhere["matches"]} == {first_pane, second_pane}
    session_ref = (await swift_client.ok("get_session_info", {"session": first}))["session"]["ref"]
    for session in (first, first_id, session_ref):
        found = await swift_client.ok("search_panes", {"pattern": needle, "session": session})
        assert [m["pane"] for m in found["matches"]] == [first_pane], session
        assert found["panesAvailable"] == found["panesSearched"] == 2
    message = await swift_client.error("search_panes", {"pattern": needle, "session": "no-such"})
    assert "session" in message and "no-such" in message


async def test_search_panes_a_catastrophic_regex_runs_out_of_time_instead_of_hanging(
    shared: TmuxServer, swift_client: Client
) -> None:
    session = f"rx-{tag()}"
    script = "stty -echo; i=0; while [ $i -lt 45 ]; do printf '%0199d\\n' 0 | tr 0 x; i=$((i+1)); done; echo end; exec cat"
    pane = shared.new_session(session, "sh", "-c", script).pane
    wait_for_line(shared, pane, "end")
    assert contents(shared, pane)[0] == "x" * 199
    with anyio.fail_after(20):
        found = await swift_client.ok(
            "search_panes", {"pattern": "(x+x+)+y", "regex": True, "session": session}
        )
    assert found["matches"] == []
    assert found["truncated"] is True
    assert "time" in found["truncatedBy"]


async def test_search_panes_pattern_limit_counts_utf8_bytes(
    shared: TmuxServer, swift_client: Client
) -> None:
    session = f"big-{tag()}"
    shared.new_session(session, *reader("nothing to see"))
    for pattern in ("q" * 4096, "é" * 1366):
        found = await swift_client.ok("search_panes", {"pattern": pattern, "session": session})
        assert found["matches"] == [], len(pattern)
    mark = shared.mark()
    for pattern, size in (("q" * 4097, 4097), ("é" * 2049, 4098), ("€" * 1366, 4098)):
        message = await swift_client.error("search_panes", {"pattern": pattern, "session": session})
        assert "pattern" in message and str(size) in message and "4096" in message
    shared.assert_nothing_sent_since(mark)


# --- show_environment -------------------------------------------------------------------


async def test_show_environment_global_and_per_session(
    shared: TmuxServer, swift_client: Client
) -> None:
    key = tag().upper()
    name = f"env-{tag()}"
    session_id = shared.new_session(name).id
    shared.tmux("set-environment", "-g", f"TCM_G_{key}", "global value=with equals")
    shared.tmux("set-environment", "-t", name, f"TCM_S_{key}", "session only")
    shared.tmux("set-environment", "-t", name, f"TCM_GONE_{key}", "soon removed")
    shared.tmux("set-environment", "-t", name, "-r", f"TCM_GONE_{key}")
    shared.tmux("set-environment", "-g", "-r", f"TCM_GGONE_{key}")

    globally = (await swift_client.ok("show_environment"))["environment"]
    assert globally[f"TCM_G_{key}"] == "global value=with equals"
    assert f"TCM_S_{key}" not in globally
    assert globally[f"TCM_GGONE_{key}"] is None

    ref = (await swift_client.ok("get_session_info", {"session": name}))["session"]["ref"]
    for session in (name, session_id, ref):
        scoped = (await swift_client.ok("show_environment", {"session": session}))["environment"]
        assert scoped[f"TCM_S_{key}"] == "session only", session
        assert f"TCM_GONE_{key}" in scoped and scoped[f"TCM_GONE_{key}"] is None
        assert f"TCM_G_{key}" not in scoped
    message = await swift_client.error("show_environment", {"session": "no-such-session"})
    assert "session" in message and "no-such-session" in message


# --- show_hooks -------------------------------------------------------------------------


def tmux_hook(server: TmuxServer, scope: tuple[str, ...], name: str) -> str:
    """The command tmux itself lists for hook ``name``."""
    for line in server.lines("show-hooks", *scope):
        head, _, command = line.partition(" ")
        if head == name:
            return command
    raise AssertionError(f"tmux lists no {name}")


async def test_show_hooks_global_and_per_session(shared: TmuxServer, swift_client: Client) -> None:
    key = tag()
    name = f"hooks-{tag()}"
    shared.new_session(name)
    shared.tmux("set-hook", "-g", "session-renamed[3]", f"set-option -g @tcm-{key} 'a b;c'")
    shared.tmux("set-hook", "-t", name, "client-attached", f"set-option -g @tcm-w-{key} 1")
    try:
        hooks = (await swift_client.ok("show_hooks"))["hooks"]
        command = tmux_hook(shared, ("-g",), "session-renamed[3]")
        assert f"@tcm-{key}" in command
        assert {"name": "session-renamed", "index": 3, "command": command} in hooks
        assert not any(f"@tcm-w-{key}" in hook["command"] for hook in hooks)
        # The unset hooks tmux also lists are not reported as set.
        assert all(hook["command"] for hook in hooks)

        scoped = (await swift_client.ok("show_hooks", {"session": name}))["hooks"]
        command = tmux_hook(shared, ("-t", name), "client-attached[0]")
        assert {"name": "client-attached", "index": 0, "command": command} in scoped
        assert f"@tcm-w-{key}" in command
    finally:
        shared.tmux("set-hook", "-gu", "session-renamed[3]")


# --- show_option ------------------------------------------------------------------------


async def test_show_option_reads_a_global_option(shared: TmuxServer, swift_client: Client) -> None:
    before = shared.tmux("show-options", "-gv", "history-limit").strip()
    shared.tmux("set-option", "-g", "history-limit", "4321")
    try:
        found = await swift_client.ok("show_option", {"name": "history-limit"})
        assert found == {"options": [{"name": "history-limit", "value": "4321"}]}
        scoped = await swift_client.ok(
            "show_option", {"name": "history-limit", "scope": "global_session"}
        )
        assert scoped == found
    finally:
        shared.tmux("set-option", "-g", "history-limit", before)
    server = await swift_client.ok("show_option", {"name": "escape-time", "scope": "server"})
    escape = shared.tmux("show-options", "-sv", "escape-time").strip()
    assert server == {"options": [{"name": "escape-time", "value": escape}]}


async def test_show_option_gives_one_row_per_index_of_an_array_option(
    shared: TmuxServer, swift_client: Client
) -> None:
    indexes = [
        line.split(" ", 1)[0] for line in shared.lines("show-options", "-g", "status-format")
    ]
    assert len(indexes) >= 2
    found = await swift_client.ok("show_option", {"name": "status-format"})
    assert [o["name"] for o in found["options"]] == indexes
    for option in found["options"]:
        value = shared.tmux("show-options", "-gv", option["name"]).rstrip("\n")
        assert option["value"] == value
        assert "#{" in value
    one = await swift_client.ok("show_option", {"name": "status-format[1]"})
    assert one["options"] == [found["options"][1]]


async def test_show_option_window_pane_and_session_scopes_with_a_target(
    shared: TmuxServer, swift_client: Client
) -> None:
    name = f"opt-{tag()}"
    session_id, window, pane = shared.new_session(name).ids
    shared.tmux("set-option", "-w", "-t", window, "automatic-rename", "off")
    shared.tmux("set-option", "-p", "-t", pane, "remain-on-exit", "on")
    shared.tmux("set-option", "-t", session_id, "status-left", f"left-{name}")
    window_ref = (await swift_client.ok("get_window_info", {"windowId": window}))["window"]["ref"]
    pane_ref = (await swift_client.ok("get_pane_info", {"paneId": pane}))["pane"]["ref"]
    session_ref = (await swift_client.ok("get_session_info", {"session": name}))["session"]["ref"]
    for target in (window, window_ref):
        found = await swift_client.ok(
            "show_option", {"name": "automatic-rename", "scope": "window", "target": target}
        )
        assert found == {"options": [{"name": "automatic-rename", "value": "off"}]}, target
    for target in (pane, pane_ref):
        found = await swift_client.ok(
            "show_option", {"name": "remain-on-exit", "scope": "pane", "target": target}
        )
        assert found == {"options": [{"name": "remain-on-exit", "value": "on"}]}, target
    for target in (session_id, name, session_ref):
        found = await swift_client.ok(
            "show_option", {"name": "status-left", "scope": "session", "target": target}
        )
        assert found == {"options": [{"name": "status-left", "value": f"left-{name}"}]}, target
    # Without a scope, the target's kind decides it.
    implied = await swift_client.ok("show_option", {"name": "automatic-rename", "target": window})
    assert implied == {"options": [{"name": "automatic-rename", "value": "off"}]}


async def test_show_option_errors(shared: TmuxServer, swift_client: Client) -> None:
    message = await swift_client.error("show_option", {"name": "status-left", "scope": "session"})
    assert "target" in message
    message = await swift_client.error("show_option", {"name": "no-such-option-tcm"})
    assert "no-such-option-tcm" in message
    message = await swift_client.error(
        "show_option", {"name": "status-left", "scope": "window", "target": "@999"}
    )
    assert "target" in message and "@999" in message
    message = await swift_client.error("show_option", {"name": "status left; kill-server"})
    assert "name" in message
    assert shared.tmux("list-sessions")  # still running


async def test_show_option_an_unset_user_option_is_an_empty_list(swift_client: Client) -> None:
    found = await swift_client.ok("show_option", {"name": f"@nope-{tag()}"})
    assert found == {"options": []}


async def test_show_option_value_comes_back_verbatim(
    shared: TmuxServer, swift_client: Client
) -> None:
    name = f"@tcm-verbatim-{tag()}"
    value = "a;b #{session_name} \"q\" 's' $HOME \\ ;end"
    shared.tmux("set-option", "-g", name, value)
    assert shared.tmux("show-options", "-gv", name).rstrip("\n") == value
    found = await swift_client.ok("show_option", {"name": name})
    assert found == {"options": [{"name": name, "value": value}]}


# --- snapshot_pane ----------------------------------------------------------------------


async def test_snapshot_pane_gives_the_pane_row_and_its_capture(
    shared: TmuxServer, swift_client: Client
) -> None:
    _, pane = new_window(shared, *numbered(30, "s"))
    wait_for_line(shared, pane, "s30")
    snapshot = await swift_client.ok("snapshot_pane", {"paneId": pane, "maxLines": 5})
    info = await swift_client.ok("get_pane_info", {"paneId": pane})
    assert snapshot["pane"] == info["pane"]
    assert snapshot["capture"] == {
        "paneId": pane,
        "lines": ["s26", "s27", "s28", "s29", "s30"],
        "droppedLines": 25,
    }
    whole = await swift_client.ok("snapshot_pane", {"paneId": info["pane"]["ref"]})
    assert whole["capture"] == await swift_client.ok("capture_pane", {"paneId": pane})
    assert whole["capture"]["lines"] == [f"s{i}" for i in range(1, 31)]
    message = await swift_client.error("snapshot_pane", {"paneId": "%999"})
    assert "%999" in message


# --- refs across server processes -------------------------------------------------------


async def test_refs_and_cursors_of_another_server_process_are_refused(
    shared: TmuxServer, swift_client: Client
) -> None:
    name = f"refs-{tag()}"
    made = shared.new_session(name, *reader("ref"))
    window, pane = made.window, made.pane
    wait_for_line(shared, pane, "ref")
    pane_ref = (await swift_client.ok("get_pane_info", {"paneId": pane}))["pane"]["ref"]
    window_ref = (await swift_client.ok("get_window_info", {"windowId": window}))["window"]["ref"]
    session_ref = (await swift_client.ok("get_session_info", {"session": name}))["session"]["ref"]
    cursor = (await swift_client.ok("capture_since", {"paneId": pane}))["cursor"]
    # Within one process, a ref of the wrong kind is refused too.
    assert "paneId" in await swift_client.error("get_pane_info", {"paneId": window_ref})
    assert "windowId" in await swift_client.error("get_window_info", {"windowId": pane_ref})
    assert "session" in await swift_client.error("get_session_info", {"session": pane_ref})

    async with open_in_process(shared.server_env(), "swift") as other:
        message = await other.error("get_pane_info", {"paneId": pane_ref})
        assert "paneId" in message and pane_ref in message
        message = await other.error("capture_pane", {"paneId": pane_ref})
        assert "paneId" in message
        message = await other.error("get_window_info", {"windowId": window_ref})
        assert "windowId" in message
        message = await other.error("list_panes", {"window": window_ref})
        assert "window" in message
        message = await other.error("get_session_info", {"session": session_ref})
        assert "session" in message
        message = await other.error("capture_since", {"paneId": pane, "cursor": cursor})
        assert "cursor" in message
        # Its own refs for the same objects work, and differ from the first process's.
        own = (await other.ok("get_pane_info", {"paneId": pane}))["pane"]["ref"]
        assert own != pane_ref
        assert (await other.ok("get_pane_info", {"paneId": own}))["pane"]["id"] == pane
