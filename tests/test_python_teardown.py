"""The teardown tools (kill_*, clear_pane, delete_buffer) and respawn_pane, and the guard
that keeps them from killing the MCP server's own pane, window, session or server.

Most tests share one MCP server per transport and give each test a tmux server of its
own beside the shared one, named with ``socket_name`` (killing things needs a fresh
world). The guard tests start MCP servers of their own: inside a pane of the tmux server
they act on, inside a pane of another tmux server, or outside tmux with a TMUX / TMUX_PANE
that cannot rule out that it runs in the target.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from scripts.lab.client import COMMAND, Client, open_client
from scripts.lab.tmuxserver import TmuxServer
from tests.jsonrpc import FifoPeer
from tmux_contract_mcp.handlers.tmux.transport.formats import literal_format

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

ALL_TOOLSETS = "inspect,manage,execute,teardown"
TRANSPORTS = ("control", "subprocess")
# Commands tmux has an after- hook for (3.3a): kill-window, kill-session, respawn-pane,
# delete-buffer and clear-history have none, so a refusal also proves the state unchanged.
# --- fixtures ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shared() -> Iterator[TmuxServer]:
    """Only hosts the socket directory: each test's own server sits beside it."""
    server = TmuxServer.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture(scope="module", params=TRANSPORTS)
async def client(shared: TmuxServer, request: pytest.FixtureRequest) -> AsyncIterator[Client]:
    env = shared.server_env(
        LIBTMUX_TOOLSETS=ALL_TOOLSETS, TMUX_CONTRACT_MCP_TRANSPORT=request.param
    )
    async with open_client(env, "python") as opened:
        yield opened


@pytest.fixture
def world(shared: TmuxServer) -> Iterator[TmuxServer]:
    """A tmux server of this test's own, reached with ``socket_name``."""
    server = TmuxServer.start(beside=shared)
    try:
        yield server
    finally:
        server.kill()


# --- helpers ----------------------------------------------------------------------------


async def ok(client: Client, world: TmuxServer, tool: str, **arguments: Any) -> Any:
    return await client.ok(tool, {**arguments, "socket_name": world.name})


async def error(client: Client, world: TmuxServer, tool: str, **arguments: Any) -> str:
    return await client.error(tool, {**arguments, "socket_name": world.name})


def snapshot(server: TmuxServer) -> list[str]:
    """Sessions, windows, panes and the process in each: a refused call changes none."""
    return server.lines(
        "list-panes", "-a", "-F", "#{session_id} #{window_id} #{pane_id} #{pane_pid}"
    )


def new_window(server: TmuxServer, *command: str, target: str = "main:") -> tuple[str, str]:
    out = server.tmux(
        "new-window", "-d", "-P", "-F", "#{window_id} #{pane_id}", "-t", target, *command
    )
    window_id, pane_id = out.split()
    return window_id, pane_id


def new_session(server: TmuxServer, name: str) -> str:
    """A detached session; ``name`` is taken literally (tmux expands -s as a format)."""
    out = server.tmux(
        "new-session",
        "-d",
        "-P",
        "-F",
        "#{session_id}",
        "-s",
        tmux_literal(literal_format(name)),
    )
    session_id = out.strip()
    assert session_name(server, session_id) == name
    return session_id


def session_name(server: TmuxServer, session_id: str) -> str:
    return server.tmux("display-message", "-p", "-t", session_id, "#{session_name}")[:-1]


def pane_ids(server: TmuxServer) -> set[str]:
    return set(server.lines("list-panes", "-a", "-F", "#{pane_id}"))


def session_ids(server: TmuxServer) -> set[str]:
    return set(server.lines("list-sessions", "-F", "#{session_id}"))


def window_ids(server: TmuxServer) -> set[str]:
    return set(server.lines("list-windows", "-a", "-F", "#{window_id}"))


