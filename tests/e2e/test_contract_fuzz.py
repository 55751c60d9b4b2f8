"""Contract fuzzing, a fixed seeded slice: every tool of every profile, calls drawn from the
tool's own advertised input schema, through the MCP client against the installed command
on a private tmux server, with none of the invariants broken (``scripts/fuzz/engine.py``
lists them). ``make fuzz`` runs the same engine with more calls and any seed.

The other tests here show that each check of the engine can fail: an injection string
does run when it reaches a shell or tmux, a change of each kind shows in the lab's
snapshot, an internal error or a leftover process is seen.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator

import mcp.types as types
import pytest

from scripts.fuzz.cases import INJECTIONS, LIVE, MARK, Case, draw_cases
from scripts.fuzz.engine import Report, Run, fuzz, short_wait
from scripts.fuzz.lab import Lab
from scripts.fuzz.schemas import inline_refs
from scripts.fuzz.targets import advertised, ours
from scripts.fuzz.wire import Answer
from scripts.lab.processes import descendants, processes_with
from scripts.lab.sshd import SshServer
from scripts.lab.tmuxserver import TMUX
from tmux_contract_mcp.generated import PROFILES

SEED = 20261201
EXAMPLES = 4  # calls per tool (half for a tool that waits on its own clock) ...
CALLS = 24  # ... and at least this many per profile


@pytest.mark.anyio
@pytest.mark.parametrize("profile", PROFILES)
# 5 to 10 s a profile; but the engine waits 15 s on a call before it counts a hang, so a server
# that hangs on a few calls is reported as findings, not cut short by the default timeout.
@pytest.mark.timeout(300)
async def test_every_tool_keeps_the_contract_under_generated_calls(profile: str) -> None:
    examples = max(EXAMPLES, -(-CALLS // len(advertised(profile))))
    report: Report = await fuzz(ours(profile), examples, SEED)
    assert report.findings == [], "\n".join(str(f) for f in report.findings[:20])
    assert sorted(report.tools) == sorted(advertised(profile)), "every tool was called"
    assert report.valid > 0 and report.calls - report.valid > 0, "valid and invalid calls"
    assert report.succeeded > 0 and report.refused > 0
    assert report.processes_running > 0, "the leak check sees the server's processes"


def test_the_same_seed_draws_the_same_calls() -> None:
    tool = advertised("python")["send_keys"]
    schema = inline_refs(tool["inputSchema"])
    assert draw_cases("send_keys", schema, 5, SEED) == draw_cases("send_keys", schema, 5, SEED)
    assert draw_cases("send_keys", schema, 5, SEED) != draw_cases("send_keys", schema, 5, 1)


# --- the checks can fail ----------------------------------------------------------------------


@pytest.fixture
def lab() -> Iterator[Lab]:
    made = Lab.create()
    try:
        yield made
    finally:
        made.remove()


def misread(lab: Lab, texts: list[str]) -> None:
    """Each text handed to each thing a careless server could hand a value to: a shell (as a
    line, and inside a word bare, in single and in double quotes), a tmux command line
    (bare and in either quotes, and as words a shell split), a tmux format, and the shell
    of a new pane as typed keys."""
    for text in texts:
        for line in (text, f"echo {text}", f"echo '{text}'", f'echo "{text}"',
                     f"{TMUX} -L {lab.name} display-message -p {text}"):  # fmt: skip
            subprocess.run(["sh", "-c", line], capture_output=True, cwd=lab.work,
                           env=lab.tmux_env, timeout=10)  # fmt: skip
        for line in (f"display-message -p {text}", f"display-message -p '{text}'",
                     f'display-message -p "{text}"'):  # fmt: skip
            lab.tmux("source-file", "-", stdin=line + "\n")
        # A shell of its own, so that no quote an earlier text left open swallows this one.
        pane = lab.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-c", str(lab.work))
        lab.tmux("send-keys", "-t", pane.stdout.strip(), "-l", text)
    # tmux kills a #() job whose command ended before the job started: one command that
    # expands every text, then waits a moment.
    formats = [word for text in texts for word in ("display-message", "-p", text, ";")]
    lab.tmux(*formats, "run-shell", "sleep 0.3")


def test_each_injection_string_creates_its_marker_when_something_runs_it(lab: Lab) -> None:
    """So a marker that never appears means nothing ran, not that the string was harmless."""
    markers = [f"i{number}" for number in range(len(INJECTIONS))]
    misread(
        lab,
        [
            t.replace(MARK, str(lab.markers / m)).replace(LIVE, "%0")
            for t, m in zip(INJECTIONS, markers, strict=True)
        ],
    )
    deadline = time.monotonic() + 10
    seen: set[str] = set()
    while time.monotonic() < deadline:  # typed lines run a moment later
        seen = {name.rstrip() for name in lab.markers_seen()}
        if seen >= set(markers):
            break
        time.sleep(0.05)
    assert sorted(seen) == sorted(markers)


CHANGES = (
    ("set-option", "-g", "status-left", "changed"),
    ("set-option", "-w", "-t", "main:0", "pane-border-style", "fg=red"),
    ("set-option", "-p", "-t", "main:0.0", "remain-on-exit", "on"),
    ("set-option", "-t", "main", "base-index", "3"),
    ("set-option", "-s", "escape-time", "7"),
    ("set-hook", "-g", "after-select-pane", "display-message hi"),
    ("set-buffer", "-b", "another", "text"),
    ("set-environment", "-g", "ANOTHER", "1"),
    ("set-environment", "-t", "main", "ANOTHER", "1"),
    ("rename-window", "-t", "main:0", "renamed"),
    ("rename-session", "-t", "aux", "renamed"),
    ("split-window", "-d", "-t", "main:0"),
    ("select-pane", "-T", "title", "-t", "main:0.0"),
    ("resize-pane", "-Z", "-t", "main:0.0"),
    ("copy-mode", "-t", "main:0.0"),
    ("kill-session", "-t", "renamed"),
)


def test_the_lab_snapshot_sees_every_kind_of_change(lab: Lab) -> None:
    unseen = []
    for change in CHANGES:
        before = lab.snapshot()
        assert lab.tmux(*change).returncode == 0, change
        if lab.snapshot() == before:
            unseen.append(change)
    assert unseen == []


@pytest.mark.anyio
async def test_an_internal_error_and_an_invalid_call_accepted_are_findings(lab: Lab) -> None:
    run = Run(ours("python"), lab, hang=5)
    case = Case("rename_window", "valid", {"new_name": "a"})
    text = "rename_window failed inside the server (ValueError: embedded null byte)."
    failed = types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                  is_error=True)  # fmt: skip
    await run.judge(case, {}, {"new_name": "a"}, True, None, Answer(result=failed))
    accepted = types.CallToolResult(content=[], structured_content={"window_id": "@0"})
    await run.judge(case, {}, {}, False, lab.snapshot(), Answer(result=accepted))
    assert [finding.kind for finding in run.report.findings] == [
        "internal error",
        "invalid accepted",
    ]


@pytest.mark.anyio
async def test_a_command_run_by_a_tool_not_meant_to_run_commands_is_an_injection(lab: Lab) -> None:
    """End to end through the real server: here no tool is taken to run commands by design,
    so the marker a command creates must be reported."""
    target = dataclasses.replace(ours("python"), toolset=lambda tool: "inspect")
    run = Run(target, lab, hang=15)
    await run.server.start()
    try:
        run.listed = await run.tools()
        schema = inline_refs(run.tool("run_command").input_schema)
        command = {"command": f"touch {MARK}", "pane_id": "x", "timeout": 5}
        await run.case(Case("run_command", "injected", command, live=True), schema)
    finally:
        await run.server.stop()
    assert [finding.kind for finding in run.report.findings] == ["injection"]
    assert run.report.succeeded == 1


@pytest.mark.anyio
async def test_a_server_that_dies_or_stops_answering_is_a_finding_and_is_started_again(
    lab: Lab,
) -> None:
    run = Run(ours("rust"), lab, hang=1)
    await run.server.start()
    try:
        run.listed = await run.tools()
        case = Case(run.listed[0].name, "valid", {})
        schema = inline_refs(run.listed[0].input_schema)
        assert run.server.process is not None
        run.server.process.kill()
        await run.case(case, schema)  # died: a crash, and a new process
        assert run.server.process is not None
        os.kill(run.server.process.pid, signal.SIGSTOP)
        await run.case(case, schema)  # no answer in time: a hang, and a new process
        assert await run.server.answering(5)
    finally:
        await run.server.stop()
    assert [finding.kind for finding in run.report.findings] == ["crash", "hang"]
    assert run.report.restarts == 2 and run.report.calls == 2


def test_a_process_left_by_the_server_is_found_by_its_token() -> None:
    token = uuid.uuid4().hex
    child = subprocess.Popen(["sh", "-c", "sleep 60 & wait"], env={**os.environ, "FUZZ_RUN": token})
    try:
        deadline = time.monotonic() + 10
        while not descendants(child.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        found = processes_with("FUZZ_RUN", token)
        assert descendants(child.pid) and {child.pid, *descendants(child.pid)} <= found
    finally:
        child.kill()
        child.wait()


def test_a_long_left_out_or_null_wait_in_seconds_is_cut_and_any_other_value_is_kept() -> None:
    schema = {"properties": {"seconds": {"type": ["integer", "null"]}, "pane": {}}}
    assert short_wait({"pane": "%1"}, schema) == {"pane": "%1", "seconds": 1}
    assert short_wait({"seconds": 600}, schema) == {"seconds": 1}
    assert short_wait({"seconds": None}, schema) == {"seconds": 1}  # null: the default wait
    for kept in ({"seconds": 0}, {"seconds": -5}, {"seconds": "x"}, {"seconds": True}):
        assert short_wait(kept, schema) == kept
    not_null = {"properties": {"seconds": {"type": "integer"}}}
    assert short_wait({"seconds": None}, not_null) == {"seconds": None}  # invalid: kept
    assert short_wait({"timeout": 60}, {"properties": {"timeout": {}}}) == {"timeout": 60}


@pytest.mark.anyio
async def test_the_engine_fuzzes_a_server_started_with_ssh(sshd: SshServer) -> None:
    """``make fuzz FUZZ_ARGS=--ssh``: the same invariants, the server reaching tmux through ssh."""
    wanted = {"list_servers", "list_sessions", "capture_pane"}
    target = ours("python", sshd=sshd)
    report = await fuzz(target, 2, SEED, only=wanted.__contains__)
    assert target.label == "ours/python over ssh"
    assert report.findings == [], "\n".join(str(f) for f in report.findings)
    assert sorted(report.tools) == sorted(wanted)
    assert report.succeeded > 0
