"""A configuration file's scope and audit log, enforced where every call passes
(runtime/guard.py, runtime/scope.py, runtime/audit.py), on a real private tmux server:
each rule refuses before anything changes in tmux (the sent-log shows at most the one
read-only listing that finds which session an id belongs to), and the audit log holds
one JSON line per call that changes tmux."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from scripts.lab.client import Client, open_in_process
from scripts.lab.sentlog import Mark
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.contracts import every_toolset

pytestmark = pytest.mark.anyio

READ_ONLY_LISTING = {"list-panes"}


def config_file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "reach.toml"
    path.write_text(text)
    return str(path)


def every_tool(tmux: TmuxServer, profile: str = "python") -> dict[str, str]:
    return tmux.server_env(LIBTMUX_TOOLSETS=every_toolset(profile))


def only_listed(tmux: TmuxServer, mark: Mark) -> None:
    """Since ``mark``, tmux was sent nothing but the read-only listing of the scope."""
    sent = [item for item in tmux.sent_since(mark) if item.reaches_a_server]
    assert {item.command for item in sent} <= READ_ONLY_LISTING, [str(s) for s in sent]


@asynccontextmanager
async def scoped(tmux: TmuxServer, tmp_path: Path, text: str) -> AsyncIterator[tuple[Client, Mark]]:
    """A python server with every toolset under the configuration ``text``, its control
    client attached (so only calls follow), and the sent-log's mark taken then."""
    config = config_file(tmp_path, text)
    async with open_in_process(every_tool(tmux), "python", "--config", config) as client:
        await client.ok("list_sessions")
        yield client, tmux.mark()


@pytest.fixture
def sessions(tmux: TmuxServer) -> Iterator[dict[str, str]]:
    """Three sessions: one the scope allows, one it protects, one outside it; name -> pane."""
    made = {name: tmux.new_session(name).pane for name in ("agent-1", "prod", "home")}
    yield made


SCOPE = """
[scope]
allow = ["agent-*", "prod"]
protect = ["prod"]
"""


async def test_a_call_outside_allow_is_refused_naming_the_rule_and_tmux_is_untouched(
    tmux: TmuxServer, sessions: dict[str, str], tmp_path: Path
) -> None:
    async with scoped(tmux, tmp_path, SCOPE) as (client, mark):
        by_id = await client.error("send_keys", {"pane_id": sessions["home"], "keys": "echo x"})
        by_name = await client.error("kill_session", {"session_name": "home"})
        only_listed(tmux, mark)
    assert "session 'home', outside this server's scope (allow: agent-*, prod)" in by_id
    assert "session_name reaches session 'home'" in by_name
    assert tmux.lines("list-sessions", "-F", "#{session_name}") == [
        "agent-1",
        "home",
        "main",
        "prod",
    ]


async def test_a_protected_session_takes_no_keys_and_is_not_killed_but_is_read(
    tmux: TmuxServer, sessions: dict[str, str], tmp_path: Path
) -> None:
    async with scoped(tmux, tmp_path, SCOPE) as (client, mark):
        typed = await client.error("send_keys", {"pane_id": sessions["prod"], "keys": "x"})
        killed = await client.error("kill_session", {"session_name": "prod"})
        resized = await client.error("resize_pane", {"pane_id": sessions["prod"], "width": 20})
        renamed = await client.error(
            "rename_session", {"session_name": "prod", "new_name": "unprotected"}
        )
        only_listed(tmux, mark)
        read = await client.ok("capture_pane", {"pane_id": sessions["prod"]})
    for refusal in (typed, killed, resized, renamed):
        assert "session 'prod', which is protected (protect: 'prod')" in refusal
    assert "result" in read


async def test_a_call_inside_the_scope_runs(
    tmux: TmuxServer, sessions: dict[str, str], tmp_path: Path
) -> None:
    config = config_file(tmp_path, SCOPE)
    async with open_in_process(every_tool(tmux), "python", "--config", config) as client:
        await client.ok("set_pane_title", {"pane_id": sessions["agent-1"], "title": "scoped"})
    assert tmux.lines("display-message", "-p", "-t", sessions["agent-1"], "#{pane_title}") == [
        "scoped"
    ]


