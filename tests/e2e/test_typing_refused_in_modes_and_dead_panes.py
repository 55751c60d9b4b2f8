"""Issue 37, points 1 and 3, in every profile, here and through ssh (``shared_env``).

Every tool that types or pastes into a pane refuses a pane in a mode (copy mode, view
mode, a chooser), naming the pane, its socket, the mode and the way out of it (python's
``exit_copy_mode``; the rust and swift families have no such tool and say so), and a
dead pane, naming its exit status or signal; and types nothing. "Nothing" is read three
ways: the sent log holds no command that types outside the guard that checks the pane
in the same command, the pane is still in the same mode at the same place, and once
the mode is left, its shell's input line is empty.

A dead pane says so wherever a pane is reported: in the family's own field where it
has one (swift's ``isDead``, rust's snapshot ``dead``) and, for every family, in a
note beside the structured result (its exit status or signal); its content still reads.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import mcp.types as types
import pytest

from scripts.lab.client import Client, error_text, notes, open_client
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.profile_calls import (
    PANE,
    PROFILES,
    batch_error,
    batch_text,
    captured,
    only_reads_or_guards,
    pane_info,
    paste,
    run_command,
    send_key,
    send_text,
    snapshot,
    typed_unguarded,
    until_screen_shows,
)
from tests.helpers.profile_calls import (
    capture_call as capture,
)
from tests.helpers.profile_calls import (
    pane_screen as screen,
)
from tests.helpers.profile_calls import (
    refusal_message as message,
)
from tests.plugin import ALL_TOOLSETS, ServerEnv
from tmux_contract_mcp.handlers.tmux.errors import InputRefused
from tmux_contract_mcp.handlers.tmux.objects.input import PaneInput, Typing
from tmux_contract_mcp.handlers.tmux.objects.server import Tmux
from tmux_contract_mcp.handlers.tmux.policy.ledger import Ledger

pytestmark = [pytest.mark.anyio, pytest.mark.reach("local", "ssh")]

WAY_OUT = {
    "python": "Call exit_copy_mode (pane_id {pane})",
    "rust": "No tool of this server leaves a mode",
    "swift": "No tool of this server leaves a mode",
}


@pytest.fixture(scope="module")
async def profile_clients(shared_env: ServerEnv) -> AsyncIterator[dict[str, Client]]:
    """One MCP client per profile on the module's tmux server (every toolset served)."""
    env = {"LIBTMUX_TOOLSETS": ALL_TOOLSETS, "LIBTMUX_MCP_WAIT_MAX_SECONDS": "10"}
    async with (
        open_client(shared_env(), "python") as python,
        open_client(shared_env(**env), "rust") as rust,
        open_client(shared_env(**env), "swift") as swift,
    ):
        yield {"python": python, "rust": rust, "swift": swift}


def shell_pane(shared: TmuxServer) -> str:
    """A new window's pane with its shell at the prompt (vi keys in copy mode: there the
    digits open a prompt, the binding that hung the control client)."""
    pane = shared.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:").strip()
    shared.tmux("set-option", "-w", "-t", pane, "mode-keys", "vi")
    shared.wait_for_prompt(pane)
    return pane


def enter_mode(shared: TmuxServer, pane: str, mode: str) -> None:
    if mode == "copy-mode":
        shared.tmux("copy-mode", "-t", pane)
    elif mode == "view-mode":
        shared.tmux("run-shell", "-t", pane, "echo shown-by-tmux")
    else:
        shared.tmux("choose-tree", "-t", pane)
    assert where(shared, pane)[0] == mode


def where(shared: TmuxServer, pane: str) -> tuple[str, str]:
    """The pane's mode, and where a copy-mode cursor stands in it."""
    mode, place = shared.tmux(
        "display-message", "-p", "-t", pane,
        "#{pane_mode}|#{copy_cursor_x},#{copy_cursor_y},#{scroll_position}",
    ).strip().split("|")  # fmt: skip
    return mode, place


def input_line_is_empty(shared: TmuxServer, pane: str) -> None:
    """Out of its mode, the pane's shell shows an empty input line (nothing was typed)."""
    shared.tmux("copy-mode", "-q", "-t", pane)
    shown = [line for line in screen(shared, pane) if line.strip()]
    assert shown and shown[-1].rstrip() in ("#", "$"), shown


async def refused_typing(
    shared: TmuxServer, client: Client, profile: str, call: tuple[str, dict[str, Any]], pane: str
) -> str:
    """The refusal's message, once the call is known to have typed nothing into ``pane``."""
    tool, arguments = call
    before = where(shared, pane)
    mark = shared.mark()
    if tool == "send_keys_batch":
        refused = batch_error(profile, await client.ok(tool, arguments))
        assert refused is not None, "the operation went through"
    else:
        refused = message(profile, await client.error(tool, arguments))
    sent = shared.sent_since(mark)
    assert typed_unguarded(sent) == [], typed_unguarded(sent)
    assert only_reads_or_guards(sent) == [], only_reads_or_guards(sent)
    assert where(shared, pane) == before
    assert pane in refused and shared.socket_path in refused, refused
    assert "Nothing was typed" in refused, refused
    return refused


