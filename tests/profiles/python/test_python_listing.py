"""The python profile's listing and info tools against real tmux, through the MCP client.

list_servers, get_server_info, list_sessions, get_session_info, list_windows,
get_window_info, list_panes, get_pane_info and display_message. One tmux server
and one MCP server (control transport) serve the module; every test makes its
own sessions with unique names and compares with what tmux itself reports at
that moment. Bad input is refused before any tmux command runs (the server's
command hooks count them).
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from scripts.lab.client import Client, open_in_process
from scripts.lab.processes import cmdline, pids
from scripts.lab.tmuxserver import TMUX, TmuxServer
from tests.helpers.tmux import tag

pytestmark = pytest.mark.anyio

DEADLINE = 20.0  # only there to turn a hang into a failure
SEP = "\x1f"


# --- fixtures ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shared() -> Iterator[TmuxServer]:
    server = TmuxServer.start()
    server.tmux("set-option", "-g", "automatic-rename", "off")
    server.tmux("rename-window", "-t", "main:0", "first")
    settle(server, server.active_pane())
    try:
        yield server
    finally:
        server.kill()


# --- helpers ----------------------------------------------------------------------------


def settle(server: TmuxServer, pane_id: str) -> None:
    """Wait until the pane's shell has drawn its prompt: while a login shell starts, its
    foreground command changes (``mesg`` from a profile), and listings taken a moment
    apart would differ."""
    deadline = time.monotonic() + DEADLINE
    while not (
        server.tmux("capture-pane", "-p", "-t", pane_id).strip()
        and server.tmux("display-message", "-p", "-t", pane_id, "#{pane_current_command}") == "sh\n"
    ):
        assert time.monotonic() < deadline, f"the shell in {pane_id} did not start"
        time.sleep(0.02)


def new_window(server: TmuxServer, session: str, name: str) -> tuple[str, str, str]:
    """A detached window at the end of ``session``: (window id, index, pane id)."""
    fmt = "#{window_id} #{window_index} #{pane_id}"
    out = server.tmux("new-window", "-d", "-t", f"{session}:", "-n", name, "-P", "-F", fmt)
    window_id, index, pane_id = out.split()
    settle(server, pane_id)
    return window_id, index, pane_id


def split(server: TmuxServer, target: str) -> None:
    pane_id = server.tmux("split-window", "-d", "-h", "-t", target, "-P", "-F", "#{pane_id}")
    settle(server, pane_id.strip())


def rows(server: TmuxServer, *args: str, fields: tuple[str, ...]) -> list[dict[str, str]]:
    """tmux's own listing, one dict per line."""
    fmt = SEP.join(f"#{{{name}}}" for name in fields)
    return [
        dict(zip(fields, line.split(SEP), strict=True)) for line in server.lines(*args, "-F", fmt)
    ]


def stale_socket(path: Path) -> None:
    """A unix socket file nobody listens on (what a crashed tmux server leaves behind)."""
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))
    sock.close()


def socket_dir(server: TmuxServer) -> Path:
    return server.tmpdir / f"tmux-{os.getuid()}"


async def no_tmux_ran(
    server: TmuxServer, client: Client, tool: str, arguments: dict[str, Any]
) -> str:
    """The error a refused call gives, after proving it sent tmux nothing."""
    mark = server.mark()
    message = await client.error(tool, arguments)
    server.assert_nothing_sent_since(mark, (tool, arguments, message))
    return message


def assert_names(message: str, *words: str) -> None:
    for word in words:
        assert word in message, (word, message)


async def call(client: Client, tool: str, arguments: dict[str, Any] | None = None) -> Any:
    """The result of a successful call, bounded by DEADLINE."""
    with anyio.fail_after(DEADLINE):
        return await client.ok(tool, arguments)


# --- servers ----------------------------------------------------------------------------


