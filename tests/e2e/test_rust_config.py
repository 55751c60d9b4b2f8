"""The rust profile's configuration, and the teardown default both families tie to a
server this process started, against real tmux.

With no socket setting the process serves the dedicated socket ``libtmux-mcp``;
when nothing runs there as it starts, it starts the server then, turns the
teardown toolset on by default (LIBTMUX_TOOLSETS still decides alone when set),
and kills that server when it ends. A server already there is served as it is,
teardown stays off, and it is left running. Bad settings stop startup with one
line. Every test runs its MCP server in a private TMUX_TMPDIR (a ``TmuxServer``'s).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from scripts.lab.client import COMMAND, open_client
from scripts.lab.tmuxserver import TmuxServer
from tmux_contract_mcp.dispatch import ServedRuntime
from tmux_contract_mcp.profiles import load_profile, served_after_startup
from tmux_contract_mcp.seam import HandlerSet

DEDICATED = "libtmux-mcp"
INCARNATION = "#{pid} #{start_time}"
FAMILIES = ["rust", "swift"]


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
    env = tmux.server_env(**extra)
    env.pop("LIBTMUX_SOCKET")
    return env


def running(server: TmuxServer) -> str | None:
    return server.tmux("display-message", "-p", INCARNATION, check=False).strip() or None


def start_command(
    profile: str, env: dict[str, str], *args: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [COMMAND, "--profile", profile, *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env,
        timeout=60,
    )


async def capabilities(env: dict[str, str], profile: str) -> tuple[dict[str, Any], str]:
    """The capabilities document and the instructions, from a process started with ``env``."""
    async with open_client(env, profile) as client:
        found = await client.read("tmux://capabilities", "capabilities")
        assert client.initialized is not None
        return found, client.initialized.instructions or ""


# --- the teardown default -----------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("profile", FAMILIES)
async def test_a_server_started_at_startup_turns_teardown_on_and_is_killed_at_exit(
    tmux: TmuxServer, dedicated: TmuxServer, profile: str
) -> None:
    assert running(dedicated) is None
    async with open_client(without_socket(tmux), profile) as client:
        # Started before any call: the process's start did it.
        incarnation = running(dedicated)
        assert incarnation is not None
        assert dedicated.tmux("show-options", "-gv", "exit-empty").strip() == "off"
        found = await client.read("tmux://capabilities", "capabilities")
        assert found["selection"]["toolsets"] == ["execute", "inspect", "manage", "teardown"]
        assert found["selection"]["toolsetsOff"] == []
        assert found["connection"]["serverState"] == "created"
        assert found["connection"]["socketProvenance"] == "default-dedicated"
        assert found["connection"]["resolvedSocketPath"] == dedicated.socket_path
        assert running(dedicated) == incarnation
    assert running(dedicated) is None, "the server this process started outlived it"


@pytest.mark.anyio
@pytest.mark.parametrize("profile", FAMILIES)
async def test_a_server_already_running_leaves_teardown_off_and_keeps_running(
    tmux: TmuxServer, dedicated: TmuxServer, profile: str
) -> None:
    dedicated.tmux("-f", "/dev/null", "new-session", "-d", "-s", "theirs")
    incarnation = running(dedicated)
    found, _ = await capabilities(without_socket(tmux), profile)
    assert found["selection"]["toolsets"] == ["execute", "inspect", "manage"]
    assert found["selection"]["toolsetsOff"] == ["teardown"]
    assert found["connection"]["serverState"] == "existing"
    assert running(dedicated) == incarnation


@pytest.mark.anyio
async def test_libtmux_toolsets_still_decides_when_this_process_started_the_server(
    tmux: TmuxServer, dedicated: TmuxServer
) -> None:
    found, instructions = await capabilities(
        without_socket(tmux, LIBTMUX_TOOLSETS="inspect"), "rust"
    )
    assert found["connection"]["serverState"] == "created"
    assert found["selection"]["toolsets"] == ["inspect"]
    assert "Toolsets on: inspect." in instructions.splitlines()
    assert running(dedicated) is None


@pytest.mark.anyio
async def test_a_chosen_socket_is_only_looked_at(tmux: TmuxServer) -> None:
    absent = TmuxServer(tmux.tmpdir, "nobody-here", env=dict(tmux.env), owns_tmpdir=False)
    found, _ = await capabilities(tmux.server_env(LIBTMUX_SOCKET=absent.name), "rust")
    assert found["connection"]["serverState"] == "absent"
    assert found["selection"]["toolsets"] == ["execute", "inspect", "manage"]
    assert running(absent) is None


def test_the_runtime_adds_the_handlers_startup_toolsets_to_the_default_only() -> None:
    """The hook, on a profile that has teardown tools: added to the default, and ignored
    when LIBTMUX_TOOLSETS chose."""

    class Started(HandlerSet):
        def startup_toolsets(self) -> tuple[str, ...]:
            return ("teardown",)

    profile = load_profile("python")
    for environ, shown in (({}, True), ({"LIBTMUX_TOOLSETS": "inspect"}, False)):
        runtime = ServedRuntime(profile.shown(environ))
        assert runtime.tool("kill_pane") is None
        served = served_after_startup(profile, environ, Started(), runtime)
        assert (served.tool("kill_pane") is not None) is shown
        assert (runtime.tool("kill_pane") is not None) is shown


# --- the toolset variables --------------------------------------------------------------


@pytest.mark.anyio
async def test_an_empty_toolsets_value_serves_no_tool_and_exact_names_add_and_exclude(
    tmux: TmuxServer,
) -> None:
    async with open_client(tmux.server_env(LIBTMUX_TOOLSETS=""), "rust") as client:
        assert (await client.session.list_tools()).tools == []
    env = tmux.server_env(
        LIBTMUX_TOOLSETS="manage",
        LIBTMUX_TOOLS="list_panes,get_pane_info",
        LIBTMUX_EXCLUDE_TOOLS="get_pane_info,select_pane",
    )
    async with open_client(env, "rust") as client:
        names = {tool.name for tool in (await client.session.list_tools()).tools}
        assert "list_panes" in names
        assert not {"get_pane_info", "select_pane"} & names
        assert "list_sessions" not in names


@pytest.mark.parametrize(
    ("setting", "said"),
    [
        ({"LIBTMUX_TOOLSETS": "inspect,"}, "LIBTMUX_TOOLSETS contains an empty token"),
        ({"LIBTMUX_TOOLSETS": "read-only"}, "LIBTMUX_TOOLSETS names unknown toolsets 'read-only'"),
        ({"LIBTMUX_TOOLS": "kill_everything"}, "LIBTMUX_TOOLS names unknown tools"),
        ({"LIBTMUX_SAFETY": "readonly"}, "LIBTMUX_SAFETY is retired"),
        ({"TMUX_MCP_SAFETY": "mutating"}, "TMUX_MCP_SAFETY is retired"),
        ({"TMUX_MCP_CONFIRM": "1"}, "TMUX_MCP_CONFIRM is retired"),
        ({"LIBTMUX_SOCKET_PATH": "relative"}, "LIBTMUX_SOCKET_PATH must be an absolute path"),
        ({"LIBTMUX_TMUX_CONFIG": "/no/such.conf"}, "LIBTMUX_TMUX_CONFIG names no file"),
    ],
    ids=[
        "empty-token",
        "unknown-toolset",
        "unknown-tool",
        "safety",
        "mcp-safety",
        "confirm",
        "relative-path",
        "missing-config",
    ],
)
def test_a_bad_setting_stops_startup_with_one_line_naming_the_variable(
    tmux: TmuxServer, setting: dict[str, str], said: str
) -> None:
    mark = tmux.mark()
    done = start_command("rust", tmux.server_env(**setting))
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith("tmux-contract-mcp: ") and said in line, line
    tmux.assert_nothing_sent_since(mark)


def test_help_lists_the_rust_variables() -> None:
    done = start_command("rust", {"PATH": "/usr/bin:/bin"}, "--help-all")
    words = done.stdout
    for variable in ("LIBTMUX_TMUX_CONFIG", "TMUX_MCP_SAFETY", "TMUX_MCP_CONFIRM"):
        assert variable in words
    line = next(line for line in words.splitlines() if "TMUX_MCP_CONFIRM" in line)
    assert "[rust profile]" in line
