"""The agents tool set of the python profile, through the MCP client against real tmux.

Fake agents (tests/helpers/agents.py) run in the panes: a program that prints in
bursts and goes quiet, a raw-mode reader recording every byte it gets, a REPL that
answers after a while, a chatty loop. Nothing here asserts a duration: the waits'
own measures (``silent_seconds``) are checked against what they promise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from scripts.lab.client import Client, open_in_process
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.agents import (
    BURSTS,
    CHATTY,
    RECORDER,
    REPL,
    SAYS,
    agent_command,
    agent_pane,
    commands_sent,
    dead_agent_pane,
    recorded,
)
from tests.helpers.tmux import screen_lines, type_line
from tests.helpers.waiting import eventually, showing

pytestmark = [pytest.mark.anyio, pytest.mark.transports("control", "subprocess")]

DEADLINE = 60.0  # only there to turn a hang into a failure


@pytest.fixture(scope="module")
def python_env() -> dict[str, str]:
    """The default toolsets and agents, which is off by default."""
    return {"LIBTMUX_TOOLSETS": "inspect,manage,execute,agents"}


def only(result: dict[str, Any]) -> dict[str, Any]:
    (pane,) = result["panes"]
    assert isinstance(pane, dict)
    return pane


# --- wait_for_quiet -----------------------------------------------------------------------


async def test_quiet_comes_only_after_the_last_burst_never_inside_one(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = await agent_pane(shared, BURSTS, "3", "8", "0.3", shows="ready")
    with anyio.fail_after(DEADLINE):
        found = await python_client.ok(
            "wait_for_quiet", {"pane_ids": [pane], "quiet_seconds": 1.5, "timeout": 30}
        )
    result = only(found)
    assert found["done"] is True
    assert result["reason"] == "quiet"
    assert result["silent_seconds"] >= 1.5
    assert result["tail"][-1] == "bursts done"


async def test_a_pane_still_printing_at_the_timeout_ends_as_timeout(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = await agent_pane(shared, CHATTY, "0.1", shows="tick")
    found = await python_client.ok(
        "wait_for_quiet", {"pane_ids": [pane], "quiet_seconds": 1, "timeout": 2}
    )
    assert found["done"] is False
    assert only(found)["reason"] == "timeout"
    assert found["effective_timeout"] == 2


async def test_the_shell_back_in_front_ends_the_wait_as_matched(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(None)
    type_line(shared, made.pane, "sleep 2; echo slept")
    found = await python_client.ok(
        "wait_for_quiet",
        {"pane_ids": [made.pane], "quiet_seconds": 0.3, "shell_back": True, "timeout": 20},
    )
    assert only(found)["reason"] == "matched"
    assert "slept" in only(found)["tail"]


async def test_a_prompt_on_the_last_line_ends_the_wait_as_matched(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = await agent_pane(shared, SAYS, "thinking", "READY> ", shows="READY")
    found = await python_client.ok(
        "wait_for_quiet",
        {"pane_ids": [pane], "quiet_seconds": 0.3, "prompt": "^READY>", "timeout": 10},
    )
    assert only(found)["reason"] == "matched"


async def test_a_quiet_pane_whose_prompt_never_comes_is_read_once_not_polled(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = await agent_pane(shared, SAYS, "working on it", shows="working")
    mark = shared.mark()
    found = await python_client.ok(
        "wait_for_quiet",
        {"pane_ids": [pane], "quiet_seconds": 0.2, "prompt": "^READY>", "timeout": 3},
    )
    assert only(found)["reason"] == "timeout"
    # One read when the timer ran out (the prompt did not hold), one for the tail:
    # nothing re-read the pane while it printed nothing.
    assert commands_sent(shared, mark, "capture-pane") == 2


async def test_a_silent_pane_is_not_read_while_its_timer_runs(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = await agent_pane(shared, SAYS, "said once", shows="said once")
    mark = shared.mark()
    found = await python_client.ok(
        "wait_for_quiet", {"pane_ids": [pane], "quiet_seconds": 60, "timeout": 2.5}
    )
    assert only(found)["reason"] == "timeout"
    # The pane is read when the call starts and for the tail, never in between.
    assert commands_sent(shared, mark, "display-message") == 1
    assert commands_sent(shared, mark, "capture-pane") == 1


async def test_a_pane_whose_program_exits_ends_as_exited(
    shared: TmuxServer, python_client: Client
) -> None:
    session, pane = await agent_pane(shared, CHATTY, "0.1", shows="tick")
    shared.tmux("set-option", "-w", "-t", pane, "remain-on-exit", "on")
    found = await _waiting_while(
        shared, python_client, session, pane, "respawn-pane", "-k", "-t", pane, "exit 3"
    )
    assert only(found)["reason"] == "exited"


async def test_a_killed_pane_ends_the_wait_as_exited(
    shared: TmuxServer, python_client: Client
) -> None:
    session, pane = await agent_pane(shared, CHATTY, "0.1", shows="tick")
    shared.tmux("split-window", "-d", "-t", pane)  # the session outlives the pane
    found = await _waiting_while(shared, python_client, session, pane, "kill-pane", "-t", pane)
    assert only(found)["reason"] == "exited"
    assert only(found)["tail"] == []


async def _waiting_while(
    shared: TmuxServer, python_client: Client, session: str, pane: str, *command: str
) -> dict[str, Any]:
    """What a ``wait_for_quiet`` on ``pane`` answers when tmux runs ``command`` once the
    wait's output client has attached to ``session``."""
    found: dict[str, Any] = {}
    with anyio.fail_after(DEADLINE):
        async with anyio.create_task_group() as group:

            async def wait() -> None:
                found.update(
                    await python_client.ok(
                        "wait_for_quiet", {"pane_ids": [pane], "quiet_seconds": 5, "timeout": 30}
                    )
                )

            group.start_soon(wait)
            await eventually(
                lambda: any(session in row for row in _attached(shared)), "the wait's client"
            )
            shared.tmux(*command)
    return found


