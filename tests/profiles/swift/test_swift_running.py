"""run_shell_command and wait_for_text of the swift profile, against real shells in real tmux.

The module's swift server caps every wait at 1 s (LIBTMUX_MCP_WAIT_MAX_SECONDS),
so a wait that times out does so quickly; each test works in a window of its own.
"""

from __future__ import annotations

import anyio
import pytest

from scripts.lab.client import Client
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.family import ending_job
from tests.helpers.family import typed_nothing_text as refused

pytestmark = pytest.mark.anyio


def sh_pane(shared: TmuxServer) -> str:
    window = shared.new_window()
    pane = shared.tmux("display-message", "-p", "-t", window, "#{pane_id}").strip()
    shared.wait_for_prompt(pane)
    return pane


async def test_run_shell_command_answers_status_lines_and_the_applied_timeout(
    shared: TmuxServer, swift_client: Client
) -> None:
    pane = sh_pane(shared)
    ran = await swift_client.ok(
        "run_shell_command",
        {"paneId": pane, "command": "cd /; printf '%s\\n' a b c; exit 4", "maxLines": 2},
    )
    assert ran["exitStatus"] == 4 and ran["timedOut"] is False, ran
    assert ran["output"] == ["b", "c"] and ran["droppedLines"] == 1, ran
    assert ran["effectiveTimeout"] == 1 and ran["linesMissed"] is False
    where = await swift_client.ok("run_shell_command", {"paneId": ran["paneRef"], "command": "pwd"})
    assert where["output"] != ["/"] and where["exitStatus"] == 0, where
    late = await swift_client.ok(
        "run_shell_command", {"paneId": pane, "command": "sleep 2; echo late", "timeoutMs": 100}
    )
    assert late["timedOut"] is True and late["exitStatus"] is None, late
    busy = await swift_client.error("run_shell_command", {"paneId": pane, "command": "true"})
    assert "run_shell_command" in busy and pane in busy


async def test_wait_for_text_counts_the_screen_without_a_cursor_and_only_new_rows_with_one(
    shared: TmuxServer, swift_client: Client
) -> None:
    pane = sh_pane(shared)
    shared.tmux("send-keys", "-t", pane, "printf 'rea%s\\n' dy", "Enter")
    with anyio.fail_after(20):
        while "ready" not in shared.tmux("capture-pane", "-p", "-t", pane):
            await anyio.sleep(0.02)
    entry = await swift_client.ok("wait_for_text", {"paneId": pane, "patterns": ["ready"]})
    assert entry["outcome"] == "matched" and entry["matchedAtEntry"] is True, entry
    assert entry["matched"] == "ready" and entry["matchedIndex"] == 0 and entry["cursor"]
    later = await swift_client.ok(
        "wait_for_text",
        {"paneId": pane, "patterns": ["ready"], "cursor": entry["cursor"], "timeoutMs": 100},
    )
    assert later["outcome"] == "timeout" and later["matched"] is None, later
    assert later["matchedAtEntry"] is False and "ready" in later["tail"]
    refused = await swift_client.error("wait_for_text", {"paneId": pane, "patterns": ["é" * 2049]})
    assert "patterns" in refused and "4096" in refused


async def test_run_shell_command_refuses_a_pane_synchronized_with_others(
    shared: TmuxServer, swift_client: Client
) -> None:
    first = sh_pane(shared)
    second = shared.tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", first)[:-1]
    shared.wait_for_prompt(second)
    window = shared.tmux("display-message", "-p", "-t", first, "#{window_id}").strip()
    shared.tmux("set-option", "-w", "-t", window, "synchronize-panes", "on")
    message = await refused(
        shared, swift_client, "run_shell_command", {"paneId": first, "command": "true"}
    )
    assert message.startswith("Refused") and second in message and first in message


async def test_run_shell_command_waits_for_a_job_that_is_ending_to_give_the_prompt_back(
    shared: TmuxServer, swift_client: Client
) -> None:
    pane = sh_pane(shared)
    ending_job(shared, pane)
    ran = await swift_client.ok("run_shell_command", {"paneId": pane, "command": "echo next"})
    assert (ran["exitStatus"], ran["output"], ran["timedOut"]) == (0, ["next"], False), ran