async def test_list_servers_finds_live_and_dead_sockets_without_hanging(
    shared: TmuxServer, python_client: Client
) -> None:
    beside = TmuxServer.start(beside=shared)
    try:
        dead_name = f"dead-{tag()}"
        stale_socket(socket_dir(shared) / dead_name)
        (socket_dir(shared) / f"plain-{tag()}").write_text("")  # not a socket: not listed
        outside = Path(f"/tmp/tcm-x-{tag()}.sock")
        stale_socket(outside)
        missing = f"/tmp/tcm-missing-{tag()}.sock"
        try:
            result = (
                await call(
                    python_client, "list_servers", {"extra_socket_paths": [str(outside), missing]}
                )
            )["result"]
        finally:
            outside.unlink()
    finally:
        beside.kill()
    by_path = {row["socket_path"]: row for row in result}
    version = subprocess.run([TMUX, "-V"], capture_output=True, text=True).stdout.split()[-1]

    live = by_path[shared.socket_path]
    assert live["is_alive"] is True and live["socket_name"] == shared.name
    assert live["version"] == version
    assert live["session_count"] == len(shared.lines("list-sessions"))
    other = by_path[beside.socket_path]
    assert other["is_alive"] is True and other["socket_name"] == beside.name
    assert other["session_count"] == 1

    dead = by_path[str(socket_dir(shared) / dead_name)]
    assert dead == {
        "is_alive": False,
        "socket_name": dead_name,
        "socket_path": str(socket_dir(shared) / dead_name),
        "session_count": 0,
        "version": None,
    }
    for path in (str(outside), missing):
        assert by_path[path]["is_alive"] is False and by_path[path]["socket_name"] is None
    assert not any("plain-" in (row["socket_path"] or "") for row in result)
    assert len(by_path) == len(result)  # each socket once

    # The killed server's socket file (tmux 3.3a leaves it behind) now answers nobody.
    result = (await call(python_client, "list_servers"))["result"]
    after = {row["socket_path"]: row for row in result}
    if Path(beside.socket_path).exists():
        assert after[beside.socket_path]["is_alive"] is False
        assert after[beside.socket_path]["version"] is None
    else:
        assert beside.socket_path not in after
    assert after[shared.socket_path]["is_alive"] is True


def tmux_clients_of(path: str) -> list[int]:
    """Running tmux processes whose argv names ``path``."""
    return [
        pid
        for pid in pids()
        if (argv := cmdline(pid)) and Path(argv[0]).name == "tmux" and path in argv
    ]


async def test_list_servers_gives_up_on_a_socket_that_never_answers(
    shared: TmuxServer, python_client: Client
) -> None:
    path = f"/tmp/tcm-w-{tag()}.sock"
    silent = socket.socket(socket.AF_UNIX)
    silent.bind(path)
    silent.listen(8)  # accepts connections (in the backlog) and never says a word
    try:
        result = (await call(python_client, "list_servers", {"extra_socket_paths": [path]}))[
            "result"
        ]
        row = next(row for row in result if row["socket_path"] == path)
        assert row["is_alive"] is False and row["session_count"] == 0
        with anyio.fail_after(DEADLINE):  # the probe's tmux client does not linger
            while tmux_clients_of(path):
                await anyio.sleep(0.02)
    finally:
        silent.close()
        os.unlink(path)


async def test_list_servers_lists_a_socket_given_twice_once(
    shared: TmuxServer, python_client: Client
) -> None:
    result = (
        await call(python_client, "list_servers", {"extra_socket_paths": [shared.socket_path]})
    )["result"]
    assert [row["socket_path"] for row in result].count(shared.socket_path) == 1


async def test_list_servers_refuses_a_relative_extra_path(
    shared: TmuxServer, python_client: Client
) -> None:
    message = await no_tmux_ran(
        shared, python_client, "list_servers", {"extra_socket_paths": ["relative.sock"]}
    )
    assert_names(message, "extra_socket_paths", "relative.sock")


async def test_get_server_info_describes_the_configured_server(
    shared: TmuxServer, python_client: Client
) -> None:
    info = await call(python_client, "get_server_info")
    assert info["is_alive"] is True
    assert info["socket_name"] == shared.name and info["socket_path"] == shared.socket_path
    assert info["session_count"] == len(shared.lines("list-sessions"))
    assert info["version"] == shared.tmux("display-message", "-p", "#{version}").strip()


async def test_get_server_info_on_a_dead_socket_is_not_an_error(
    shared: TmuxServer, python_client: Client
) -> None:
    dead_name = f"dead-{tag()}"
    stale_socket(socket_dir(shared) / dead_name)
    for name in (dead_name, f"never-{tag()}"):
        info = await call(python_client, "get_server_info", {"socket_name": name})
        assert info == {
            "is_alive": False,
            "socket_name": name,
            "socket_path": str(socket_dir(shared) / name),
            "session_count": 0,
            "version": None,
        }


