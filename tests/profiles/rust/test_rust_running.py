"""run_shell_command and wait_for_text of the rust profile, against real shells in real tmux.

One tmux server and one rust MCP server serve the module; every test works in a
window of its own. Outputs are checked against the output schema by the client,
and what a command did is checked in the pane's shell itself.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from scripts.lab.client import Client, error_text
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.family import ending_job, make_dead_pane, shell_window, until_running
from tests.helpers.family import family_envelope as envelope
from tests.helpers.family import typed_nothing as refused

pytestmark = pytest.mark.anyio


def command_of(shared: TmuxServer, pane: str) -> str:
    return shared.tmux("display-message", "-p", "-t", pane, "#{pane_current_command}").strip()


@pytest.mark.parametrize("shell", ["bash", "sh"])
async def test_run_shell_command_reports_exit_status_and_output_and_keeps_cd_inside(
    shared: TmuxServer, rust_client: Client, shell: str
) -> None:
    pane = shell_window(shared, shell)
    ok = await rust_client.ok(
        "run_shell_command", {"pane": pane, "command": "cd /; echo out; echo err >&2; pwd"}
    )
    assert ok["outcome"] == "completed" and ok["exit_status"] == 0, ok
    assert ok["output"] == "out\nerr\n/\n", ok
    assert ok["truncated"] is False and ok["bytes"] >= len(ok["output"])
    failed = await rust_client.ok("run_shell_command", {"pane": pane, "command": "exit 3"})
    assert failed["outcome"] == "completed" and failed["exit_status"] == 3, failed
    after = await rust_client.ok("run_shell_command", {"pane": pane, "command": "pwd"})
    assert after["output"] != "/\n" and after["exit_status"] == 0, after


async def test_run_shell_command_cuts_output_from_the_front_and_counts_every_byte(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane = shell_window(shared, "sh")
    # 300,000 digits and a last line: more than the 256 KiB kept.
    command = "head -c 300000 /dev/zero | tr '\\0' 7; echo; echo LAST"
    ran = await rust_client.ok("run_shell_command", {"pane": pane, "command": command})
    assert ran["outcome"] == "completed" and ran["exit_status"] == 0
    assert ran["truncated"] is True and ran["output"].endswith("\nLAST\n")
    assert len(ran["output"].encode()) <= 256 * 1024 < ran["bytes"]


async def test_deadline_ends_only_the_wait_and_the_reservation_lasts_until_the_command_ends(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane = shell_window(shared, "bash")
    early = await rust_client.ok(
        "run_shell_command", {"pane": pane, "command": "sleep 2; echo fin''ished", "seconds": 0}
    )
    assert early["outcome"] == "deadline" and early["exit_status"] is None, early
    refused = envelope(
        await rust_client.error("run_shell_command", {"pane": pane, "command": "true"})
    )
    assert refused["data"]["kind"] == "refused" and "run_shell_command" in refused["message"]
    seen = await rust_client.ok(
        "wait_for_text", {"pane": pane, "patterns": ["finished"], "seconds": 20}
    )
    assert seen["outcome"] == "matched" and seen["matched_pattern"] == "finished", seen
    # The end marker follows "finished" in the same stream, though tmux may read it from
    # the pane a moment later than the word itself: then the pane is free again.
    again = await rust_client.call("run_shell_command", {"pane": pane, "command": "echo again"})
    with anyio.fail_after(2):
        while again.is_error and "is using it" in envelope(error_text(again))["message"]:
            await anyio.sleep(0.05)
            again = await rust_client.call(
                "run_shell_command", {"pane": pane, "command": "echo again"}
            )
    assert not again.is_error, error_text(again)
    ran = again.structured_content
    assert ran is not None
    assert ran["outcome"] == "completed" and ran["output"] == "again\n", ran


async def test_a_pane_killed_mid_run_answers_pane_closed_at_once(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane = shell_window(shared, "sh")
    answer: dict[str, Any] = {}

    async def run() -> None:
        answer.update(
            await rust_client.ok(
                "run_shell_command",
                {"pane": pane, "command": "printf 'sta%s\\n' rted; sleep 60", "seconds": 60},
            )
        )

    started = anyio.current_time()
    async with anyio.create_task_group() as group:
        group.start_soon(run)
        with anyio.fail_after(20):
            while "started" not in shared.tmux("capture-pane", "-p", "-t", pane):
                await anyio.sleep(0.02)
        shared.tmux("kill-pane", "-t", pane)
    assert answer["outcome"] == "pane_closed" and answer["exit_status"] is None, answer
    assert anyio.current_time() - started < 30  # far below its 60 s: ended by the close


async def test_run_shell_command_passes_the_input_checks_and_refuses_a_synchronized_pane(
    shared: TmuxServer, rust_client: Client
) -> None:
    dead = make_dead_pane(shared)
    sent = await refused(shared, rust_client, "run_shell_command", {"pane": dead, "command": "x"})
    assert sent["data"]["kind"] == "refused" and "dead" in sent["message"], sent
    moded = shell_window(shared, "sh")
    shared.tmux("copy-mode", "-t", moded)
    sent = await refused(shared, rust_client, "run_shell_command", {"pane": moded, "command": "x"})
    assert "mode" in sent["message"] and moded in sent["message"], sent
    first = shell_window(shared, "sh")
    second = shared.tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", first)[:-1]
    shared.wait_for_prompt(second)
    window = shared.tmux("display-message", "-p", "-t", first, "#{window_id}").strip()
    await rust_client.ok("set_synchronize_panes", {"window": window, "enabled": True})
    sent = await refused(shared, rust_client, "run_shell_command", {"pane": first, "command": "x"})
    assert sent["data"]["kind"] == "refused", sent
    assert second in sent["message"] and "set_synchronize_panes" in sent["message"], sent
    await rust_client.ok("set_synchronize_panes", {"window": window, "enabled": False})
    ran = await rust_client.ok("run_shell_command", {"pane": first, "command": "echo alone"})
    assert ran["outcome"] == "completed" and ran["output"] == "alone\n", ran


async def test_a_pane_not_at_a_shell_answers_no_shell_and_nothing_is_typed(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane = shell_window(shared, "sh")
    shared.tmux("respawn-pane", "-k", "-t", pane, "exec cat")
    until_running(shared, pane, "cat")  # not the `sh -c` that execs it
    mark = shared.mark()
    ran = await rust_client.ok("run_shell_command", {"pane": pane, "command": "echo hi"})
    assert ran == {
        "pane": pane,
        "outcome": "no_shell",
        "output": "",
        "bytes": 0,
        "truncated": False,
        "exit_status": None,
    }
    assert not [s for s in shared.sent_since(mark) if "send-keys" in str(s)]


async def test_a_job_that_is_ending_is_waited_for_not_answered_no_shell(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane = shell_window(shared, "bash")
    ending_job(shared, pane)
    ran = await rust_client.ok("run_shell_command", {"pane": pane, "command": "echo next"})
    assert (ran["outcome"], ran["output"], ran["exit_status"]) == ("completed", "next\n", 0), ran


async def test_bad_input_is_refused_naming_the_field_and_nothing_runs(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane = shell_window(shared, "sh")
    mark = shared.mark()
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("run_shell_command", {"pane": pane, "command": "echo \0"}, "command"),
        ("run_shell_command", {"pane": pane, "command": "  "}, "command"),
        ("run_shell_command", {"pane": "3", "command": "true"}, "pane"),
        ("wait_for_text", {"pane": pane, "patterns": ["x" * 4097]}, "patterns[0]"),
        ("wait_for_text", {"pane": pane, "stop": ["ok", ""]}, "stop[1]"),
        ("wait_for_text", {"pane": pane, "patterns": ["("], "regex": True}, "patterns[0]"),
    ]
    for tool, arguments, field in cases:
        sent = envelope(await rust_client.error(tool, arguments))
        assert sent["data"]["kind"] == "invalid_input", (arguments, sent)
        assert f"`{field}`" in sent["message"], (arguments, sent)
    shared.assert_nothing_sent_since(mark, "bad input")


async def test_wait_for_text_sees_only_new_output_and_stop_wins(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane = shell_window(shared, "sh")
    shared.tmux("send-keys", "-t", pane, "echo OLD-LINE", "Enter")
    with anyio.fail_after(20):
        while "OLD-LINE" not in shared.tmux("capture-pane", "-p", "-t", pane).split("$ echo")[-1]:
            await anyio.sleep(0.02)
    present = await rust_client.ok("wait_for_text", {"pane": pane, "patterns": ["old-line"]})
    assert present["outcome"] == "present_at_entry" and present["matched_index"] == 0, present
    shared.tmux("send-keys", "-t", pane, "-l", "echo typed-not-sent")
    pending = await rust_client.ok("wait_for_text", {"pane": pane, "patterns": ["typed-not"]})
    assert pending["outcome"] == "pending", pending
    shared.tmux("send-keys", "-t", pane, "C-u")

    async def wait(arguments: dict[str, Any]) -> dict[str, Any]:
        return await rust_client.ok("wait_for_text", {"pane": pane, **arguments})

    results: list[dict[str, Any]] = []

    async def waiting(patterns: list[str]) -> None:
        results.append(await wait({"patterns": patterns, "stop": ["FAIL"], "seconds": 20}))

    mark = shared.mark()
    async with anyio.create_task_group() as group:
        group.start_soon(waiting, ["alpha", "beta"])
        await anyio.sleep(0.5)  # the wait is attached (nothing it could see is printed yet)
        shared.tmux("send-keys", "-t", pane, "printf 'x%s\\n' be''ta FA''IL", "Enter")
    matched = results[0]
    assert matched["outcome"] == "matched" and matched["matched_index"] == 1, matched
    assert matched["matched_pattern"] == "beta" and "xbeta" in matched["text"]
    assert matched["bytes"] >= len(matched["text"].encode())
    captures = [s for s in shared.sent_since(mark) if "capture-pane" in str(s)]
    assert len(captures) <= 1, captures  # the entry look; then only events, never polling

    results.clear()
    async with anyio.create_task_group() as group:
        group.start_soon(waiting, ["gamma"])
        await anyio.sleep(0.5)
        shared.tmux("send-keys", "-t", pane, "printf '%s\\n' FA''IL gam''ma", "Enter")
    assert results[0]["outcome"] == "stopped" and results[0]["matched_pattern"] == "FAIL"

    timed = await wait({"patterns": ["never-printed"], "seconds": 0})
    assert timed["outcome"] == "deadline" and timed["matched_index"] is None, timed


async def test_a_pane_whose_program_is_still_tmuxs_own_copy_is_waited_for_not_no_shell(
    shared: TmuxServer, rust_client: Client
) -> None:
    # A new pane runs a copy of tmux until it becomes the shell: stretched here
    # by a process named "tmux" that then becomes sh (0.6 s).
    window = shared.new_window()
    pane = shared.tmux("display-message", "-p", "-t", window, "#{pane_id}").strip()
    shared.tmux(
        "respawn-pane", "-k", "-t", pane, "bash", "-c", "exec -a tmux bash -c 'sleep 0.6; exec sh'"
    )
    until_running(shared, pane, "tmux")
    ran = await rust_client.ok("run_shell_command", {"pane": pane, "command": "echo started"})
    assert (ran["outcome"], ran["output"]) == ("completed", "started\n"), ran
