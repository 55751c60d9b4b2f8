"""Every profile over ssh behaves as it does here: waits on events, run commands, the
batch's line cap, searching panes, our own clients left out of attached counts, and a
remote pane never taken for the caller's.

One tmux server (the remote's: reached through the lab sshd by socket path) and one
server per profile for the module, each started as if from pane %0 of a second, local
tmux server: the remote has a pane %0 too, and a server that took it for its own would
say so. Each test works in a session or window of its own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import pytest

from scripts.lab import processes
from scripts.lab.client import Client, error_text, open_client
from scripts.lab.overssh import remote_env
from scripts.lab.sshd import SshServer
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.batch import LONG_VALUE as LONG
from tests.helpers.batch import check_swift_answer as check_answer
from tests.helpers.batch import long_histories
from tests.helpers.tmux import echoing, printed, type_line
from tests.helpers.tmux import tmux_clients as clients
from tests.helpers.waiting import showing, waiting_on
from tests.helpers.wire import compact
from tests.plugin import ALL_TOOLSETS

pytestmark = pytest.mark.anyio

DEADLINE = 20.0  # only there to turn a hang into a failure
LINE_CAP = 1_000_000  # bytes of one response line of a batch, in the rust and swift families
PROFILES = ("python", "rust", "swift")


@pytest.fixture(scope="module")
def home() -> Iterator[TmuxServer]:
    """The local tmux server the MCP servers are started from (its pane %0)."""
    server = TmuxServer.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture(scope="module")
async def remote(
    shared: TmuxServer, sshd: SshServer, home: TmuxServer
) -> AsyncIterator[dict[str, Client]]:
    """One server per profile, every toolset, reaching ``shared`` through ``sshd``."""
    server_pid = home.tmux("display-message", "-p", "#{pid}").strip()
    inside = {"TMUX": f"{home.socket_path},{server_pid},0", "TMUX_PANE": home.active_pane()}
    assert inside["TMUX_PANE"] == shared.active_pane() == "%0"
    env = remote_env(shared, sshd, LIBTMUX_TOOLSETS=ALL_TOOLSETS, **inside)
    async with (
        open_client(env, "python") as python,
        open_client(env, "rust") as rust,
        open_client(env, "swift") as swift,
    ):
        yield {"python": python, "rust": rust, "swift": swift}


async def test_a_remote_pane_is_never_the_callers_in_any_profile(
    shared: TmuxServer, home: TmuxServer, remote: dict[str, Client]
) -> None:
    panes = await remote["python"].ok("list_panes", {"session_name": "main"})
    assert [row["is_caller"] for row in panes["result"]] == [None]
    info = await remote["python"].ok("get_pane_info", {"pane_id": "%0"})
    assert info["is_caller"] is None
    rows = (await remote["rust"].ok("list_panes", {}))["panes"]
    assert "%0" in {row["id"] for row in rows}
    assert "self" not in {row["caller"] for row in rows}, rows
    # The swift family lists no caller; it refuses to run in its own pane without `force`.
    # The remote %0 is not its own, though the local one is.
    ran = await remote["swift"].ok("run_shell_command", {"paneId": "%0", "command": "echo ok"})
    assert ran["exitStatus"] == 0 and ran["output"] == ["ok"], ran
    # What the servers were started from is a real pane, untouched by all this.
    assert home.lines("list-panes", "-a", "-F", "#{pane_id}") == ["%0"]


async def test_the_servers_own_remote_tmux_client_is_not_counted_as_attached(
    tmux: TmuxServer, sshd: SshServer
) -> None:
    # A tmux server of its own: the module's has the other profiles' clients attached.
    async with open_client(remote_env(tmux, sshd), "python") as alone:
        await alone.ok("list_sessions")  # its control client is up now
        ours = [pid for pid, name in clients(tmux) if name == "main"]
        assert len(ours) == 1, ours  # attached to main, where nothing else is
        listed = (await alone.ok("list_sessions"))["result"]
    assert [(row["session_name"], row["session_attached"]) for row in listed] == [("main", "0")]


async def wait_on_event(
    client: Client, shared: TmuxServer, arguments: dict[str, Any], line: str
) -> tuple[dict[str, Any], list[str]]:
    """wait_for_text on a session of its own; once its output client is attached there,
    hold a moment (a poller would capture the pane again meanwhile) and type ``line``.
    Returns the answer and the tmux commands that captured a pane meanwhile."""
    made = shared.new_session(None, *echoing("before"))
    session, pane = made.name, made.pane
    await showing(shared, pane, "before")
    key = {"python": "pane_id", "rust": "pane", "swift": "paneId"}[client.profile]
    result: dict[str, Any] = {}

    async def wait() -> None:
        result.update(await client.ok("wait_for_text", {key: pane, **arguments}))

    mark = shared.mark()
    with anyio.fail_after(DEADLINE):
        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await waiting_on(shared, session)
            await anyio.sleep(0.5)
            await anyio.to_thread.run_sync(type_line, shared, pane, line)
    # The output client that heard it is a remote one: started by the remote shell sshd
    # ran, not by this machine's MCP server (its parent would be that server).
    attached = [pid for pid, name in clients(shared) if name == session]
    assert all(processes.parent_of(pid) not in (None, 1) for pid in attached)
    captures = [str(s) for s in shared.sent_since(mark) if s.command == "capture-pane"]
    return result, captures


@pytest.mark.parametrize("profile", ["rust", "swift"])
async def test_wait_for_text_ends_on_output_heard_through_ssh_without_polling(
    shared: TmuxServer, remote: dict[str, Client], profile: str
) -> None:
    if profile == "rust":
        arguments: dict[str, Any] = {"patterns": ["SSH-EVENT"], "seconds": DEADLINE}
    else:
        arguments = {"patterns": ["SSH-EVENT"], "timeoutMs": int(DEADLINE * 1000)}
    found, captures = await wait_on_event(remote[profile], shared, arguments, "the SSH-EVENT")
    assert found["outcome"] == "matched", found
    assert (
        found["matched_pattern"] == "SSH-EVENT"
        if profile == "rust"
        else found["matched"] == "the SSH-EVENT"
    )
    # What it reads here too (rust: the look at entry; swift: two at entry, then the rows
    # that matched): between those, only %output events, however long the wait holds.
    assert len(captures) <= {"rust": 1, "swift": 3}[profile], captures


@pytest.mark.parametrize("profile", ["rust", "swift"])
async def test_run_shell_command_runs_in_a_remote_pane(
    shared: TmuxServer, remote: dict[str, Client], profile: str
) -> None:
    window = shared.new_window()
    pane = shared.tmux("display-message", "-p", "-t", window, "#{pane_id}").strip()
    shared.wait_for_prompt(pane)
    command = "cd /; printf '%s\\n' one two; (exit 5)"
    key = "pane" if profile == "rust" else "paneId"
    ran = await remote[profile].ok("run_shell_command", {key: pane, "command": command})
    after = await remote[profile].ok("run_shell_command", {key: pane, "command": "pwd"})
    if profile == "rust":
        assert (ran["outcome"], ran["exit_status"], ran["output"]) == ("completed", 5, "one\ntwo\n")
        assert after["exit_status"] == 0 and after["output"] not in ("", "/\n"), after
    else:
        assert (ran["exitStatus"], ran["output"], ran["timedOut"]) == (5, ["one", "two"], False)
        assert after["exitStatus"] == 0 and after["output"] not in ([], ["/"]), after
    # The commands ran in the remote server's pane, in a subshell: its shell is still there.
    assert (
        shared.tmux("display-message", "-p", "-t", pane, "#{pane_current_command}").strip() == "sh"
    )


async def test_python_run_command_ends_on_its_wait_for_channel_through_ssh(
    shared: TmuxServer, remote: dict[str, Client]
) -> None:
    window = shared.new_window()
    pane = shared.tmux("display-message", "-p", "-t", window, "#{pane_id}").strip()
    shared.wait_for_prompt(pane)
    mark = shared.mark()
    ran = await remote["python"].ok(
        "run_command", {"pane_id": pane, "command": "sleep 0.2; echo done", "timeout": DEADLINE}
    )
    assert (ran["exit_status"], ran["output"], ran["timed_out"]) == (0, ["done"], False)
    assert ran["elapsed_seconds"] < DEADLINE / 2  # the channel woke it, not the timeout
    # It slept on a `tmux wait-for` run through ssh (its command read from stdin by
    # `source-file -`, the remote argv holding -u), woken by the pane's signal on the
    # same channel, the run's own.
    sent = shared.sent_since(mark)
    waits = [s for s in sent if s.command == "wait-for"]
    (channel,) = {s.words[-1] for s in waits}
    assert channel.startswith("tcm-"), waits
    waiting, signalled = sorted(waits, key=lambda s: "-S" in s.words[-2:])
    assert waiting.kind == "control" and waiting.words == ("wait-for", "--", channel), waits
    reader = [s.words for s in sent if s.kind == "argv" and s.pid == waiting.pid]
    assert reader and reader[0][0] == "-u" and reader[0][-2:] == ("source-file", "-"), reader
    assert signalled.words[-2:] == ("-S", channel), waits


def response_line(result: Any) -> int:
    """Bytes of the JSON-RPC line that carried ``result`` (the id as the SDK numbers it)."""
    body = result.model_dump(by_alias=True, exclude_none=True)
    return len((compact({"jsonrpc": "2.0", "id": 99, "result": body}) + "\n").encode())


async def test_the_rust_batch_keeps_its_line_cap_over_ssh(
    shared: TmuxServer, remote: dict[str, Client]
) -> None:
    pane = printed(shared, f"yes {LONG} | head -n 2500")
    capture = {"tool": "capture_pane", "arguments": {"pane": pane, "start": -600, "end": -1}}
    result = await remote["rust"].call("call_read_tools_batch", {"operations": [capture] * 5})
    assert not result.is_error
    got = result.structured_content
    assert got is not None
    assert got["truncated"] is True and got["succeeded"] == 5
    assert [row["resultTruncated"] for row in got["results"]].count(False) >= 1
    assert response_line(result) <= LINE_CAP


async def test_the_swift_batch_keeps_its_line_cap_over_ssh(
    shared: TmuxServer, remote: dict[str, Client]
) -> None:
    (pane,) = long_histories(shared, count=1)
    capture = {
        "tool": "capture_pane",
        "arguments": {"paneId": pane, "start": -5000, "maxLines": 2000, "joinWrapped": True},
    }
    operations = [{"tool": "get_pane_info", "arguments": {"paneId": pane}}, *[capture] * 3]
    # Its text is a summary, not the result as JSON: the session's own call, checked here.
    arguments = {"operations": operations}
    result = await remote["swift"].session.call_tool("call_read_tools_batch", arguments)
    assert not result.is_error, error_text(result)
    got = result.structured_content
    assert got is not None
    check_answer(got, operations, error_text(result))
    assert got["truncated"] is True and got["succeeded"] == 4
    assert got["results"][0]["result"] is not None  # newest first: the small one stays
    assert response_line(result) <= LINE_CAP


async def test_search_panes_finds_a_remote_panes_line_in_every_profile(
    shared: TmuxServer, remote: dict[str, Client]
) -> None:
    made = shared.new_session(None, *echoing("found-over-ssh 7"))
    session, pane = made.name, made.pane
    await showing(shared, pane, "found-over-ssh 7")
    python = await remote["python"].ok(
        "search_panes", {"pattern": "found-over-ssh", "session_name": session}
    )
    assert [(m["pane_id"], m["matched_lines"]) for m in python["matches"]] == [
        (pane, ["found-over-ssh 7"])
    ]
    rust = await remote["rust"].ok(
        "search_panes", {"pattern": "found-over-ssh", "session": session}
    )
    assert [(m["pane"], m["text"]) for m in rust["matches"]] == [(pane, "found-over-ssh 7")]
    swift = await remote["swift"].ok(
        "search_panes", {"pattern": "found-over-ssh", "session": session}
    )
    assert [(m["pane"], m["text"]) for m in swift["matches"]] == [(pane, "found-over-ssh 7")]
