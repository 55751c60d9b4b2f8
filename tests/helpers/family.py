"""What the libtmux family's profile tests (rust, swift) share: windows and panes made for a
test, tmux's own view of them, and refusals checked to have changed nothing."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scripts.lab.client import Client
from scripts.lab.sentlog import Sent
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.tmux import tag
from tmux_contract_mcp.handlers.tmux.transport.kinds import is_read

Corner = tuple[int, int]


def window_running(server: TmuxServer, *command: str, session: str = "main") -> tuple[str, str]:
    """A detached window in ``session`` running ``command``: (window id, pane id)."""
    out = server.tmux(
        "new-window", "-d", "-P", "-F", "#{window_id} #{pane_id}", "-t", f"{session}:", *command
    )
    window_id, pane_id = out.split()
    return window_id, pane_id


def tmux_fields(server: TmuxServer, target: str, *fields: str) -> list[str]:
    """tmux's own values of ``fields`` for ``target``.

    tmux reads ``pane_current_path`` from the pane's process, so it is empty until that
    process has started: asked for it, this reads again (for up to 10 s) until it is there."""
    fmt = "\x1f".join(f"#{{{name}}}" for name in fields)
    deadline = time.monotonic() + 10.0
    while True:
        values = server.tmux("display-message", "-p", "-t", target, fmt).rstrip("\n")
        shown = values.split("\x1f")
        started = "pane_current_path" not in fields or shown[fields.index("pane_current_path")]
        if started or time.monotonic() > deadline:
            return shown
        time.sleep(0.02)


def history_lines(server: TmuxServer, pane: str) -> list[str]:
    """Everything the pane holds, history and screen, wrapped lines joined."""
    return server.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", pane).splitlines()


def until_line(server: TmuxServer, pane: str, text: str, timeout: float = 10.0) -> None:
    """Poll tmux until ``pane`` holds a line equal to ``text``."""
    deadline = time.monotonic() + timeout
    while text not in history_lines(server, pane):
        if time.monotonic() > deadline:
            raise AssertionError(
                f"{pane} never showed {text!r}: {history_lines(server, pane)[-5:]}"
            )
        time.sleep(0.02)


SWIFT_PANE_FIELDS = (
    "pane_index",
    "pane_width",
    "pane_height",
    "pane_active",
    "pane_current_command",
    "pane_dead",
    "pane_in_mode",
    "pane_synchronized",
    "pane_current_path",
    "pane_at_top",
    "pane_at_bottom",
    "pane_at_left",
    "pane_at_right",
    "window_id",
)


def swift_pane_row(server: TmuxServer, pane: str) -> dict[str, Any]:
    """The swift pane row (without ``ref``) built from tmux's own values."""
    values = dict(
        zip(SWIFT_PANE_FIELDS, tmux_fields(server, pane, *SWIFT_PANE_FIELDS), strict=True)
    )
    return {
        "id": pane,
        "index": int(values["pane_index"]),
        "width": int(values["pane_width"]),
        "height": int(values["pane_height"]),
        "isActive": values["pane_active"] == "1",
        "currentCommand": values["pane_current_command"],
        "isDead": values["pane_dead"] == "1",
        "modeCount": int(values["pane_in_mode"]),
        "isSynchronized": values["pane_synchronized"] == "1",
        "currentPath": values["pane_current_path"],
        "isAtTop": values["pane_at_top"] == "1",
        "isAtBottom": values["pane_at_bottom"] == "1",
        "isAtLeft": values["pane_at_left"] == "1",
        "isAtRight": values["pane_at_right"] == "1",
        "windowID": values["window_id"],
    }


def without_ref(row: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in row.items() if key != "ref"}


async def changed_nothing(
    shared: TmuxServer,
    client: Client,
    tool: str,
    arguments: dict[str, Any],
    *,
    looks: bool = False,
) -> str:
    """The call's error text, once it is known to have changed nothing: it sent tmux
    nothing, or (``looks``: a refusal that needs to see tmux's state) only reads."""
    before = shared.state()
    mark = shared.mark()
    message = await client.error(tool, arguments)
    if looks:
        sent = [item for item in shared.sent_since(mark) if item.reaches_a_server]
        assert sent and all(is_read(item.words) for item in sent), [str(i) for i in sent]
    else:
        shared.assert_nothing_sent_since(mark, tool)
    assert shared.state() == before
    return message