def buffer_names(server: TmuxServer) -> list[str]:
    out = server.tmux("list-buffers", "-F", "#{buffer_name}\x1f")
    return sorted(name for name in out.split("\x1f\n") if name)


def display(server: TmuxServer, pane: str, field: str) -> str:
    return server.tmux("display-message", "-p", "-t", pane, f"#{{{field}}}")[:-1]


def until(check: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def wait_for_path(server: TmuxServer, pane: str, path: str) -> None:
    until(
        lambda: display(server, pane, "pane_current_path") == path,
        f"{pane} to run in {path!r}",
    )


def weird_values(marker: Path) -> list[str]:
    """Values a careless server would split, expand or run; ``marker`` appears if one ran."""
    return [
        "semi;colon",
        "trailing;",
        "#{session_name}",
        f"#(touch {marker})",
        f"$(touch {marker})",
        "quote'\"s",
        "new\nline",
        "é漢",
        "style#[fg=red]x",
    ]


def tmux_literal(value: str) -> str:
    """An argument for the tmux command line that tmux reads back as ``value``."""
    return value[:-1] + "\\;" if value.endswith(";") else value


# --- kill_pane / kill_window / kill_session / kill_server --------------------------------


async def test_kill_pane_removes_only_that_pane(client: Client, world: TmuxServer) -> None:
    window_id, pane = new_window(world)
    sibling = world.tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", pane).strip()
    before = pane_ids(world)
    result = await ok(client, world, "kill_pane", pane_id=pane)
    assert result == {"result": f"Pane killed: {pane}"}
    assert pane_ids(world) == before - {pane}
    assert sibling in pane_ids(world) and window_id in window_ids(world)


async def test_kill_window_removes_it_from_every_session_it_is_linked_into(
    client: Client, world: TmuxServer
) -> None:
    window_id, pane = new_window(world)
    world.tmux("split-window", "-d", "-t", pane)
    new_session(world, "also")
    world.tmux("link-window", "-s", window_id, "-t", "also:")
    result = await ok(client, world, "kill_window", window_id=window_id)
    assert result == {"result": f"Window killed: {window_id}"}
    assert window_id not in window_ids(world)
    assert pane not in pane_ids(world)
    assert {"main", "also"} <= set(world.lines("list-sessions", "-F", "#{session_name}"))


async def test_kill_session_by_id_or_exact_name_leaves_the_others(
    client: Client, world: TmuxServer
) -> None:
    # "doomed" sorts first: a control client attaches to it, so it kills its own session.
    doomed = new_session(world, "doomed")
    other = new_session(world, "other")
    main = world.tmux("display-message", "-p", "-t", "main", "#{session_id}").strip()
    result = await ok(client, world, "kill_session", session_name="doomed")
    assert result == {"result": f"Session killed: doomed ({doomed})"}
    assert session_ids(world) == {main, other}
    result = await ok(client, world, "kill_session", session_id=other)
    assert result == {"result": f"Session killed: other ({other})"}
    assert session_ids(world) == {main}
    # A prefix is not a name; a name and an id must agree; one of them is needed.
    assert "No session named 'mai'" in await error(
        client, world, "kill_session", session_name="mai"
    )
    mismatch = await error(client, world, "kill_session", session_id=main, session_name="nope")
    assert "session_name" in mismatch and main in mismatch
    mark = world.mark()
    assert "session_id" in await error(client, world, "kill_session")
    world.assert_nothing_sent_since(mark)
    assert session_ids(world) == {main}
    assert (await ok(client, world, "list_sessions"))["result"][0]["session_id"] == main
    # The last session: the server exits with it, and says so afterwards.
    assert await ok(client, world, "kill_session", session_id=main) == {
        "result": f"Session killed: main ({main})"
    }
    assert "no tmux server is running" in await error(client, world, "list_sessions")


async def test_kill_server_ends_it_and_later_calls_say_no_server(
    client: Client, world: TmuxServer
) -> None:
    result = await ok(client, world, "kill_server")
    assert result["result"].startswith("Server killed:") and world.name in result["result"]
    assert world.tmux("list-sessions", check=False) == ""
    for tool, arguments in (
        ("list_sessions", {}),
        ("kill_server", {}),
        ("kill_pane", {"pane_id": "%0"}),
    ):
        message = await error(client, world, tool, **arguments)
        assert "no tmux server is running" in message and world.name in message, message


# --- clear_pane / delete_buffer ----------------------------------------------------------


async def test_clear_pane_wipes_the_screen_and_the_scrollback(
    client: Client, world: TmuxServer
) -> None:
    window_id, pane = new_window(world, "sh", "-c", "seq 1 300; exec cat")
    until(lambda: int(display(world, pane, "history_size")) > 0, "scrollback")
    result = await ok(client, world, "clear_pane", pane_id=pane)
    assert result == {"result": f"Pane cleared: {pane}"}
    assert display(world, pane, "history_size") == "0"
    assert world.tmux("capture-pane", "-p", "-t", pane).strip() == ""
    # Without pane_id: the active pane of the window named.
    _, other = new_window(world, "sh", "-c", "seq 1 300; exec cat")
    until(lambda: int(display(world, other, "history_size")) > 0, "scrollback")
    world.tmux("kill-pane", "-t", pane)
    target = world.tmux("display-message", "-p", "-t", other, "#{window_id}").strip()
    assert (await ok(client, world, "clear_pane", window_id=target)) == {
        "result": f"Pane cleared: {other}"
    }
    assert display(world, other, "history_size") == "0"
    assert window_id not in window_ids(world)


async def test_delete_buffer_deletes_only_the_named_buffer(
    client: Client, world: TmuxServer
) -> None:
    world.tmux("set-buffer", "-b", "keep", "one")
    world.tmux("set-buffer", "-b", "gone", "two")
    assert await ok(client, world, "delete_buffer", buffer_name="gone") == {
        "result": "Buffer deleted: 'gone'"
    }
    assert buffer_names(world) == ["keep"]
    message = await error(client, world, "delete_buffer", buffer_name="gone")
    assert "'gone'" in message and world.name in message and "nothing was deleted" in message
    assert buffer_names(world) == ["keep"]


# --- respawn_pane ------------------------------------------------------------------------


async def test_respawn_pane_restarts_in_place_with_command_directory_and_environment(
    client: Client, world: TmuxServer, tmp_path: Path
) -> None:
    window_id, pane = new_window(world)
    world.tmux("split-window", "-d", "-t", pane)
    old_pid = display(world, pane, "pane_pid")
    out = tmp_path / "out"
    result = await ok(
        client,
        world,
        "respawn_pane",
        pane_id=pane,
        shell=f'printf "%s|%s|%s" "$A" "$B" "$(pwd)" > {out}; exec sleep 100',
        start_directory=str(tmp_path),
        environment={"A": "one", "B": "x=y"},
    )
    assert result["pane_id"] == pane and result["window_id"] == window_id
    assert result["pane_pid"] != old_pid and result["pane_pid"] == display(world, pane, "pane_pid")
    assert result["is_caller"] is None  # this MCP server does not run inside tmux
    assert result["pane_index"] == "0" and isinstance(result["pane_left"], int)
    until(lambda: out.exists() and out.read_text() != "", "the respawned command's output")
    assert out.read_text() == f"one|x=y|{tmp_path}"
    # environment as a JSON string; no shell: the pane's command (as last started) again.
    second = await ok(client, world, "respawn_pane", pane_id=pane, environment='{"A": "two"}')
    assert second["pane_pid"] != result["pane_pid"]
    until(lambda: display(world, pane, "pane_current_command") == "sleep", "sleep to restart")
    assert display(world, pane, "pane_start_command").endswith('exec sleep 100"')


async def test_respawn_pane_can_keep_shell_history_off_disk(
    client: Client, world: TmuxServer, tmp_path: Path
) -> None:
    _, pane = new_window(world)
    out = tmp_path / "env"
    shell = (
        'printf "%s|%s|%s|%s" "${HISTFILE-unset}" "${fish_history-unset}" '
        f'"$fish_private_mode" "$HISTCONTROL" > {out}; exec sleep 100'
    )
    await ok(
        client,
        world,
        "respawn_pane",
        pane_id=pane,
        shell=shell,
        suppress_persistent_history=True,
        environment={"HISTCONTROL": "ignoredups"},
    )
    until(lambda: out.exists() and out.read_text() != "", "the respawned command's output")
    assert out.read_text() == "||1|ignoredups:ignorespace"
    pid = display(world, pane, "pane_pid")
    message = await error(
        client,
        world,
        "respawn_pane",
        pane_id=pane,
        suppress_persistent_history=True,
        environment={"HISTFILE": "/tmp/history"},
    )
    assert "HISTFILE" in message and "suppress_persistent_history" in message
    assert display(world, pane, "pane_pid") == pid


async def test_respawn_pane_without_kill_leaves_a_running_pane_alone(
    client: Client, world: TmuxServer
) -> None:
    _, pane = new_window(world)
    pid = display(world, pane, "pane_pid")
    message = await error(client, world, "respawn_pane", pane_id=pane, kill=False)
    assert pane in message and "kill: true" in message
    assert display(world, pane, "pane_pid") == pid
    # A dead pane kept by remain-on-exit is what kill: false restarts.
    world.tmux("set-option", "-g", "remain-on-exit", "on")
    _, dead = new_window(world, "true")
    until(lambda: display(world, dead, "pane_dead") == "1", "the pane to die")
    result = await ok(client, world, "respawn_pane", pane_id=dead, kill=False, shell="sleep 100")
    assert result["pane_id"] == dead
    assert display(world, dead, "pane_dead") == "0"


# --- refusals ----------------------------------------------------------------------------


async def test_malformed_arguments_are_refused_before_tmux_runs(
    client: Client, world: TmuxServer, tmp_path: Path
) -> None:
    _, pane = new_window(world)
    before = snapshot(world)
    mark = world.mark()
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("kill_pane", {"pane_id": "5"}, "pane_id"),
        ("kill_pane", {"pane_id": "main:0.0"}, "pane_id"),
        ("kill_window", {"window_id": "main:1"}, "window_id"),
        ("kill_session", {"session_id": "main"}, "session_id"),
        ("clear_pane", {"pane_id": "%x"}, "pane_id"),
        ("clear_pane", {"window_id": "1"}, "window_id"),
        ("respawn_pane", {"pane_id": "%1;"}, "pane_id"),
        ("respawn_pane", {"pane_id": pane, "environment": '["A=b"]'}, "environment"),
        ("respawn_pane", {"pane_id": pane, "environment": "not json"}, "environment"),
        ("respawn_pane", {"pane_id": pane, "environment": {"A=B": "c"}}, "environment"),
        ("respawn_pane", {"pane_id": pane, "environment": {"": "c"}}, "environment"),
        ("respawn_pane", {"pane_id": pane, "environment": '{"A": 1}'}, "environment"),
        ("respawn_pane", {"pane_id": pane, "shell": "a\0b"}, "shell"),
        (
            "respawn_pane",
            {"pane_id": pane, "start_directory": str(tmp_path / "none")},
            "start_directory",
        ),
        ("delete_buffer", {"buffer_name": "a\0b"}, "buffer_name"),
    ]
    for tool, arguments, field in cases:
        message = await error(client, world, tool, **arguments)
        assert f"`{field}`" in message, (tool, arguments, message)
    world.assert_nothing_sent_since(mark)
    assert snapshot(world) == before