def typing_calls(profile: str, pane: str) -> list[tuple[str, dict[str, Any]]]:
    """Every way the profile types or pastes into a pane."""
    calls = [
        send_text(profile, pane, "echo 12"),
        send_key(profile, pane, "C-c"),
        batch_text(profile, pane, "echo 34"),
        paste(profile, pane, "echo 56"),
        run_command(profile, pane, "echo 78"),
    ]
    return calls


# --- point 1: modes -------------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
async def test_every_typing_tool_refuses_a_pane_in_copy_mode_naming_the_mode_and_the_way_out(
    shared: TmuxServer, profile_clients: dict[str, Client], profile: str
) -> None:
    pane = shell_pane(shared)
    enter_mode(shared, pane, "copy-mode")
    for call in typing_calls(profile, pane):
        refused = await refused_typing(shared, profile_clients[profile], profile, call, pane)
        assert "copy mode" in refused and "copy-mode" in refused, refused
        assert WAY_OUT[profile].format(pane=pane) in refused, refused
    input_line_is_empty(shared, pane)


async def test_paste_buffer_refuses_a_pane_in_copy_mode_and_keeps_the_buffer(
    shared: TmuxServer, profile_clients: dict[str, Client]
) -> None:
    client = profile_clients["python"]
    pane = shell_pane(shared)
    loaded = await client.ok("load_buffer", {"content": "echo pasted\n"})
    enter_mode(shared, pane, "copy-mode")
    call = ("paste_buffer", {"pane_id": pane, "buffer_name": loaded["buffer_name"]})
    refused = await refused_typing(shared, client, "python", call, pane)
    assert "exit_copy_mode" in refused and "copy-mode" in refused
    names = shared.lines("list-buffers", "-F", "#{buffer_name}")
    assert loaded["buffer_name"] in names
    await client.ok("exit_copy_mode", {"pane_id": pane})
    await client.ok(*call)
    until_screen_shows(shared, pane, "pasted")
    shared.tmux("delete-buffer", "-b", loaded["buffer_name"])


@pytest.mark.parametrize("mode", ["view-mode", "tree-mode", "clock-mode"])
@pytest.mark.parametrize("profile", PROFILES)
async def test_send_keys_refuses_a_pane_in_view_mode_a_chooser_or_the_clock(
    shared: TmuxServer, profile_clients: dict[str, Client], profile: str, mode: str
) -> None:
    pane = shell_pane(shared)
    if mode == "clock-mode":
        shared.tmux("clock-mode", "-t", pane)
    else:
        enter_mode(shared, pane, mode)
    refused = await refused_typing(
        shared, profile_clients[profile], profile, send_text(profile, pane, "echo 12"), pane
    )
    assert mode in refused, refused
    input_line_is_empty(shared, pane)


async def test_exit_copy_mode_is_the_way_out_the_python_refusal_names(
    shared: TmuxServer, profile_clients: dict[str, Client]
) -> None:
    client = profile_clients["python"]
    pane = shell_pane(shared)
    enter_mode(shared, pane, "copy-mode")
    await refused_typing(shared, client, "python", send_text("python", pane, "echo out"), pane)
    await client.ok("exit_copy_mode", {"pane_id": pane})
    await client.ok(*send_text("python", pane, f"echo {'out'}-{uuid.uuid4().hex[:6]}"))
    until_screen_shows(shared, pane, "out-")


@pytest.mark.parametrize("profile", PROFILES)
async def test_keys_to_a_synchronized_pane_are_refused_when_a_pane_they_reach_is_in_a_mode(
    shared: TmuxServer, profile_clients: dict[str, Client], profile: str
) -> None:
    first = shell_pane(shared)
    second = shared.tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", first).strip()
    shared.wait_for_prompt(second)
    shared.tmux("set-option", "-w", "-t", first, "synchronize-panes", "on")
    enter_mode(shared, second, "copy-mode")
    refused = await refused_typing(
        shared, profile_clients[profile], profile, send_text(profile, first, "echo both"), first
    )
    assert second in refused and "synchronized with" in refused, refused
    assert where(shared, second)[0] == "copy-mode"
    input_line_is_empty(shared, first)
    input_line_is_empty(shared, second)


