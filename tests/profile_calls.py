"""The same action in each profile's words: which tool, which arguments, where the answer is.

The three families name their typing tools, their pane argument and their answers
differently (``pane_id`` / ``pane`` / ``paneId``, text in ``keys`` or ``text``...);
tests that hold every profile to one behaviour say the action once and let this module
say it in each family's words.
"""

from __future__ import annotations

import json
import time
from typing import Any

from scripts.lab.sentlog import Sent
from scripts.lab.tmuxserver import TmuxServer
from tmux_contract_mcp.handlers.tmux.transport.keyguard import types_keys
from tmux_contract_mcp.handlers.tmux.transport.kinds import is_read

PROFILES = ("python", "rust", "swift")
PANE = {"python": "pane_id", "rust": "pane", "swift": "paneId"}
Call = tuple[str, dict[str, Any]]


def send_text(profile: str, pane: str, text: str, *, enter: bool = True) -> Call:
    """Type ``text`` literally, then Enter if ``enter``."""
    if profile == "python":
        return "send_keys", {"pane_id": pane, "keys": text, "literal": True, "enter": enter}
    if profile == "rust":
        return "send_keys", {"pane": pane, "text": text, "enter": enter}
    return "send_keys", {"paneId": pane, "keys": [text], "literal": True, "enter": enter}


def send_key(profile: str, pane: str, key: str) -> Call:
    """Press the key named ``key`` (C-c, Enter, Up), and nothing after it."""
    if profile == "python":
        return "send_keys", {"pane_id": pane, "keys": key, "enter": False}
    if profile == "rust":
        return "send_keys", {"pane": pane, "keys": [key]}
    return "send_keys", {"paneId": pane, "keys": [key], "enter": False}


def batch_text(profile: str, pane: str, text: str) -> Call:
    """``send_text`` as the one operation of a send_keys_batch."""
    _, arguments = send_text(profile, pane, text)
    if profile == "swift":
        return "send_keys_batch", {"operations": [arguments], "onError": "continue"}
    return "send_keys_batch", {"operations": [arguments], "on_error": "continue"}


def batch_error(profile: str, answer: dict[str, Any]) -> str | None:
    """The one operation's error in a send_keys_batch answer (None when it went through)."""
    if profile == "swift":
        failures = answer["failures"]
        return str(failures[0]["reason"]) if failures else None
    (row,) = answer["results"]
    if row["success"]:
        return None
    error = row["error"]
    return str(error["message"] if isinstance(error, dict) else error)


def paste(profile: str, pane: str, text: str) -> Call:
    """Paste ``text`` (no Enter)."""
    return "paste_text", {PANE[profile]: pane, "text": text}


def run_command(profile: str, pane: str, command: str, seconds: int = 10) -> Call:
    """Run ``command`` at the pane's shell and wait up to ``seconds`` for it."""
    if profile == "python":
        return "run_command", {"pane_id": pane, "command": command, "timeout": seconds}
    if profile == "rust":
        return "run_shell_command", {"pane": pane, "command": command, "seconds": seconds}
    return "run_shell_command", {"paneId": pane, "command": command, "timeoutMs": seconds * 1000}


def command_output(profile: str, answer: dict[str, Any]) -> list[str]:
    """The lines a run_command / run_shell_command answer holds."""
    if profile == "python":
        return list(answer["output"])
    if profile == "rust":
        return str(answer["output"]).splitlines()
    return list(answer["output"])


def command_status(profile: str, answer: dict[str, Any]) -> int | None:
    key = "exitStatus" if profile == "swift" else "exit_status"
    status = answer[key]
    return None if status is None else int(status)


def pane_info(profile: str, pane: str) -> Call:
    return "get_pane_info", {PANE[profile]: pane}


def snapshot(profile: str, pane: str) -> Call:
    return "snapshot_pane", {PANE[profile]: pane}


def capture(profile: str, pane: str) -> Call:
    return "capture_pane", {PANE[profile]: pane}


def captured(profile: str, answer: dict[str, Any]) -> list[str]:
    """The lines of a capture_pane answer."""
    if profile == "python":
        return str(answer["result"]).split("\n")
    if profile == "rust":
        return str(answer["text"]).split("\n")
    return list(answer["lines"])


def message(profile: str, text: str) -> str:
    """A failure's message (the rust family's text is its JSON envelope)."""
    if profile == "rust":
        return str(json.loads(text)["message"])
    return text


def screen(tmux: TmuxServer, pane: str) -> list[str]:
    return tmux.tmux("capture-pane", "-p", "-t", pane).rstrip("\n").split("\n")


def until_screen_has(tmux: TmuxServer, pane: str, text: str, timeout: float = 10.0) -> list[str]:
    """The pane's screen once some line of it holds ``text``."""
    deadline = time.monotonic() + timeout
    while True:
        shown = screen(tmux, pane)
        if any(text in line for line in shown):
            return shown
        assert time.monotonic() < deadline, f"{text!r} never appeared in {pane}: {shown}"
        time.sleep(0.02)


def until_running(tmux: TmuxServer, pane: str, program: str, timeout: float = 10.0) -> None:
    """Until ``program`` is the pane's foreground process."""
    deadline = time.monotonic() + timeout
    while tmux.tmux("display-message", "-p", "-t", pane, "#{pane_current_command}") != (
        program + "\n"
    ):
        assert time.monotonic() < deadline, f"{program} never ran in {pane}"
        time.sleep(0.02)


def typed_unguarded(sent: list[Sent]) -> list[str]:
    """What of ``sent`` typed into a pane outside the guard that checks it first (a bare
    ``send-keys`` with keys or ``paste-buffer``): a refusal must have sent none."""
    return [
        str(item)
        for item in sent
        if item.reaches_a_server
        and (types_keys(item.arguments) or item.arguments[:1] == ("paste-buffer",))
    ]


def only_reads_or_guards(sent: list[Sent]) -> list[str]:
    """What of ``sent`` is neither a read, a control client's start, nor a guard (an
    ``if-shell -F`` that types only into a pane that can take it) and its fence."""
    odd = []
    for item in sent:
        if not item.reaches_a_server:
            continue
        words = item.arguments
        if is_read(words[:1]) or words[:2] == ("if-shell", "-F"):
            continue
        if words == ("source-file", "-"):  # through ssh: the command it reads is logged too
            continue
        if words[:1] == ("attach-session",) or (words[:1] == ("set-buffer",)):
            continue
        if words[:1] == ("delete-buffer",):
            continue
        odd.append(str(item))
    return odd