# --- sessions ---------------------------------------------------------------------------


async def test_list_sessions_matches_tmux(shared: TmuxServer, python_client: Client) -> None:
    name = f"ls-{tag()}"
    session_id = shared.new_session(name, window_name="first", width=120, height=40).id
    new_window(shared, name, "second")
    result = (await call(python_client, "list_sessions"))["result"]
    tmux_rows = rows(
        shared,
        "list-sessions",
        fields=("session_id", "session_name", "session_windows", "session_created", "pane_id"),
    )
    active = {
        r["session_id"]: r["pane_id"]
        for r in rows(
            shared,
            "list-panes",
            "-a",
            fields=("session_id", "pane_id", "window_active", "pane_active"),
        )
        if r["window_active"] == r["pane_active"] == "1"
    }
    assert [row["session_id"] for row in result] == [r["session_id"] for r in tmux_rows]
    for row, mine in zip(result, tmux_rows, strict=True):
        assert row == {
            "session_id": mine["session_id"],
            "session_name": mine["session_name"],
            "window_count": int(mine["session_windows"]),
            "session_attached": "0",  # nobody attached: this server's own client never counts
            "session_created": mine["session_created"],
            "active_pane_id": active[mine["session_id"]],
        }
    assert any(row["session_id"] == session_id and row["window_count"] == 2 for row in result)