async def test_unknown_targets_name_the_target_and_the_socket(
    client: Client, world: TmuxServer
) -> None:
    before = snapshot(world)
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("kill_pane", {"pane_id": "%999"}, "%999"),
        ("kill_window", {"window_id": "@999"}, "@999"),
        ("kill_session", {"session_id": "$999"}, "$999"),
        ("kill_session", {"session_name": "nope"}, "'nope'"),
        ("clear_pane", {"pane_id": "%999"}, "%999"),
        ("clear_pane", {"session_name": "nope"}, "'nope'"),
        ("respawn_pane", {"pane_id": "%999"}, "%999"),
        ("delete_buffer", {"buffer_name": "nope"}, "'nope'"),
    ]
    for tool, arguments, target in cases:
        message = await error(client, world, tool, **arguments)
        assert target in message and world.name in message, (tool, message)
        assert "list_" in message or "list-buffers" in message, (tool, message)
    assert snapshot(world) == before


async def test_user_values_reach_tmux_literally(
    client: Client, world: TmuxServer, tmp_path: Path
) -> None:
    marker = tmp_path / "MARKER"
    values = weird_values(marker)
    # Buffer names: each deletes exactly its buffer ("main" is what #{session_name} expands to).
    for index, name in enumerate(values):
        world.tmux("set-buffer", "-b", tmux_literal(name), f"data{index}")
    world.tmux("set-buffer", "-b", "main", "bystander")
    assert buffer_names(world) == sorted([*values, "main"])
    for name in values:
        assert await ok(client, world, "delete_buffer", buffer_name=name) == {
            "result": f"Buffer deleted: {name!r}"
        }
    assert buffer_names(world) == ["main"]
    # Session names (tmux rewrites a newline in one: that value is left out).
    sessions = {name: new_session(world, name) for name in values if "\n" not in name}
    for name, session_id in sessions.items():
        assert (await ok(client, world, "clear_pane", session_name=name))["result"].startswith(
            "Pane cleared: %"
        )
        await ok(client, world, "kill_session", session_name=name)
        assert session_id not in session_ids(world)
    assert set(world.lines("list-sessions", "-F", "#{session_name}")) == {"main"}
    # Start directories, environment values and a command: tmux expands none of them.
    _, pane = new_window(world)
    for name in values:
        directory = tmp_path / "dirs" / name
        directory.mkdir(parents=True)
        await ok(
            client,
            world,
            "respawn_pane",
            pane_id=pane,
            start_directory=str(directory),
            shell="exec sleep 100",
        )
        wait_for_path(world, pane, str(directory))
    out = tmp_path / "out"
    variables = {f"V{index}": value for index, value in enumerate(values)}
    names = " ".join(f'"${name}"' for name in variables)
    await ok(
        client,
        world,
        "respawn_pane",
        pane_id=pane,
        environment=variables,
        shell=f"printf '%s\\0' {names} '#{{session_name}} #(touch {marker})' > {out}.part; "
        f"mv {out}.part {out}; exec sleep 100",
    )
    until(out.exists, "the respawned command's output")
    written = out.read_bytes().decode().split("\0")[:-1]
    assert written == [*values, f"#{{session_name}} #(touch {marker})"]
    assert not marker.exists()