async def test_a_pane_that_enters_a_mode_after_the_check_is_still_not_typed_into(
    shared: TmuxServer,
) -> None:
    """The rust and swift families check every recipient first; a pane that enters a mode
    between that check and the typing is caught by tmux itself, in the typing's command."""
    tmux = Tmux(shared.server_env())
    server = tmux.server()
    pane = shell_pane(shared)
    checks = PaneInput(tmux, Ledger())
    checked = checks.check

    async def check_then_enter_copy_mode(*args: Any, **kwargs: Any) -> Any:
        found = await checked(*args, **kwargs)
        shared.tmux("copy-mode", "-t", pane)
        return found

    checks.check = check_then_enter_copy_mode  # type: ignore[method-assign]
    try:
        with pytest.raises(InputRefused, match="copy-mode"):
            await checks.send(
                server, pane, Typing("echo 90", enter=True), tool="send_keys", field="pane"
            )
    finally:
        await tmux.aclose()
    assert where(shared, pane)[0] == "copy-mode"
    input_line_is_empty(shared, pane)


# --- point 1: dead panes ------------------------------------------------------------------


def dead_pane(shared: TmuxServer, how: str = "exit 3") -> str:
    """A pane whose program printed two lines and ended (``how``), kept by remain-on-exit
    (set while the program still waits to start).

    tmux 3.3a scrolls the screen up a line to write "Pane is dead" at its foot (the first
    line goes to the history, the second stays on screen), and it does not always learn
    how the program ended (the pty's end can come first): such a pane is made again.
    """
    script = f"sleep 0.5; printf 'first\\nlast words\\n'; sleep 0.2; {how}"
    for _ in range(10):
        pane = shared.tmux(
            "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:", "sh", "-c", script
        ).strip()
        shared.tmux("set-option", "-w", "-t", pane, "remain-on-exit", "on")
        deadline = time.monotonic() + 10
        while shared.tmux("display-message", "-p", "-t", pane, "#{pane_dead}") != "1\n":
            assert time.monotonic() < deadline, f"{pane} never died"
            time.sleep(0.02)
        deadline = time.monotonic() + 1
        while time.monotonic() < deadline:
            ended = shared.tmux(
                "display-message", "-p", "-t", pane, "#{pane_dead_status}#{pane_dead_signal}"
            )
            if ended.strip():
                return pane
            time.sleep(0.02)
        shared.tmux("kill-pane", "-t", pane)
    raise AssertionError("tmux never learnt how a pane's program ended")


@pytest.mark.parametrize("profile", PROFILES)
async def test_every_typing_tool_refuses_a_dead_pane_naming_its_exit_status(
    shared: TmuxServer, profile_clients: dict[str, Client], profile: str
) -> None:
    pane = dead_pane(shared)
    for call in typing_calls(profile, pane):
        refused = await refused_typing(shared, profile_clients[profile], profile, call, pane)
        assert "is dead" in refused and "exited with status 3" in refused, refused
        assert "respawn_pane" in refused, refused


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_pane_killed_by_a_signal_is_refused_naming_the_signal(
    shared: TmuxServer, profile_clients: dict[str, Client], profile: str
) -> None:
    pane = dead_pane(shared, "kill -TERM $$")
    refused = await refused_typing(
        shared, profile_clients[profile], profile, send_key(profile, pane, "C-c"), pane
    )
    assert "killed by signal 15 (SIGTERM)" in refused, refused


# --- point 3: a dead pane says so wherever a pane is reported ------------------------------


def dead_notes_of(result: types.CallToolResult, pane: str) -> list[str]:
    return [note for note in notes(result) if note.startswith(f"Pane {pane} is dead")]


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_dead_pane_says_so_with_its_exit_status_wherever_a_pane_is_reported(
    shared: TmuxServer, profile_clients: dict[str, Client], profile: str
) -> None:
    client = profile_clients[profile]
    pane = dead_pane(shared)
    window = shared.tmux("display-message", "-p", "-t", pane, "#{window_id}").strip()
    corner = {"python": {"window_id": window}, "rust": {"window": window}}
    reports = [
        ("list_panes", {}),
        pane_info(profile, pane),
        snapshot(profile, pane),
        (
            "find_pane_by_position",
            {**corner.get(profile, {"windowId": window}), "corner": "top-left"},
        ),
    ]
    for tool, arguments in reports:
        result = await client.call(tool, arguments)
        assert not result.is_error, error_text(result)
        said = dead_notes_of(result, pane)
        assert len(said) == 1 and "exited with status 3" in said[0], (tool, notes(result))
        structured = result.structured_content or {}
        if profile == "swift":
            rows = structured.get("panes") or [structured["pane"]]
            assert [row["isDead"] for row in rows if row["id"] == pane] == [True], tool
        if profile == "rust" and tool == "snapshot_pane":
            assert structured["dead"] is True
    # A live pane carries no note.
    live = shell_pane(shared)
    assert notes(await client.call(*pane_info(profile, live))) == []


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_dead_panes_content_still_reads(
    shared: TmuxServer, profile_clients: dict[str, Client], profile: str
) -> None:
    pane = dead_pane(shared)
    lines = captured(profile, await profile_clients[profile].ok(*capture(profile, pane)))
    assert "last words" in lines, lines


def test_the_profiles_speak_of_the_same_pane_argument() -> None:
    assert set(PANE) == set(PROFILES)