async def test_a_call_naming_no_target_is_refused_under_allow(
    tmux: TmuxServer, sessions: dict[str, str], tmp_path: Path
) -> None:
    async with scoped(tmux, tmp_path, SCOPE) as (client, mark):
        refusal = await client.error("send_keys", {"keys": "echo x"})
        only_listed(tmux, mark)
    assert "send_keys names no target" in refusal
    assert "pane_id" in refusal


async def test_list_tools_show_only_the_sessions_in_scope(
    tmux: TmuxServer, sessions: dict[str, str], tmp_path: Path
) -> None:
    config = config_file(tmp_path, SCOPE)
    async with open_in_process(every_tool(tmux), "python", "--config", config) as client:
        listed = await client.ok("list_sessions")
        panes = await client.ok("list_panes")
    assert sorted(row["session_name"] for row in listed["result"]) == ["agent-1", "prod"]
    assert sorted(row["pane_id"] for row in panes["result"]) == sorted(
        [sessions["agent-1"], sessions["prod"]]
    )


async def test_the_sockets_rule_refuses_another_socket_before_tmux(
    tmux: TmuxServer, sessions: dict[str, str], tmp_path: Path
) -> None:
    async with scoped(tmux, tmp_path, '[scope]\nsockets = ["default"]\n') as (client, mark):
        refusal = await client.error("list_sessions", {"socket_name": tmux.name})
        tmux.assert_nothing_sent_since(mark, "a socket outside the scope")
    assert f"socket_name {tmux.name!r} is outside this server's scope (sockets: default)" in (
        refusal
    )


async def test_unscopable_tools_are_off_under_a_scope_unless_the_file_turns_them_on(
    tmux: TmuxServer, sessions: dict[str, str], tmp_path: Path
) -> None:
    env = every_tool(tmux)
    off = config_file(tmp_path, '[scope]\nallow = ["*"]\n')
    async with open_in_process(env, "python", "--config", off) as client:
        names = {tool.name for tool in (await client.session.list_tools()).tools}
        await client.ok("list_sessions")  # its control client attached: only calls follow
        mark = tmux.mark()
        option = await client.error("set_option", {"option": "@x", "value": "1", "global_": True})
        environment = await client.error("set_environment", {"name": "X", "value": "1"})
        tmux.assert_nothing_sent_since(mark, "an unscopable call")
    assert "kill_server" not in names and "pipe_pane" not in names
    assert "set_option" in names and "set_environment" in names
    assert "set_option with global_=True acts beyond any session" in option
    assert "(unscopable)" in environment
    on = config_file(tmp_path, '[scope]\nallow = ["*"]\nunscopable = ["kill_server"]\n')
    async with open_in_process(env, "python", "--config", on) as client:
        names = {tool.name for tool in (await client.session.list_tools()).tools}
    assert "kill_server" in names and "pipe_pane" not in names


@pytest.mark.parametrize("profile", ["python", "rust", "swift"])
async def test_read_only_lists_and_serves_only_the_tools_that_read(
    tmux: TmuxServer, tmp_path: Path, profile: str
) -> None:
    from tmux_contract_mcp.profiles import load_profile

    effects = load_profile(profile).effects
    assert effects is not None
    config = config_file(tmp_path, "[scope]\nread_only = true\n")
    env = every_tool(tmux, profile)
    async with open_in_process(env, profile, "--config", config) as client:
        names = {tool.name for tool in (await client.session.list_tools()).tools}
    assert names and names <= set(effects["read_only"])
    assert not names & set(effects["forceful"])


async def test_the_audit_log_has_one_line_per_call_that_changes_tmux(
    tmux: TmuxServer, sessions: dict[str, str], tmp_path: Path
) -> None:
    log = tmp_path / "audit.jsonl"
    config = config_file(tmp_path, f'{SCOPE}\n[audit]\npath = "{log}"\ntext_bytes = 8\n')
    pane = sessions["agent-1"]
    async with open_in_process(every_tool(tmux), "python", "--config", config) as client:
        await client.ok("list_sessions")  # reads: not logged
        await client.ok("send_keys", {"pane_id": pane, "keys": "echo 0123456789abcdef"})
        await client.error("kill_session", {"session_name": "home"})
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(line["tool"], line["outcome"]) for line in lines] == [
        ("send_keys", "ok"),
        ("kill_session", "refused"),
    ]
    typed = lines[0]
    assert typed["arguments"]["keys"].startswith("echo 012…[")
    assert typed["targets"] == [f"pane_id={pane}"]
    assert typed["host"] == "local" and typed["client"] == "stdio"
    assert typed["ms"] >= 0
    assert "outside this server's scope" in lines[1]["error"]