def window_at_prompt(shared: TmuxServer, *command: str, session: str = "main") -> tuple[str, str]:
    """A detached window running ``command`` (else the shell, prompt drawn): (window, pane)."""
    out = shared.tmux(
        "new-window", "-d", "-P", "-F", "#{window_id} #{pane_id}", "-t", f"{session}:", *command
    )
    window_id, pane_id = out.split()
    if not command:
        shared.wait_for_prompt(pane_id)
    return window_id, pane_id


ECHOING = "stty -echo; exec cat"  # prints back each line it reads, without the tty's echo


def echoing_window(shared: TmuxServer, session: str = "main") -> tuple[str, str]:
    """A window whose pane prints back each line it reads (no tty echo): (window, pane)."""
    window_id, pane = window_at_prompt(shared, "sh", "-c", ECHOING, session=session)
    until_running(shared, pane, "cat")
    return window_id, pane


def until_running(shared: TmuxServer, pane: str, program: str, timeout: float = 10.0) -> None:
    """Until ``program`` is the pane's foreground process: what its shell ran before the
    ``exec`` (``stty -echo``...) is done, so no key typed from now on meets the old settings."""
    deadline = time.monotonic() + timeout
    while shared.tmux("display-message", "-p", "-t", pane, "#{pane_current_command}") != (
        program + "\n"
    ):
        assert time.monotonic() < deadline, f"{program} never ran in {pane}"
        time.sleep(0.01)


def ending_job(shared: TmuxServer, pane: str) -> None:
    """A 0.3 s ``sleep`` typed at the pane's shell prompt, once it is the foreground job:
    a job that ends moments after a call looks at the pane, as a just-finished command does
    until its shell takes the terminal back."""
    shared.tmux("send-keys", "-t", pane, "sleep 0.3", "Enter")
    until_running(shared, pane, "sleep")


def echoing_split(shared: TmuxServer, target: str) -> str:
    """A pane split from ``target`` that prints back each line it reads, as ``echoing``'s."""
    pane = shared.tmux(
        "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", target, "sh", "-c", ECHOING
    )[:-1]
    until_running(shared, pane, "cat")
    return pane


def screen_rows(shared: TmuxServer, pane: str) -> list[str]:
    return shared.tmux("capture-pane", "-p", "-t", pane).rstrip("\n").split("\n")


def until_screen_has(shared: TmuxServer, pane: str, line: str, timeout: float = 10.0) -> list[str]:
    """The pane's screen once a line of it is ``line`` (the program echoes after tmux wrote)."""
    deadline = time.monotonic() + timeout
    while line not in (shown := screen_rows(shared, pane)):
        assert time.monotonic() < deadline, f"{line!r} never appeared in {pane}: {shown}"
        time.sleep(0.01)
    return shown


def family_envelope(text: str) -> dict[str, Any]:
    value = json.loads(text)
    assert set(value) == {"message", "data"}, value
    return dict(value)


def only_looks(item: Sent) -> bool:
    """A read, or the start of a control client (which attaches to read)."""
    return is_read((item.command,)) or (item.command == "attach-session" and "-C" in item.words)


async def typed_nothing(
    shared: TmuxServer, client: Client, tool: str, arguments: dict[str, Any], *, looks: bool = True
) -> dict[str, Any]:
    """The call's error envelope, once it is known to have typed nothing: it sent tmux
    only reads (``looks``) or nothing at all, and every pane's screen stayed as it was."""
    before = shared.state()
    screens = {
        pane: screen_rows(shared, pane)
        for pane in shared.lines("list-panes", "-a", "-F", "#{pane_id}")
    }
    mark = shared.mark()
    sent = family_envelope(await client.error(tool, arguments))
    words = [item for item in shared.sent_since(mark) if item.reaches_a_server]
    if looks:
        assert words and all(map(only_looks, words)), [str(i) for i in words]
    else:
        assert words == [], [str(i) for i in words]
    assert shared.state() == before
    assert {pane: screen_rows(shared, pane) for pane in screens} == screens
    return sent


def make_dead_pane(shared: TmuxServer) -> str:
    """A pane whose program has exited, kept by remain-on-exit."""
    window_id, pane = window_at_prompt(shared, "sh", "-c", "read line")
    shared.tmux("set-option", "-w", "-t", window_id, "remain-on-exit", "on")
    shared.tmux("send-keys", "-t", pane, "Enter")  # `read` returns, the program exits
    deadline = time.monotonic() + 10
    while shared.tmux("display-message", "-p", "-t", pane, "#{pane_dead}") != "1\n":
        assert time.monotonic() < deadline, f"{pane} never died"
        time.sleep(0.01)
    return pane


