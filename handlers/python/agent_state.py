"""What state the program in a pane is in, decided by rules that are data.

One JSON file per known program in ``agent_rules/``: its name, a version, the
current commands (``pane_current_command``, regular expressions) and screen marks
that identify it, and its rules in order. A program is known by its command, then by
a mark on its screen; an interpreter other programs run in (``generic``: the Python
REPL) by its command only when no mark names another program. A shell in front is
known by its command before any mark: what an earlier program left on the screen
does not make the shell that program. A rule names a state and a reason and
matches either the last non-blank line of the screen (``last_line``) or any
visible line (``any_line``); the first rule that matches decides, and the lines it
matched are the evidence. Nothing here reads tmux or presses a key: the tool reads
the pane once and hands the screen to ``classify``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from ..tmux.objects.redact import redacted

State = Literal["idle", "busy", "waiting", "exited"]
RULES = Path(__file__).with_name("agent_rules")
EVIDENCE_LINES = 5


@dataclass(frozen=True)
class Rule:
    state: State
    reason: str
    pattern: re.Pattern[str]
    last_line: bool  # matched against the last non-blank line only


@dataclass(frozen=True)
class Program:
    name: str
    version: int
    commands: tuple[re.Pattern[str], ...]
    marks: tuple[re.Pattern[str], ...]
    rules: tuple[Rule, ...]
    generic: bool  # an interpreter other programs run in: known by its command last


@dataclass(frozen=True)
class Verdict:
    state: State
    program: str
    version: int
    reason: str
    evidence: list[str]


def _program(path: Path) -> Program:
    data = json.loads(path.read_text(encoding="utf-8"))
    rules = []
    for rule in data["rules"]:
        last = "last_line" in rule
        rules.append(
            Rule(
                rule["state"],
                rule["reason"],
                re.compile(rule["last_line" if last else "any_line"]),
                last,
            )
        )
    return Program(
        data["program"],
        int(data["version"]),
        tuple(re.compile(p) for p in data["commands"]),
        tuple(re.compile(p) for p in data["marks"]),
        tuple(rules),
        bool(data.get("generic", False)),
    )


@cache
def programs() -> tuple[Program, ...]:
    """Every rule file, by file name."""
    return tuple(_program(path) for path in sorted(RULES.glob("*.json")))


def program_of(command: str, screen: list[str]) -> Program | None:
    """The program whose command matches ``command``, else the first whose mark is on
    screen, else a generic one (an interpreter) whose command matches."""
    for program in programs():
        if not program.generic and any(p.search(command) for p in program.commands):
            return program
    for program in programs():
        if any(mark.search(line) for mark in program.marks for line in screen):
            return program
    for program in programs():
        if program.generic and any(p.search(command) for p in program.commands):
            return program
    return None


def classify(command: str, screen: list[str], *, dead: bool = False) -> Verdict:
    """The state of the program running ``command`` whose visible screen is ``screen``."""
    visible = [line.rstrip() for line in screen]
    while visible and not visible[-1]:
        visible.pop()
    last = visible[-1] if visible else ""
    if dead:
        return Verdict(
            "exited", command, 0, "the pane is dead", redacted(visible[-EVIDENCE_LINES:])
        )
    program = program_of(command, visible)
    if program is None:
        return Verdict("busy", "unknown", 0, f"{command} runs; no rule file knows it", [])
    for rule in program.rules:
        if rule.last_line:
            found = [last] if rule.pattern.search(last) else []
        else:
            found = [line for line in visible if rule.pattern.search(line)]
        if found:
            evidence = redacted(found[-EVIDENCE_LINES:])
            return Verdict(rule.state, program.name, program.version, rule.reason, evidence)
    return Verdict("busy", program.name, program.version, "no rule matched", [])
