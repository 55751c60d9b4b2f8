"""The state rules (handlers/python/agent_rules/) on screens of each program.

Claude Code, Codex, aider and gemini need an account or a network to start, so their
screens in agent_screens.json are hand-written after the programs' own screens; the
POSIX shell and the Python REPL are also read live, in real tmux, in test_agents.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tmux_contract_mcp.handlers.python.agent_state import classify, programs

SCREENS: list[dict[str, Any]] = json.loads(
    (Path(__file__).with_name("agent_screens.json")).read_text(encoding="utf-8")
)


def screen_id(screen: dict[str, Any]) -> str:
    return f"{screen['program']}-{screen['state']}-{screen['reason'].replace(' ', '-')}"


@pytest.mark.parametrize("screen", SCREENS, ids=screen_id)
def test_each_screen_is_classified_with_the_lines_that_decided_it(screen: dict[str, Any]) -> None:
    verdict = classify(screen["command"], screen["screen"])
    assert (verdict.program, verdict.state, verdict.reason) == (
        screen["program"],
        screen["state"],
        screen["reason"],
    )
    assert verdict.evidence
    assert all(line.rstrip() in [s.rstrip() for s in screen["screen"]] for line in verdict.evidence)


def test_every_rule_file_is_versioned_and_has_screens_for_each_of_its_states() -> None:
    for program in programs():
        assert program.version >= 1
        states = {rule.state for rule in program.rules}
        shown = {s["state"] for s in SCREENS if s["program"] == program.name}
        assert states - {"busy"} <= shown, program.name


def test_a_dead_pane_is_exited_whatever_its_screen_says() -> None:
    verdict = classify("claude", ["Do you want to proceed?", "❯ 1. Yes"], dead=True)
    assert verdict.state == "exited"


def test_a_program_no_rule_file_knows_is_busy() -> None:
    verdict = classify("make", ["gcc -c main.c"])
    assert (verdict.state, verdict.program) == ("busy", "unknown")


def test_evidence_is_redacted() -> None:
    verdict = classify("bash", ["$ echo token=abcdef123456", "token=abcdef123456", "$ "])
    assert verdict.evidence == ["$"]
    verdict = classify("claude", ["Do you want to proceed? key sk-ant-abcdefghijklmnopqrstu"])
    assert verdict.evidence == ["Do you want to proceed? key [redacted]"]


def test_a_shell_in_front_is_the_shell_even_below_what_an_agent_left_on_screen() -> None:
    verdict = classify("zsh", ["✻ Welcome to Claude Code!", "Do you want to proceed?", "% "])
    assert (verdict.program, verdict.state) == ("posix-shell", "idle")