async def test_list_sessions_counts_a_client_attached_by_someone_else(
    shared: TmuxServer, python_client: Client
) -> None:
    name = f"att-{tag()}"
    shared.new_session(name, window_name="first", width=120, height=40)
    env = {**os.environ, **shared.env}
    env.pop("TMUX", None)
    viewer = subprocess.Popen(
        [TMUX, "-L", shared.name, "-C", "attach-session", "-t", f"={name}"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        with anyio.fail_after(DEADLINE):
            while True:
                result = (
                    await python_client.ok("list_sessions", {"filters": {"session_name": name}})
                )["result"]
                if result[0]["session_attached"] == "1":
                    break
                await anyio.sleep(0.02)
    finally:
        viewer.kill()
        viewer.wait()


async def test_list_sessions_filters_by_equality_lookup_and_json_string(
    shared: TmuxServer, python_client: Client
) -> None:
    prefix = f"flt-{tag()}"
    first = shared.new_session(f"{prefix}-build", window_name="first", width=120, height=40).id
    second = shared.new_session(f"{prefix}-logs", window_name="first", width=120, height=40).id
    cases: list[tuple[Any, list[str]]] = [
        ({"session_name": f"{prefix}-build"}, [first]),
        ({"session_name__startswith": prefix}, [first, second]),
        ({"session_name__contains": "-log", "session_name__startswith": prefix}, [second]),
        ({"session_name__regex": f"^{prefix}-(b|x)"}, [first]),
        ({"session_name__iexact": f"{prefix}-LOGS".upper()}, [second]),
        ({"session_name__endswith": "-build", "session_id": second}, []),
        (f'{{"session_name__startswith": "{prefix}"}}', [first, second]),
        ({"session_name__startswith": prefix, "window_count": "1"}, [first, second]),
    ]
    for filters, expected in cases:
        result = (await call(python_client, "list_sessions", {"filters": filters}))["result"]
        assert [row["session_id"] for row in result] == expected, filters


async def test_filters_that_cannot_apply_are_refused_before_tmux(
    shared: TmuxServer, python_client: Client
) -> None:
    cases: list[tuple[str, Any, tuple[str, ...]]] = [
        ("list_sessions", {"nosuch": "x"}, ("filters", "nosuch", "session_name", "window_count")),
        ("list_windows", {"pane_current_command": "sh"}, ("filters", "window_name")),
        ("list_panes", {"pane_width__bogus": "1"}, ("filters", "bogus", "contains")),
        ("list_panes", {"pane_title__regex": "("}, ("filters", "regular expression")),
        ("list_sessions", "{not json", ("filters", "JSON object")),
        ("list_sessions", '["session_name"]', ("filters", "JSON object")),
    ]
    for tool, filters, words in cases:
        message = await no_tmux_ran(shared, python_client, tool, {"filters": filters})
        assert_names(message, *words)


async def test_get_session_info_by_id_name_and_default(
    shared: TmuxServer, python_client: Client
) -> None:
    name = f"gsi-{tag()}"
    made = shared.new_session(name, window_name="first", width=120, height=40)
    session_id, pane_id = made.id, made.pane
    expected_by_id = await call(python_client, "get_session_info", {"session_id": session_id})
    assert expected_by_id["session_name"] == name
    assert expected_by_id["active_pane_id"] == pane_id and expected_by_id["window_count"] == 1
    assert await call(python_client, "get_session_info", {"session_name": name}) == expected_by_id
    # a session_id and a session_name naming the same session agree; two sessions, refused
    both = {"session_id": session_id, "session_name": name}
    assert await call(python_client, "get_session_info", both) == expected_by_id
    message = await python_client.error("get_session_info", {**both, "session_name": "main"})
    assert session_id in message and "'main'" in message and "session_name" in message
    first = shared.lines("list-sessions", "-F", "#{session_id}")[0]
    assert (await call(python_client, "get_session_info"))["session_id"] == first


# --- windows ----------------------------------------------------------------------------

WINDOW_FIELDS = (
    "window_id",
    "window_name",
    "window_index",
    "session_id",
    "session_name",
    "window_panes",
    "window_layout",
    "window_active",
    "window_width",
    "window_height",
    "pane_id",
)


def window_row(mine: dict[str, str]) -> dict[str, Any]:
    """tmux's list-windows row in the tool's shape."""
    shaped: dict[str, Any] = {k: v for k, v in mine.items() if k not in ("window_panes", "pane_id")}
    shaped["pane_count"] = int(mine["window_panes"])
    shaped["active_pane_id"] = mine["pane_id"]
    return shaped


async def test_list_windows_of_the_server_and_of_one_session_match_tmux(
    shared: TmuxServer, python_client: Client
) -> None:
    name = f"lw-{tag()}"
    session_id = shared.new_session(name, window_name="first", width=120, height=40).id
    new_window(shared, name, "logs")
    split(shared, f"={name}:1")
    everything = (await call(python_client, "list_windows"))["result"]
    assert everything == [
        window_row(r) for r in rows(shared, "list-windows", "-a", fields=WINDOW_FIELDS)
    ]
    mine = [
        window_row(r) for r in rows(shared, "list-windows", "-t", session_id, fields=WINDOW_FIELDS)
    ]
    assert (await call(python_client, "list_windows", {"session_id": session_id}))["result"] == mine
    assert (await call(python_client, "list_windows", {"session_name": name}))["result"] == mine
    assert [w["pane_count"] for w in mine] == [1, 2]


async def test_a_window_linked_into_two_sessions_is_listed_once_per_session(
    shared: TmuxServer, python_client: Client
) -> None:
    first, second = f"lk1-{tag()}", f"lk2-{tag()}"
    first_id = shared.new_session(first, window_name="first", width=120, height=40).id
    second_id = shared.new_session(second, window_name="first", width=120, height=40).id
    window_id, index, pane_id = new_window(shared, first, "shared")
    shared.tmux("link-window", "-d", "-s", window_id, "-t", f"={second}:7")
    result = (await call(python_client, "list_windows", {"filters": {"window_id": window_id}}))[
        "result"
    ]
    assert sorted((w["session_id"], w["window_index"]) for w in result) == sorted(
        [(first_id, index), (second_id, "7")]
    )
    assert all(w["active_pane_id"] == pane_id and w["window_name"] == "shared" for w in result)
    # get_window_info: the place in the named session, else the first place tmux lists
    at_second = await call(
        python_client, "get_window_info", {"window_id": window_id, "session_id": second_id}
    )
    assert (at_second["session_id"], at_second["window_index"]) == (second_id, "7")
    by_index = await call(
        python_client, "get_window_info", {"session_name": second, "window_index": "7"}
    )
    assert by_index == at_second
    # list_panes of the whole server: each pane once although its window is in two sessions
    panes = (await call(python_client, "list_panes"))["result"]
    assert [p["pane_id"] for p in panes].count(pane_id) == 1
    all_ids = shared.lines("list-panes", "-a", "-F", "#{pane_id}")
    assert sorted(p["pane_id"] for p in panes) == sorted(set(all_ids))


async def test_list_windows_filters_with_a_lookup(
    shared: TmuxServer, python_client: Client
) -> None:
    name = f"lwf-{tag()}"
    session_id = shared.new_session(name, window_name="first", width=120, height=40).id
    logs_id, _, _ = new_window(shared, name, "app-logs")
    new_window(shared, name, "editor")
    filters = {"window_name__contains": "log", "session_id": session_id}
    result = (await call(python_client, "list_windows", {"filters": filters}))["result"]
    assert [w["window_id"] for w in result] == [logs_id]
    as_text = '{"window_name__icontains": "LOG", "session_id": "' + session_id + '"}'
    result = (await call(python_client, "list_windows", {"filters": as_text}))["result"]
    assert [w["window_id"] for w in result] == [logs_id]


async def test_get_window_info_by_each_targeting_style(
    shared: TmuxServer, python_client: Client
) -> None:
    name = f"gwi-{tag()}"
    made = shared.new_session(name, window_name="first", width=120, height=40)
    session_id, first_window = made.id, made.window
    second_window, index, _ = new_window(shared, name, "two")
    expected = {
        r["window_id"]: window_row(r)
        for r in rows(shared, "list-windows", "-t", session_id, fields=WINDOW_FIELDS)
    }
    assert (
        await call(python_client, "get_window_info", {"window_id": second_window})
        == expected[second_window]
    )
    by_index = {"session_id": session_id, "window_index": index}
    assert await call(python_client, "get_window_info", by_index) == expected[second_window]
    # a session alone: its active window
    assert (
        await call(python_client, "get_window_info", {"session_name": name})
        == expected[first_window]
    )
    # nothing: the first session's active window, as tmux lists them
    first = rows(shared, "list-windows", "-a", "-f", "#{window_active}", fields=WINDOW_FIELDS)[0]
    assert await call(python_client, "get_window_info") == window_row(first)


# --- panes ------------------------------------------------------------------------------

PANE_FIELDS = (
    "pane_id",
    "pane_index",
    "pane_width",
    "pane_height",
    "pane_left",
    "pane_top",
    "pane_right",
    "pane_bottom",
    "pane_at_left",
    "pane_at_right",
    "pane_at_top",
    "pane_at_bottom",
    "pane_tty",
    "pane_current_command",
    "pane_current_path",
    "pane_pid",
    "pane_title",
    "pane_active",
    "window_id",
    "session_id",
)


def pane_row(mine: dict[str, str]) -> dict[str, Any]:
    """tmux's list-panes row in the tool's shape (the contract's mix of strings and ints)."""
    shaped: dict[str, Any] = dict(mine)
    for key in ("pane_left", "pane_top", "pane_right", "pane_bottom"):
        shaped[key] = int(mine[key])
    for key in ("pane_at_left", "pane_at_right", "pane_at_top", "pane_at_bottom"):
        shaped[key] = mine[key] == "1"
    shaped["is_caller"] = None  # the MCP server under test does not run inside tmux
    return shaped


async def test_list_panes_by_scope_matches_tmux(shared: TmuxServer, python_client: Client) -> None:
    name = f"lp-{tag()}"
    made = shared.new_session(name, window_name="first", width=120, height=40)
    session_id, window_id = made.id, made.window
    split(shared, window_id)
    second_window, index, _ = new_window(shared, name, "two")
    of_window = [
        pane_row(r) for r in rows(shared, "list-panes", "-t", window_id, fields=PANE_FIELDS)
    ]
    of_session = [
        pane_row(r) for r in rows(shared, "list-panes", "-s", "-t", session_id, fields=PANE_FIELDS)
    ]
    of_second = [
        pane_row(r) for r in rows(shared, "list-panes", "-t", second_window, fields=PANE_FIELDS)
    ]
    assert len(of_window) == 2 and len(of_session) == 3
    assert (await call(python_client, "list_panes", {"window_id": window_id}))[
        "result"
    ] == of_window
    assert (await call(python_client, "list_panes", {"session_id": session_id}))[
        "result"
    ] == of_session
    assert (await call(python_client, "list_panes", {"session_name": name}))["result"] == of_session
    scoped = {"session_name": name, "window_index": index}
    assert (await call(python_client, "list_panes", scoped))["result"] == of_second
    everything = (await call(python_client, "list_panes"))["result"]
    assert [p for p in everything if p["session_id"] == session_id] == of_session


async def test_list_panes_filters_by_field_and_lookup(
    shared: TmuxServer, python_client: Client
) -> None:
    name = f"lpf-{tag()}"
    made = shared.new_session(name, window_name="first", width=120, height=40)
    window_id, pane_id = made.window, made.pane
    split(shared, window_id)
    shared.tmux("select-pane", "-t", pane_id, "-T", f"title-{name}")
    result = (
        await call(python_client, "list_panes", {"filters": {"pane_title": f"title-{name}"}})
    )["result"]
    assert [p["pane_id"] for p in result] == [pane_id]
    result = (
        await call(
            python_client,
            "list_panes",
            {
                "window_id": window_id,
                "filters": {"pane_at_left": "1", "pane_current_command": "sh"},
            },
        )
    )["result"]
    assert [p["pane_id"] for p in result] == [pane_id]
    result = (
        await call(
            python_client,
            "list_panes",
            {"window_id": window_id, "filters": {"pane_at_left": "false"}},
        )
    )["result"]
    assert len(result) == 1 and result[0]["pane_id"] != pane_id


async def test_get_pane_info_by_each_targeting_style(
    shared: TmuxServer, python_client: Client
) -> None:
    name = f"gpi-{tag()}"
    session_id, window_id, first_pane = shared.new_session(
        name, window_name="first", width=120, height=40
    ).ids
    split(shared, window_id)
    other_window, _, other_pane = new_window(shared, name, "other")
    by_id = {
        r["pane_id"]: pane_row(r)
        for r in rows(shared, "list-panes", "-s", "-t", session_id, fields=PANE_FIELDS)
    }
    assert await call(python_client, "get_pane_info", {"pane_id": other_pane}) == by_id[other_pane]
    assert (
        await call(python_client, "get_pane_info", {"window_id": other_window}) == by_id[other_pane]
    )
    # a session: the active pane of its active window
    assert (
        await call(python_client, "get_pane_info", {"session_id": session_id}) == by_id[first_pane]
    )
    assert await call(python_client, "get_pane_info", {"session_name": name}) == by_id[first_pane]
    first_session = shared.lines("list-sessions", "-F", "#{session_id}")[0]
    default = await call(python_client, "get_pane_info")
    expected = rows(
        shared,
        "list-panes",
        "-s",
        "-t",
        first_session,
        "-f",
        "#{&&:#{window_active},#{pane_active}}",
        fields=PANE_FIELDS,
    )
    assert default == pane_row(expected[0])


# --- display_message ------------------------------------------------------------------------


async def test_display_message_expands_like_tmux(shared: TmuxServer, python_client: Client) -> None:
    name = f"dm-{tag()}"
    made = shared.new_session(name, window_name="first", width=120, height=40)
    window_id, pane_id = made.window, made.pane
    _, _, other_pane = new_window(shared, name, "w")
    fmt = "#{session_name}:#{window_index}.#{pane_index}"
    for arguments, target in (
        ({"pane_id": other_pane}, other_pane),
        ({"window_id": window_id}, pane_id),
        ({"session_name": name}, pane_id),
    ):
        own = shared.tmux("display-message", "-p", "-t", target, fmt).rstrip("\n")
        result = await call(python_client, "display_message", {"format_string": fmt, **arguments})
        assert result == {"result": own}, arguments
    two_lines = await call(
        python_client,
        "display_message",
        {"format_string": "#{pane_id}\nsize #{pane_width}x#{pane_height};", "pane_id": pane_id},
    )
    assert two_lines["result"] == f"{pane_id}\nsize 120x40;"


async def test_display_message_refuses_shell_commands_and_runs_nothing(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    for fmt in (
        f"#(touch {marker})",
        f"x #{{?1,#(touch {marker}),}}",
        "#{E:status-right}",
        "#{T;=5:status-left}",
    ):
        message = await no_tmux_ran(
            shared, python_client, "display_message", {"format_string": fmt}
        )
        assert_names(message, "format_string")
    assert not marker.exists()


# --- bad targets ------------------------------------------------------------------------


async def test_malformed_ids_are_refused_before_tmux(
    shared: TmuxServer, python_client: Client
) -> None:
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("get_pane_info", {"pane_id": "abc"}, "pane_id"),
        ("get_pane_info", {"window_id": "1"}, "window_id"),
        ("get_pane_info", {"session_id": "main"}, "session_id"),
        ("display_message", {"format_string": "x", "pane_id": "abc"}, "pane_id"),
        ("get_window_info", {"window_id": "%1"}, "window_id"),
        ("get_window_info", {"window_index": "one", "session_name": "main"}, "window_index"),
        ("get_window_info", {"window_index": "1"}, "window_index"),  # no session
        ("list_panes", {"window_index": "0"}, "window_index"),  # no session
        ("list_panes", {"window_id": "abc"}, "window_id"),
        ("list_panes", {"session_id": "1"}, "session_id"),
        ("list_windows", {"session_id": "abc"}, "session_id"),
        ("get_session_info", {"session_id": "abc"}, "session_id"),
    ]
    for tool, arguments, field in cases:
        message = await no_tmux_ran(shared, python_client, tool, arguments)
        assert_names(message, field, "Invalid argument")


async def test_unknown_targets_name_the_target_and_the_socket(
    shared: TmuxServer, python_client: Client
) -> None:
    cases: list[tuple[str, dict[str, Any], tuple[str, ...]]] = [
        ("get_pane_info", {"pane_id": "%999"}, ("%999", "list_panes")),
        ("get_pane_info", {"window_id": "@999"}, ("@999", "list_windows")),
        ("get_pane_info", {"session_name": "nosuch"}, ("'nosuch'", "list_sessions")),
        ("display_message", {"format_string": "x", "pane_id": "%999"}, ("%999",)),
        ("display_message", {"format_string": "x", "session_id": "$999"}, ("$999",)),
        ("get_window_info", {"window_id": "@999"}, ("@999", "list_windows")),
        ("get_window_info", {"session_name": "main", "window_index": "99"}, ("99", "main")),
        ("get_window_info", {"session_id": "$999"}, ("$999", "list_sessions")),
        ("list_panes", {"window_id": "@999"}, ("@999",)),
        ("list_panes", {"session_name": "nosuch"}, ("'nosuch'",)),
        ("list_panes", {"session_name": "main", "window_index": "99"}, ("99", "main")),
        ("list_windows", {"session_id": "$999"}, ("$999", "list_sessions")),
        ("list_windows", {"session_name": "nosuch"}, ("'nosuch'",)),
        ("get_session_info", {"session_id": "$999"}, ("$999",)),
        ("get_session_info", {"session_name": "nosuch"}, ("'nosuch'",)),
    ]
    for tool, arguments, words in cases:
        with anyio.fail_after(DEADLINE):
            message = await python_client.error(tool, arguments)
        assert_names(message, *words, shared.name)
        assert "Traceback" not in message


# --- transports ---------------------------------------------------------------------------


async def test_both_transports_give_the_same_answers(
    shared: TmuxServer, python_client: Client
) -> None:
    name = f"tr-{tag()}"
    session_id, window_id, pane_id = shared.new_session(
        name, window_name="first", width=120, height=40
    ).ids
    calls: list[tuple[str, dict[str, Any]]] = [
        ("get_server_info", {}),
        ("list_sessions", {"filters": {"session_id": session_id}}),
        ("get_session_info", {"session_id": session_id}),
        ("list_windows", {"session_id": session_id}),
        ("get_window_info", {"window_id": window_id}),
        ("list_panes", {"session_name": name}),
        ("get_pane_info", {"pane_id": pane_id}),
        (
            "display_message",
            {
                "format_string": "#{pane_id} [#{client_name}] #{window_index}",
                "pane_id": pane_id,
            },
        ),
    ]
    env = shared.server_env(TMUX_CONTRACT_MCP_TRANSPORT="subprocess")
    async with open_in_process(env, "python") as subprocess_client:
        for tool, arguments in calls:
            over_control = await call(python_client, tool, arguments)
            over_subprocess = await call(subprocess_client, tool, arguments)
            assert over_control == over_subprocess, tool
    assert over_control == {"result": f"{pane_id} [] 0"}  # no client: client_* are empty