async def test_with_no_scope_every_tool_is_served_as_before(
    tmux: TmuxServer, tmp_path: Path
) -> None:
    from tmux_contract_mcp.profiles import load_profile

    config = config_file(tmp_path, f'[audit]\npath = "{tmp_path / "a.jsonl"}"\n')
    env = every_tool(tmux)
    async with open_in_process(env, "python", "--config", config) as client:
        names = {tool.name for tool in (await client.session.list_tools()).tools}
    assert names == set(load_profile("python").tools)


async def test_resources_follow_the_scope(
    tmux: TmuxServer, sessions: dict[str, str], tmp_path: Path
) -> None:
    from mcp.shared.exceptions import MCPError

    config = config_file(tmp_path, SCOPE)
    async with open_in_process(every_tool(tmux), "python", "--config", config) as client:
        await client.ok("list_sessions")
        mark = tmux.mark()
        with pytest.raises(MCPError) as outside:
            await client.session.read_resource(f"tmux://panes/{sessions['home']}/content")
        with pytest.raises(MCPError) as everything:
            await client.session.read_resource("tmux://sessions")
        only_listed(tmux, mark)
        inside = await client.session.read_resource(f"tmux://panes/{sessions['agent-1']}")
    assert "session 'home', outside this server's scope" in outside.value.error.message
    assert "names no target" in everything.value.error.message
    assert inside.contents


async def test_the_audit_log_is_rotated_by_size_keeping_the_files_it_is_told(
    tmux: TmuxServer, sessions: dict[str, str], tmp_path: Path
) -> None:
    log = tmp_path / "audit.jsonl"
    config = config_file(tmp_path, f'[audit]\npath = "{log}"\nmax_bytes = 400\nkeep = 2\n')
    pane = sessions["agent-1"]
    async with open_in_process(every_tool(tmux), "python", "--config", config) as client:
        for n in range(8):
            await client.ok("set_pane_title", {"pane_id": pane, "title": f"t{n}"})
    files = sorted(path.name for path in tmp_path.glob("audit.jsonl*"))
    assert files == ["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2"]
    for path in tmp_path.glob("audit.jsonl*"):
        assert path.stat().st_size <= 400
        assert all(
            json.loads(line)["tool"] == "set_pane_title" for line in path.read_text().splitlines()
        )


async def test_the_agents_tools_follow_the_scope_every_pane_of_a_list_counting(
    tmux: TmuxServer, sessions: dict[str, str], tmp_path: Path
) -> None:
    async with scoped(tmux, tmp_path, SCOPE) as (client, mark):
        waited = await client.error(
            "wait_for_quiet", {"pane_ids": [sessions["agent-1"], sessions["home"]]}
        )
        typed = await client.error("submit_text", {"pane_id": sessions["prod"], "text": "y"})
        launched = await client.error(
            "launch_panes",
            {"session_name": "home", "commands": [{"command": "true", "title": "t"}]},
        )
        only_listed(tmux, mark)
        state = await client.ok("pane_state", {"pane_id": sessions["prod"]})
    assert "session 'home', outside this server's scope" in waited
    assert "session 'prod', which is protected" in typed
    assert "session_name reaches session 'home'" in launched
    assert state


async def test_read_only_serves_the_agents_tools_that_read_and_not_those_that_type(
    tmux: TmuxServer, tmp_path: Path
) -> None:
    config = config_file(tmp_path, "[scope]\nread_only = true\n")
    env = every_tool(tmux)
    async with open_in_process(env, "python", "--config", config) as client:
        names = {tool.name for tool in (await client.session.list_tools()).tools}
    assert {"pane_state", "wait_for_quiet"} <= names
    assert not {"submit_text", "launch_panes"} & names