async def typed_nothing_text(
    shared: TmuxServer, client: Client, tool: str, arguments: dict[str, Any], *, looks: bool = True
) -> str:
    """The call's error text, once it is known to have typed nothing."""
    before = shared.state()
    panes = shared.lines("list-panes", "-a", "-F", "#{pane_id}")
    screens = {pane: screen_rows(shared, pane) for pane in panes}
    mark = shared.mark()
    message = await client.error(tool, arguments)
    sent = [item for item in shared.sent_since(mark) if item.reaches_a_server]
    if looks:
        assert sent and all(map(only_looks, sent)), [str(i) for i in sent]
    else:
        assert sent == [], [str(i) for i in sent]
    assert shared.state() == before
    assert {pane: screen_rows(shared, pane) for pane in panes} == screens
    return message


def here() -> str:
    """The MCP server's working directory: it inherits this process's."""
    return os.path.realpath(os.getcwd())


def lines_of(path: Path, count: int, timeout: float = 10.0) -> list[str]:
    """The file's lines, once it has ``count`` of them."""
    deadline = time.monotonic() + timeout
    while True:
        found = path.read_text().splitlines() if path.exists() else []
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.02)


def end_keeping_the_pane(server: TmuxServer, pane: str, timeout: float = 10.0) -> None:
    """Kill the pane's process, the pane kept open (remain-on-exit) as a dead pane."""
    server.tmux("set-option", "-p", "-t", pane, "remain-on-exit", "on")
    os.kill(int(tmux_fields(server, pane, "pane_pid")[0]), signal.SIGKILL)
    deadline = time.monotonic() + timeout
    while tmux_fields(server, pane, "pane_dead") != ["1"] and time.monotonic() < deadline:
        time.sleep(0.02)
    assert tmux_fields(server, pane, "pane_dead") == ["1"]


SIDES: dict[str, Callable[[Corner, Corner], bool]] = {
    "below": lambda new, old: new[0] == old[0] and new[1] > old[1],
    "above": lambda new, old: new[0] == old[0] and new[1] < old[1],
    "right": lambda new, old: new[0] > old[0] and new[1] == old[1],
    "left": lambda new, old: new[0] < old[0] and new[1] == old[1],
}


def corner(server: TmuxServer, pane: str) -> tuple[int, int]:
    left, top = tmux_fields(server, pane, "pane_left", "pane_top")
    return int(left), int(top)


def counting_window(server: TmuxServer) -> tuple[str, Path]:
    """A pane whose command appends a line to a file each time it starts; (pane, file)."""
    log = server.tmpdir / f"starts-{tag()}"
    _, pane = window_running(server, "sh", "-c", f"echo started >> {log}; exec cat")
    assert lines_of(log, 1) == ["started"]
    return pane, log


def exists(server: TmuxServer, kind: str, object_id: str) -> bool:
    listing = {
        "pane": ("list-panes", "-a", "-F", "#{pane_id}"),
        "window": ("list-windows", "-a", "-F", "#{window_id}"),
        "session": ("list-sessions", "-F", "#{session_id}"),
    }[kind]
    return object_id in server.lines(*listing)


def teardown_world(server: TmuxServer) -> list[str]:
    """Every pane with its process and history size: a refusal changes none of it."""
    return server.lines(
        "list-panes",
        "-a",
        "-F",
        "#{session_id} #{window_id} #{pane_id} #{pane_pid} #{history_size}",
    )


def tmux_value(server: TmuxServer, target: str, fmt: str) -> str:
    return server.tmux("display-message", "-p", "-t", target, fmt).strip()


def filled_pane(server: TmuxServer, session: str = "main") -> tuple[str, str]:
    """A window whose one pane has printed 300 numbered lines into its history, then waits;
    (window id, pane id)."""
    window_id, pane_id = window_running(server, "seq 1 300; echo filled; exec cat", session=session)
    until_line(server, pane_id, "filled")
    return window_id, pane_id


def shell_window(shared: TmuxServer, shell: str) -> str:
    """A new window running ``shell`` at its prompt; its pane id."""
    window = shared.new_window()
    pane = shared.tmux("display-message", "-p", "-t", window, "#{pane_id}").strip()
    if shell != "sh":
        shared.tmux(
            "respawn-pane",
            "-k",
            "-t",
            pane,
            f"env PS1='$ ' {shell} --norc -i" if shell == "bash" else shell,
        )
    shared.wait_for_prompt(pane)
    return pane


def error_envelope(text: str) -> dict[str, object]:
    value = json.loads(text)
    assert isinstance(value, dict) and set(value) == {"message", "data"}, value
    assert set(value["data"]) >= {"kind", "retryable", "stale"}, value
    return value