# --- toolsets ----------------------------------------------------------------------------


async def test_teardown_tools_are_hidden_unless_the_teardown_toolset_is_on(
    shared: TmuxServer,
) -> None:
    async with open_client(shared.server_env(), "python") as default:
        listed = {tool.name for tool in (await default.session.list_tools()).tools}
        assert "respawn_pane" in listed  # execute toolset
        hidden = {
            "kill_server",
            "kill_session",
            "kill_window",
            "kill_pane",
            "clear_pane",
            "delete_buffer",
        }
        assert not hidden & listed
        with pytest.raises(MCPError) as caught:
            await default.session.call_tool("kill_server", {})
        assert caught.value.error.code == -32602
    assert session_ids(shared)


# --- the guard: a server inside a pane ---------------------------------------------------


@contextmanager
def server_in_pane(tmux: TmuxServer, pane: str, **env: str) -> Iterator[FifoPeer]:
    """Replace ``pane``'s process with the MCP server, talking over two FIFOs.

    stderr stays on the pane's terminal: with no descriptor left on it, tmux would
    see the pane hang up and send the server SIGHUP.
    """
    peer = FifoPeer(Path(tempfile.mkdtemp(dir=tmux.tmpdir)))
    variables = [
        arg for name, value in {**tmux.env, **env}.items() for arg in ("-e", f"{name}={value}")
    ]
    command = peer.shell_command(f"{COMMAND} --profile python")
    tmux.tmux("respawn-pane", "-k", "-t", pane, *variables, command)
    try:
        peer.connect()
        peer.initialize()
        yield peer
    finally:
        peer.close()


