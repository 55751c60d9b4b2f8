"""The swift profile's configuration, as the family has it, against real tmux.

With no socket setting the server serves the dedicated socket ``libtmux-mcp``
(never tmux's ``default``, never the tmux it runs inside), starts a server
there with its minimal configuration when none runs, and kills that server
when it ends; a socket the user chose is only looked at. ``LIBTMUX_TMUX_CONFIG``
is the file a server started through the socket reads. Bad settings, retired
variables and empty tokens stop startup with one line before tmux is touched.
Every test runs its MCP server in a private TMUX_TMPDIR (a ``TmuxServer``'s)
and kills whatever runs on the dedicated socket there when it ends.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from scripts.lab.client import COMMAND, open_client
from scripts.lab.tmuxserver import TmuxServer
from tmux_contract_mcp.handlers.services import StartupRefused
from tmux_contract_mcp.handlers.swift.config import problems, read_config
from tmux_contract_mcp.handlers.tmux.objects.server import Tmux
from tmux_contract_mcp.profiles import load_profile

DEDICATED = "libtmux-mcp"
INCARNATION = "#{pid} #{start_time}"


# --- fixtures and helpers ---------------------------------------------------------------


@pytest.fixture
def dedicated(tmux: TmuxServer) -> Iterator[TmuxServer]:
    """The dedicated socket in ``tmux``'s TMUX_TMPDIR (nothing runs there yet); whatever
    runs there when the test ends is killed."""
    server = TmuxServer(tmux.tmpdir, DEDICATED, env=dict(tmux.env), owns_tmpdir=False)
    try:
        yield server
    finally:
        server.tmux("kill-server", check=False)


def without_socket(tmux: TmuxServer, **extra: str) -> dict[str, str]:
    """``tmux``'s server environment with no socket chosen."""
    env = tmux.server_env(**extra)
    env.pop("LIBTMUX_SOCKET")
    return env


def running(server: TmuxServer) -> str | None:
    """The incarnation (pid and start time) of the server on that socket, or None."""
    return server.tmux("display-message", "-p", INCARNATION, check=False).strip() or None