def _attached(server: TmuxServer) -> list[str]:
    return server.lines("list-clients", "-F", "#{session_name} #{client_flags}")


async def test_all_or_any_of_fifty_panes_in_one_session_are_heard_by_one_control_client(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(None, *agent_command(SAYS, "pane 0"), windows=1)
    panes = [made.pane]
    for n in range(1, 50):
        command = agent_command(SAYS, f"pane {n}")
        panes.append(
            shared.tmux(
                "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", f"{made.id}:", *command
            ).strip()
        )
    clients: list[int] = []
    found: dict[str, Any] = {}
    with anyio.fail_after(DEADLINE):
        async with anyio.create_task_group() as group:

            async def wait() -> None:
                found.update(
                    await python_client.ok(
                        "wait_for_quiet",
                        {"pane_ids": panes, "mode": "all", "quiet_seconds": 1, "timeout": 30},
                    )
                )
                group.cancel_scope.cancel()

            group.start_soon(wait)
            while not found:
                clients.append(sum(made.name in row for row in _attached(shared)))
                await anyio.sleep(0.1)
    assert found["done"] is True
    assert [p["reason"] for p in found["panes"]] == ["quiet"] * 50
    assert [p["pane_id"] for p in found["panes"]] == panes
    assert max(clients) == 1
    anyone = await python_client.ok(
        "wait_for_quiet", {"pane_ids": panes, "mode": "any", "quiet_seconds": 0.5}
    )
    reasons = sorted(p["reason"] for p in anyone["panes"])
    assert anyone["done"] is True
    assert reasons.count("quiet") >= 1
    assert set(reasons) <= {"quiet", "pending"}


async def test_any_of_several_panes_returns_the_first_quiet_one_and_the_rest_pending(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(None, *agent_command(CHATTY, "0.2"))
    chatty = [made.pane]
    for _ in range(3):
        command = agent_command(CHATTY, "0.2")
        chatty.append(
            shared.tmux(
                "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", made.pane, *command
            ).strip()
        )
        shared.tmux("select-layout", "-t", made.window, "tiled")
    quiet = shared.tmux(
        "split-window",
        "-d",
        "-P",
        "-F",
        "#{pane_id}",
        "-t",
        made.pane,
        *agent_command(SAYS, "done here"),
    ).strip()
    found = await python_client.ok(
        "wait_for_quiet",
        {"pane_ids": [*chatty, quiet], "mode": "any", "quiet_seconds": 1, "timeout": 20},
    )
    reasons = {p["pane_id"]: p["reason"] for p in found["panes"]}
    assert found["done"] is True
    assert reasons == {**{pane: "pending" for pane in chatty}, quiet: "quiet"}


async def test_a_missing_pane_is_refused_naming_the_field_before_any_wait(
    shared: TmuxServer, python_client: Client
) -> None:
    text = await python_client.error("wait_for_quiet", {"pane_ids": ["%9999"]})
    assert "pane_ids" in text and "%9999" in text
    text = await python_client.error("wait_for_quiet", {"pane_ids": ["pane-1"]})
    assert "pane_ids" in text


async def test_a_bad_regular_expression_is_refused_naming_its_field_before_tmux_runs(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = shared.new_session(None).pane
    mark = shared.mark()
    text = await python_client.error("wait_for_quiet", {"pane_ids": [pane], "prompt": "(open"})
    assert "`prompt`" in text and "regular expression" in text
    text = await python_client.error(
        "submit_text", {"pane_id": pane, "text": "hi", "wait_for": "[z-a]"}
    )
    assert "`wait_for`" in text and "regular expression" in text
    shared.assert_nothing_sent_since(mark, "bad regular expressions")


async def test_secrets_in_a_tail_are_redacted(shared: TmuxServer, python_client: Client) -> None:
    secret = "sk-" + "a1b2c3d4" * 4
    _, pane = await agent_pane(
        shared,
        SAYS,
        f"export OPENAI_API_KEY={secret}",
        "Authorization: Bearer abcdefgh12345678",
        shows="Bearer",
    )
    found = await python_client.ok(
        "wait_for_quiet", {"pane_ids": [pane], "quiet_seconds": 0.2, "timeout": 10}
    )
    tail = only(found)["tail"]
    assert "export OPENAI_API_KEY=[redacted]" in tail
    assert "Authorization: Bearer [redacted]" in tail
    assert not any(secret in line or "abcdefgh12345678" in line for line in tail)


async def test_wait_for_quiet_reports_progress_while_it_waits(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = await agent_pane(shared, CHATTY, "0.2", shows="tick")
    notes: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        notes.append((progress, total, message))

    with anyio.fail_after(DEADLINE):
        result = await python_client.session.call_tool(
            "wait_for_quiet",
            {"pane_ids": [pane], "quiet_seconds": 5, "timeout": 2.5},
            progress_callback=on_progress,
        )
    assert not result.is_error
    assert notes, "no progress notification during a 2.5 s wait"
    assert all(total == 2.5 for _, total, _ in notes)
    assert [progress for progress, _, _ in notes] == sorted(p for p, _, _ in notes)


async def test_a_timeout_above_the_ceiling_is_clamped_and_reported(shared: TmuxServer) -> None:
    _, pane = await agent_pane(shared, CHATTY, "0.1", shows="tick")
    env = shared.server_env(
        LIBTMUX_TOOLSETS="inspect,manage,execute,agents", LIBTMUX_MCP_WAIT_MAX_SECONDS="1"
    )
    with anyio.fail_after(DEADLINE):
        async with open_in_process(env, "python") as capped:
            found = await capped.ok(
                "wait_for_quiet", {"pane_ids": [pane], "quiet_seconds": 5, "timeout": 600}
            )
    assert found["effective_timeout"] == 1
    assert only(found)["reason"] == "timeout"


async def test_a_cancelled_wait_for_quiet_leaves_no_output_client_and_the_server_answers(
    shared: TmuxServer, python_client: Client
) -> None:
    session, pane = await agent_pane(shared, CHATTY, "0.2", shows="tick")
    answered: list[Any] = []
    scope = anyio.CancelScope()

    async def wait() -> None:
        with scope:
            arguments = {"pane_ids": [pane], "quiet_seconds": 5, "timeout": 30}
            answered.append(await python_client.session.call_tool("wait_for_quiet", arguments))

    with anyio.fail_after(DEADLINE):
        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await eventually(
                lambda: any(session in row for row in _attached(shared)), "the wait's client"
            )
            scope.cancel()  # the SDK sends notifications/cancelled
    assert answered == []
    await eventually(
        lambda: not any(session in row for row in _attached(shared)), "the client to go"
    )
    state = await python_client.ok("pane_state", {"pane_id": pane})
    assert state["pane_id"] == pane


# --- submit_text --------------------------------------------------------------------------


async def test_submitted_text_arrives_as_one_bracketed_paste_then_a_lone_enter(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    record = tmp_path / "record"
    _, pane = await agent_pane(shared, RECORDER, str(record), shows=">")
    found = await python_client.ok(
        "submit_text", {"pane_id": pane, "text": "fix the bug\nthen test"}
    )
    assert recorded(record) == b"\x1b[200~fix the bug\rthen test\x1b[201~\r"
    assert found["submitted"] is True
    assert found["enter_presses"] == 1
    assert found["evidence"] != []


async def test_an_enter_the_program_swallowed_is_pressed_once_more(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    record = tmp_path / "record"
    _, pane = await agent_pane(shared, RECORDER, str(record), "2", shows=">")
    found = await python_client.ok("submit_text", {"pane_id": pane, "text": "go"})
    assert recorded(record) == b"\x1b[200~go\x1b[201~\r\r"
    assert found["submitted"] is True
    assert found["enter_presses"] == 2


async def test_a_program_that_never_takes_the_enter_is_reported_not_submitted(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    record = tmp_path / "record"
    _, pane = await agent_pane(shared, RECORDER, str(record), "99", shows=">")
    found = await python_client.ok("submit_text", {"pane_id": pane, "text": "hello"})
    assert found["submitted"] is False
    assert found["enter_presses"] == 2
    assert recorded(record) == b"\x1b[200~hello\x1b[201~\r\r"
    assert "stayed" in found["evidence"][0]


async def test_plain_keys_reach_a_program_that_did_not_ask_for_bracketed_paste(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = await agent_pane(shared, REPL, "0", shows=">")
    found = await python_client.ok(
        "submit_text", {"pane_id": pane, "text": "ping 1", "wait_for": "pong 1", "timeout": 10}
    )
    assert found["submitted"] is True
    assert "> ping 1" in screen_lines(shared, pane)  # no paste markers typed as text


async def test_the_wait_after_a_submit_ignores_the_echo_of_the_text(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = await agent_pane(shared, REPL, "0.5", shows=">")
    found = await python_client.ok(
        "submit_text", {"pane_id": pane, "text": "ping 42", "wait_for": "42", "timeout": 15}
    )
    assert found["submitted"] is True
    assert found["matched"] is True
    assert found["matched_lines"] == ["pong 42"]


async def test_submit_refuses_a_pane_in_copy_mode_and_types_nothing(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    record = tmp_path / "record"
    _, pane = await agent_pane(shared, RECORDER, str(record), shows=">")
    shared.tmux("copy-mode", "-t", pane)
    text = await python_client.error("submit_text", {"pane_id": pane, "text": "hello"})
    assert "copy-mode" in text or "copy mode" in text
    shared.tmux("send-keys", "-X", "-t", pane, "cancel")
    assert recorded(record) == b""


async def test_submit_refuses_a_dead_pane(shared: TmuxServer, python_client: Client) -> None:
    pane = await dead_agent_pane(shared)
    mark = shared.mark()
    text = await python_client.error("submit_text", {"pane_id": pane, "text": "hello"})
    assert "dead" in text
    assert commands_sent(shared, mark, "Enter") == 0


# --- pane_state ---------------------------------------------------------------------------


async def test_a_shell_that_printed_an_approval_question_is_idle_and_no_key_is_pressed(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(None)
    type_line(shared, made.pane, "printf 'Do you want to proceed?\\n1. Yes\\n2. No\\n'")
    await eventually(lambda: "2. No" in screen_lines(shared, made.pane), "the question")
    mark = shared.mark()
    state = await python_client.ok("pane_state", {"pane_id": made.pane})
    assert state["state"] == "idle"
    assert state["program"] == "posix-shell"
    assert commands_sent(shared, mark, "send-keys") == 0
    assert commands_sent(shared, mark, "paste-buffer") == 0


async def test_the_python_repl_is_idle_at_its_prompt_busy_running_and_waiting_at_a_question(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(None, *agent_command("import code; code.interact(banner='')"))
    await eventually(lambda: ">>>" in "".join(screen_lines(shared, made.pane)), "the prompt")
    state = await python_client.ok("pane_state", {"pane_id": made.pane})
    assert (state["state"], state["program"], state["evidence"]) == ("idle", "python-repl", [">>>"])
    type_line(shared, made.pane, "import time; print('sleeping'); time.sleep(30)")
    await eventually(lambda: "sleeping" in screen_lines(shared, made.pane), "the sleep")
    state = await python_client.ok("pane_state", {"pane_id": made.pane})
    assert state["state"] == "busy"
    shared.tmux("send-keys", "-t", made.pane, "C-c")
    type_line(shared, made.pane, "input('Overwrite the file? [y/N]')")
    await eventually(
        lambda: any(row.endswith("[y/N]") for row in screen_lines(shared, made.pane)),
        "the question",
    )
    state = await python_client.ok("pane_state", {"pane_id": made.pane})
    assert (state["state"], state["reason"]) == ("waiting", "a question")


async def test_a_dead_pane_is_exited(shared: TmuxServer, python_client: Client) -> None:
    state = await python_client.ok("pane_state", {"pane_id": await dead_agent_pane(shared)})
    assert state["state"] == "exited"


# --- launch_panes -------------------------------------------------------------------------


async def test_launched_agents_get_titled_panes_and_the_humans_focus_stays(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(None, windows=2)
    focus = "#{session_id} #{window_id} #{pane_id}"
    before = shared.tmux("display-message", "-p", "-t", made.name, focus)
    launched = await python_client.ok(
        "launch_panes",
        {
            "session_name": made.name,
            "commands": [
                {"command": "echo agent one; sleep 60", "title": "claude #1"},
                {"command": "echo agent two; sleep 60", "title": "codex"},
            ],
        },
    )
    panes = launched["panes"]
    assert [p["title"] for p in panes] == ["claude #1", "codex"]
    assert shared.tmux("display-message", "-p", "-t", made.name, focus) == before
    for pane, said in zip(panes, ("agent one", "agent two"), strict=True):
        row = shared.tmux(
            "display-message",
            "-p",
            "-t",
            pane["pane_id"],
            "#{pane_title}|#{window_name}|#{window_id}",
        )
        assert row.strip() == f"{pane['title']}|{pane['title']}|{pane['window_id']}"
        await showing(shared, pane["pane_id"], said)


async def test_launched_panes_can_share_one_tiled_window(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(None)
    before = shared.tmux("display-message", "-p", "-t", made.name, "#{window_id} #{pane_id}")
    launched = await python_client.ok(
        "launch_panes",
        {
            "session_name": made.name,
            "layout": "panes",
            "commands": [{"command": "sleep 60", "title": f"job {n}"} for n in range(3)],
        },
    )
    windows = {p["window_id"] for p in launched["panes"]}
    assert len(windows) == 1
    (window,) = windows
    titles = shared.lines("list-panes", "-t", window, "-F", "#{pane_title}")
    assert sorted(titles) == ["job 0", "job 1", "job 2"]
    assert (
        shared.tmux("display-message", "-p", "-t", made.name, "#{window_id} #{pane_id}") == before
    )


async def test_launch_refuses_a_session_that_does_not_exist(
    shared: TmuxServer, python_client: Client
) -> None:
    mark = shared.mark()
    text = await python_client.error(
        "launch_panes", {"session_name": "no-such", "commands": [{"command": "true", "title": "x"}]}
    )
    assert "session_name" in text
    assert commands_sent(shared, mark, "new-window") == 0