def refused(peer: FifoPeer, tool: str, arguments: dict[str, Any]) -> str:
    result = peer.call(tool, arguments)
    text = " ".join(item["text"] for item in result["content"])
    assert result.get("isError"), (tool, arguments, result)
    assert text.startswith("Refused"), text
    return text


def allowed(peer: FifoPeer, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = peer.call(tool, arguments)
    assert not result.get("isError"), (tool, arguments, result)
    return dict(result["structuredContent"])


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_inside_a_pane_the_guard_refuses_its_own_pane_window_session_and_server(
    tmux: TmuxServer, transport: str
) -> None:
    grid = tmux.grid()
    home = grid["top-left"]
    home_window = display(tmux, home, "window_id")
    home_session = display(tmux, home, "session_id")
    _, elsewhere = new_window(tmux)
    linked = new_session(tmux, "linked")
    tmux.tmux("link-window", "-s", home_window, "-t", "linked:")
    other = new_session(tmux, "other")
    env = {
        "LIBTMUX_SOCKET": tmux.name,
        "LIBTMUX_TOOLSETS": ALL_TOOLSETS,
        "TMUX_CONTRACT_MCP_TRANSPORT": transport,
    }
    with server_in_pane(tmux, home, **env) as peer:
        before = snapshot(tmux)
        message = refused(peer, "kill_pane", {"pane_id": home})
        assert home in message and "this MCP server" in message and "another pane" in message
        assert home in refused(peer, "respawn_pane", {"pane_id": home})
        assert home_window in refused(peer, "kill_window", {"window_id": home_window})
        assert "'main'" in refused(peer, "kill_session", {"session_name": "main"})
        assert home_session in refused(peer, "kill_session", {"session_id": home_session})
        assert "'linked'" in refused(peer, "kill_session", {"session_id": linked})
        assert "kill_session" in refused(peer, "kill_server", {})
        assert snapshot(tmux) == before
        # Everything else may go, and the server keeps answering.
        assert allowed(peer, "kill_pane", {"pane_id": grid["top-right"]})
        assert allowed(peer, "respawn_pane", {"pane_id": grid["bottom-left"]})["is_caller"] is False
        assert allowed(peer, "kill_window", {"window_id": display(tmux, elsewhere, "window_id")})
        assert allowed(peer, "kill_session", {"session_id": other})
        index = next(
            line.split()[1]
            for line in tmux.lines(
                "list-windows", "-t", linked, "-F", "#{window_id} #{window_index}"
            )
            if line.split()[0] == home_window
        )
        tmux.tmux("unlink-window", "-t", f"{linked}:{index}")
        assert allowed(peer, "kill_session", {"session_name": "linked"})
        assert session_ids(tmux) == {home_session}
        assert grid["top-right"] not in pane_ids(tmux) and home in pane_ids(tmux)
        assert allowed(peer, "get_pane_info", {"pane_id": home})["is_caller"] is True


def test_inside_another_tmux_server_everything_on_the_target_may_be_killed(
    tmux: TmuxServer, other_tmux: TmuxServer
) -> None:
    home = other_tmux.active_pane()
    target = tmux.active_pane()
    assert target == home  # the ids collide: only the socket tells them apart
    env = {"LIBTMUX_SOCKET": tmux.name, "LIBTMUX_TOOLSETS": ALL_TOOLSETS}
    window = display(tmux, target, "window_id")
    tmux.tmux("split-window", "-d", "-t", target)
    new_window(tmux)
    new_session(tmux, "spare")
    with server_in_pane(other_tmux, home, **env) as peer:
        theirs = snapshot(other_tmux)
        assert allowed(peer, "respawn_pane", {"pane_id": target})["is_caller"] is False
        assert allowed(peer, "kill_pane", {"pane_id": target})
        assert allowed(peer, "kill_window", {"window_id": window})
        assert allowed(peer, "kill_session", {"session_name": "main"})
        assert allowed(peer, "kill_server", {})
        assert tmux.tmux("list-sessions", check=False) == ""
        assert snapshot(other_tmux) == theirs


# --- the guard: environments that cannot rule the caller out -----------------------------


async def refusals(env: dict[str, str], tmux: TmuxServer, pane: str) -> list[str]:
    """What kill_pane (of ``pane``, not the one TMUX_PANE names) and kill_server answer."""
    async with open_client(env, "python") as client:
        return [
            await client.error("kill_pane", {"pane_id": pane}),
            await client.error("kill_window", {"window_id": display(tmux, pane, "window_id")}),
            await client.error("kill_server"),
        ]


@pytest.mark.parametrize(
    "case",
    ["tmux-unparsable", "pane-unset", "pane-gone"],
)
async def test_an_environment_that_cannot_rule_out_the_caller_refuses(
    tmux: TmuxServer, case: str
) -> None:
    _, pane = new_window(tmux)
    pid = tmux.tmux("display-message", "-p", "#{pid}").strip()
    tmux_var = f"{tmux.socket_path},{pid},0"
    env = tmux.server_env(LIBTMUX_TOOLSETS=ALL_TOOLSETS, TMUX=tmux_var, TMUX_PANE="%0")
    if case == "tmux-unparsable":
        env["TMUX"] = "not-a-socket"
    elif case == "pane-unset":
        del env["TMUX_PANE"]
    else:
        env["TMUX_PANE"] = "%999"
    before = snapshot(tmux)
    kill_pane, kill_window, kill_server = await refusals(env, tmux, pane)
    for message in (kill_pane, kill_window):
        assert message.startswith("Refused") and "cannot rule out" in message, message
    assert kill_server.startswith("Refused"), kill_server
    assert snapshot(tmux) == before


@pytest.mark.parametrize("path", ["hard-link", "moved"])
async def test_the_callers_server_is_recognised_by_another_socket_path(
    tmux: TmuxServer, tmp_path: Path, path: str
) -> None:
    """A hard link to the socket is the same file; a moved socket keeps the server's pid."""
    home = tmux.active_pane()
    _, pane = new_window(tmux)
    pid = tmux.tmux("display-message", "-p", "#{pid}").strip()
    if path == "hard-link":
        socket = tmp_path / "link"
        os.link(tmux.socket_path, socket)
    else:
        socket = tmp_path / "gone"
    env = tmux.server_env(LIBTMUX_TOOLSETS=ALL_TOOLSETS, TMUX=f"{socket},{pid},0", TMUX_PANE=home)
    before = snapshot(tmux)
    async with open_client(env, "python") as client:
        assert (await client.error("kill_pane", {"pane_id": home})).startswith("Refused")
        assert (await client.error("kill_server")).startswith("Refused")
        assert snapshot(tmux) == before
        assert await client.ok("kill_pane", {"pane_id": pane}) == {"result": f"Pane killed: {pane}"}
    assert pane not in pane_ids(tmux)