def start_command(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [COMMAND, "--profile", "swift"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env,
        timeout=60,
    )


# --- the dedicated socket --------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.e2e
async def test_without_a_socket_setting_a_dedicated_server_is_started_and_killed_at_the_end(
    tmux: TmuxServer, dedicated: TmuxServer, tmp_path: Path
) -> None:
    # A user configuration that must not be read, a server on tmux's default socket and
    # the tmux this process runs in: none of them is what the swift profile serves.
    (tmp_path / ".tmux.conf").write_text("set-option -g @from_user_config yes\n")
    default = TmuxServer(tmux.tmpdir, "default", env=dict(tmux.env), owns_tmpdir=False)
    default.tmux("-f", "/dev/null", "new-session", "-d", "-s", "on-default")
    try:
        before = tmux.state(), default.state()
        env = without_socket(
            tmux, HOME=str(tmp_path), TMUX=f"{tmux.socket_path},1,0", TMUX_PANE="%0"
        )
        assert running(dedicated) is None
        async with open_client(env, "swift") as client:
            info = await client.ok("get_server_info")
            assert info["running"] is True
            assert info["socketPath"] == dedicated.socket_path
            assert await client.ok("list_sessions") == {"sessions": []}
            incarnation = running(dedicated)
            assert incarnation is not None
            # What tmux says about the server this process started.
            assert dedicated.tmux("show-options", "-gv", "exit-empty").strip() == "off"
            assert dedicated.tmux("show-options", "-gqv", "@from_user_config") == ""
            assert dedicated.tmux("show-options", "-gqv", "@libtmux_mcp_owner").strip()
            assert "LIBTMUX_MCP_OWNER" not in dedicated.tmux("show-environment", "-g")
            # A server with no session answers every listing with nothing.
            assert await client.ok("list_panes") == {"panes": []}
            assert await client.ok("list_windows") == {"windows": []}
            found = await client.ok("search_panes", {"pattern": "x"})
            assert (found["matches"], found["panesAvailable"]) == ([], 0)
        assert running(dedicated) is None, "the server this process started outlived it"
        assert (tmux.state(), default.state()) == before
    finally:
        default.kill()


@pytest.mark.anyio
@pytest.mark.e2e
async def test_a_server_already_on_the_dedicated_socket_is_served_and_left_running(
    tmux: TmuxServer, dedicated: TmuxServer
) -> None:
    dedicated.tmux("-f", "/dev/null", "new-session", "-d", "-s", "theirs")
    incarnation = running(dedicated)
    async with open_client(without_socket(tmux), "swift") as client:
        sessions = (await client.ok("list_sessions"))["sessions"]
        assert [s["name"] for s in sessions] == ["theirs"]
        found = await client.read("tmux://capabilities", "capabilities")
        assert found["connection"]["serverState"] == "existing"
        assert found["connection"]["configurationProvenance"] == "unknown"
    assert running(dedicated) == incarnation


@pytest.mark.anyio
@pytest.mark.e2e
async def test_a_server_started_again_on_the_dedicated_socket_is_not_killed(
    tmux: TmuxServer, dedicated: TmuxServer
) -> None:
    """Ownership is the server this process started, not the socket: once someone has
    killed it and started another there, the end leaves the new one alone."""
    async with open_client(without_socket(tmux), "swift") as client:
        await client.ok("get_server_info")
        assert running(dedicated) is not None
        dedicated.tmux("kill-server")
        await anyio.sleep(0.05)  # tmux may need a moment before the socket takes a new server
        dedicated.tmux("-f", "/dev/null", "new-session", "-d", "-s", "next")
        replacement = running(dedicated)
    assert running(dedicated) == replacement


# --- a socket the user chose --------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.e2e
async def test_a_chosen_socket_is_only_looked_at_and_its_config_is_reported(
    tmux: TmuxServer, tmp_path: Path
) -> None:
    config = tmp_path / "tmux.conf"
    config.write_text("set-option -g @from_config yes\n")
    absent = TmuxServer(tmux.tmpdir, "nobody-here", env=dict(tmux.env), owns_tmpdir=False)
    env = tmux.server_env(LIBTMUX_SOCKET=absent.name, LIBTMUX_TMUX_CONFIG=str(config))
    async with open_client(env, "swift") as client:
        info = await client.ok("get_server_info")
        assert info == {"running": False, "socketPath": absent.socket_path}
        found = await client.read("tmux://capabilities", "capabilities")
        assert found["connection"] == {
            "socketSelector": f"name:{absent.name}",
            "socketProvenance": "operator-current",
            "resolvedSocketPath": absent.socket_path,
            "serverState": "absent",
            "configurationProvenance": "user-configured",
            "attachCommand": f"'{env['LIBTMUX_TMUX_BIN']}' -N -L '{absent.name}' attach",
        }
    assert running(absent) is None  # nothing was started on it


@pytest.mark.anyio
async def test_the_chosen_config_is_read_by_a_server_started_through_the_socket(
    tmux: TmuxServer, tmp_path: Path
) -> None:
    """The core passes ``-f`` with every command that can start a server: here a
    new-session on an empty socket, through the one-process-per-command transport."""
    config = tmp_path / "tmux.conf"
    config.write_text("set-option -g @from_config yes\nset-option -g default-shell /bin/sh\n")
    target = TmuxServer(tmux.tmpdir, "configured", env=dict(tmux.env), owns_tmpdir=False)
    env = {
        **tmux.server_env(LIBTMUX_SOCKET=target.name, LIBTMUX_TMUX_CONFIG=str(config)),
        "TMUX_CONTRACT_MCP_TRANSPORT": "subprocess",
    }
    chosen = read_config(env)
    core = Tmux(env, socket=chosen.socket)
    try:
        await core.server().run("new-session", "-d", "-s", "started")
        assert target.tmux("show-options", "-gv", "@from_config").strip() == "yes"
    finally:
        await core.aclose()
        target.kill()


# --- refused at startup ------------------------------------------------------------------


@pytest.mark.e2e
def test_every_bad_setting_is_named_on_one_line_and_tmux_is_not_touched(
    tmux: TmuxServer,
) -> None:
    mark = tmux.mark()
    env = tmux.server_env(
        LIBTMUX_SOCKET_PATH="relative/socket",
        LIBTMUX_TMUX_CONFIG="tmux.conf",
        LIBTMUX_SAFETY="readonly",
        LIBTMUX_MCP_TOOLS="list_panes",
        LIBTMUX_TMUX_CONF="/etc/tmux.conf",
        LIBTMUX_EXCLUDE_TOOLS="list_panes,,search_panes",
    )
    done = start_command(env)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith("tmux-contract-mcp: ")
    for said in (
        "set only one of LIBTMUX_SOCKET_PATH and LIBTMUX_SOCKET",
        "LIBTMUX_SOCKET_PATH must be an absolute path",
        "LIBTMUX_TMUX_CONFIG must be an absolute path",
        "LIBTMUX_SAFETY is retired; use LIBTMUX_TOOLSETS, LIBTMUX_TOOLS and LIBTMUX_EXCLUDE_TOOLS",
        "LIBTMUX_MCP_TOOLS is retired",
        "LIBTMUX_TMUX_CONF is retired; use LIBTMUX_TMUX_CONFIG",
        "LIBTMUX_EXCLUDE_TOOLS contains an empty token",
    ):
        assert said in line, said
    tmux.assert_nothing_sent_since(mark)


@pytest.mark.parametrize(
    ("setting", "said"),
    [
        ({"LIBTMUX_SOCKET": "", "LIBTMUX_SOCKET_PATH": "/tmp/s"}, "set only one of"),
        ({"LIBTMUX_SOCKET": "a/b"}, "LIBTMUX_SOCKET must be a socket name"),
        ({"LIBTMUX_SOCKET": ""}, "LIBTMUX_SOCKET must be a socket name"),
        ({"LIBTMUX_SOCKET_PATH": "s"}, "LIBTMUX_SOCKET_PATH must be an absolute path"),
        ({"LIBTMUX_TMUX_CONFIG": "/no/such/tmux.conf"}, "LIBTMUX_TMUX_CONFIG names no file"),
        ({"LIBTMUX_TOOLSETS": "inspect,,manage"}, "LIBTMUX_TOOLSETS contains an empty token"),
        ({"LIBTMUX_TOOLS": "list_panes,"}, "LIBTMUX_TOOLS contains an empty token"),
        ({"LIBTMUX_TOOLSETS": " "}, "LIBTMUX_TOOLSETS contains an empty token"),
        ({"LIBTMUX_SAFETY": ""}, "LIBTMUX_SAFETY is retired"),
        ({"LIBTMUX_MCP_WAIT_MAX_SECONDS": "soon"}, "must be a number of seconds"),
        ({"LIBTMUX_MCP_WAIT_MAX_SECONDS": "nan"}, "must be a number of seconds"),
    ],
    ids=[
        "both-sockets",
        "name-with-slash",
        "empty-name",
        "relative-path",
        "missing-config",
        "empty-toolset-token",
        "trailing-comma",
        "blank-toolsets",
        "retired-even-empty",
        "wait-ceiling-word",
        "wait-ceiling-nan",
    ],
)
def test_each_bad_setting_is_refused(setting: dict[str, str], said: str) -> None:
    assert [problem for problem in problems(setting) if said in problem], problems(setting)
    with pytest.raises(StartupRefused, match=said):
        read_config(setting)


def test_good_settings_pass_and_name_the_socket(tmp_path: Path) -> None:
    config = tmp_path / "tmux.conf"
    config.write_text("")
    base = {"TMUX_TMPDIR": str(tmp_path)}
    where = os.path.join(os.path.realpath(tmp_path), f"tmux-{os.getuid()}")
    default = read_config({**base, "LIBTMUX_TOOLSETS": ""})
    assert (default.socket.path, default.dedicated) == (os.path.join(where, DEDICATED), True)
    assert default.selection.toolsets == ()
    named = read_config({**base, "LIBTMUX_SOCKET": "work", "LIBTMUX_TOOLS": " list_panes "})
    assert (named.socket.path, named.dedicated, named.selector) == (
        os.path.join(where, "work"),
        False,
        "name:work",
    )
    assert named.selection.included == ("list_panes",)
    by_path = read_config({**base, "LIBTMUX_SOCKET_PATH": "/tmp/x.sock"})
    assert (by_path.socket.path, by_path.selector) == ("/tmp/x.sock", "path:/tmp/x.sock")
    configured = read_config({**base, "LIBTMUX_TMUX_CONFIG": str(config)})
    assert (configured.dedicated, configured.socket.config) == (False, str(config))
    assert read_config(base).selection.toolsets == ("execute", "inspect", "manage")


# --- toolsets, adds and excludes ----------------------------------------------------------


def toolset(name: str) -> set[str]:
    return {tool for tool, of in load_profile("swift").catalog.items() if of == name}


@pytest.mark.parametrize(
    ("environ", "shown"),
    [
        ({}, toolset("inspect") | toolset("manage") | toolset("execute")),
        ({"LIBTMUX_TOOLSETS": ""}, set()),
        ({"LIBTMUX_TOOLSETS": "", "LIBTMUX_TOOLS": "list_panes"}, {"list_panes"}),
        (
            {"LIBTMUX_TOOLSETS": "manage", "LIBTMUX_TOOLS": "list_panes,get_pane_info"},
            toolset("manage") | {"list_panes", "get_pane_info"},
        ),
        (
            {
                "LIBTMUX_TOOLSETS": "inspect",
                "LIBTMUX_EXCLUDE_TOOLS": "list_panes",
                "LIBTMUX_TOOLS": "list_panes",
            },
            toolset("inspect") - {"list_panes"},
        ),
    ],
    ids=["default", "empty-selects-none", "add-one", "add-two", "exclude-wins"],
)
def test_toolsets_adds_and_excludes_choose_the_tools(
    environ: dict[str, str], shown: set[str]
) -> None:
    assert set(load_profile("swift").shown(environ).tools) == shown


@pytest.mark.anyio
async def test_the_prepare_step_runs_once_before_the_first_command_and_again_after_a_failure(
    tmux: TmuxServer,
) -> None:
    """The core's hook the dedicated server is started with (``Tmux(prepare=...)``)."""
    calls: list[str] = []

    async def prepare(server: object) -> None:
        calls.append("prepare")
        if len(calls) == 1:
            raise RuntimeError("not yet")

    env = tmux.server_env(TMUX_CONTRACT_MCP_TRANSPORT="subprocess")
    chosen = read_config(env)
    core = Tmux(env, socket=chosen.socket, prepare=prepare)
    server = core.server()
    mark = tmux.mark()
    with pytest.raises(RuntimeError, match="not yet"):
        await server.run("list-sessions")
    tmux.assert_nothing_sent_since(mark)  # the command waits for its server to be ready
    assert await server.run("display-message", "-p", "#{session_name}") == ["main"]
    await server.run_many(("list-sessions",), ("list-clients",))
    assert calls == ["prepare", "prepare"]
    await core.aclose()


@pytest.mark.parametrize(
    ("given", "ceiling"),
    [(None, 120.0), ("30", 30.0), ("0.2", 1.0), ("-5", 1.0), ("1e6", 300.0), ("300.5", 300.0)],
)
def test_the_wait_ceiling_is_held_within_one_to_three_hundred_seconds(
    given: str | None, ceiling: float
) -> None:
    environ = {} if given is None else {"LIBTMUX_MCP_WAIT_MAX_SECONDS": given}
    assert read_config(environ).wait_ceiling == ceiling
