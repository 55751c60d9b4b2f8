"""Pitfalls users report against tools that drive tmux, each held by a test of its own
name, in every profile, on real tmux, here and through ssh (``shared_env``;
docs/pitfalls.md lists them with their sources).

The mode, dead-pane and hang pitfalls have their tests beside the fixes they needed
(``test_typing_refused_in_modes_and_dead_panes.py``,
``test_tmux_errors_come_back_at_once.py``); this module holds the rest. What a program
received is read from the program itself: a small reader in the pane writes the bytes
it got to a file, or the pane's own screen is read.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from scripts.lab.client import Client, open_client
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.family import until_running
from tests.helpers.profile_calls import (
    PROFILES,
    captured,
    command_output,
    command_status,
    pane_info,
    paste,
    run_command,
    send_key,
    send_text,
    until_screen_shows,
)
from tests.helpers.profile_calls import (
    capture_call as capture,
)
from tests.helpers.profile_calls import (
    refusal_message as message,
)
from tests.helpers.profile_calls import (
    snapshot as snapshot_call,
)
from tests.plugin import ALL_TOOLSETS, ServerEnv
from tmux_contract_mcp.handlers.tmux.transport.ssh import SSH_ENV

pytestmark = [pytest.mark.anyio, pytest.mark.reach("local", "ssh")]

WAIT = "10"


def profile_env(shared_env: ServerEnv, profile: str, **extra: str) -> dict[str, str]:
    """A profile's server reaching the module's tmux server, here or through ssh."""
    more = {"LIBTMUX_TOOLSETS": ALL_TOOLSETS} if profile != "python" else {}
    return shared_env(LIBTMUX_MCP_WAIT_MAX_SECONDS=WAIT, **more, **extra)


@pytest.fixture(scope="module")
async def profile_clients(shared_env: ServerEnv) -> AsyncIterator[dict[str, Client]]:
    async with (
        open_client(profile_env(shared_env, "python"), "python") as python,
        open_client(profile_env(shared_env, "rust"), "rust") as rust,
        open_client(profile_env(shared_env, "swift"), "swift") as swift,
    ):
        yield {"python": python, "rust": rust, "swift": swift}


def window(shared: TmuxServer, *command: str) -> str:
    """A new window running ``command`` (else the shell, prompt drawn); its pane."""
    pane = shared.tmux(
        "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:", *command
    ).strip()
    if not command:
        shared.wait_for_prompt(pane)
    return pane


READER = """
import os, sys, time, tty
out = sys.argv[1]
bracket = sys.argv[2] == "bracket"
if bracket:
    os.write(1, b"\\x1b[?2004h")
tty.setraw(0)
os.write(1, b"ready\\r\\n")
data = b""
end = time.monotonic() + 20
while time.monotonic() < end:
    data += os.read(0, 65536)
    # a carriage return ends the input, unless it came inside a bracketed paste
    if data.endswith(b"\\r") and data.count(b"\\x1b[200~") == data.count(b"\\x1b[201~"):
        break
open(out, "wb").write(data)
os.write(1, b"done\\r\\n")
time.sleep(30)
"""


def reader(shared: TmuxServer, bracket: bool = False) -> tuple[str, Path]:
    """A pane whose program reads raw bytes until a carriage return ends what it got, then
    writes them to a file (``bracket``: it turns bracketed paste on first)."""
    out = shared.tmpdir / f"read-{uuid.uuid4().hex[:8]}"
    script = shared.tmpdir / "reader.py"
    if not script.exists():
        script.write_text(READER)
    pane = window(shared, sys.executable, str(script), str(out), "bracket" if bracket else "-")
    until_screen_shows(shared, pane, "ready")
    return pane, out


def received(shared: TmuxServer, pane: str, out: Path) -> bytes:
    until_screen_shows(shared, pane, "done")
    return out.read_bytes()


# --- keys and pastes ----------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
async def test_enter_after_a_paste_arrives_after_the_paste_and_submits_it(
    shared: TmuxServer, profile_clients: dict[str, Client], profile: str
) -> None:
    """Pitfall: the Enter meant to submit a paste is absorbed into it, or never sent."""
    client = profile_clients[profile]
    pane, out = reader(shared, bracket=True)
    await client.ok(*paste(profile, pane, "line one\nline two"))
    await client.ok(*send_key(profile, pane, "Enter"))
    assert received(shared, pane, out) == b"\x1b[200~line one\rline two\x1b[201~\r"
    # Typed text with enter: the Enter is its own key, after the text.
    pane, out = reader(shared, bracket=True)
    await client.ok(*send_text(profile, pane, "typed"))
    assert received(shared, pane, out) == b"typed\r"


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_key_name_is_pressed_as_the_key_and_literal_text_stays_text(
    shared: TmuxServer, profile_clients: dict[str, Client], profile: str
) -> None:
    """Pitfall: key names such as C-c or Enter typed as the letters of their names."""
    client = profile_clients[profile]
    pane = window(shared)
    await client.ok(*send_text(profile, pane, "sleep 60"))
    until_running(shared, pane, "sleep")
    await client.ok(*send_key(profile, pane, "C-c"))
    until_running(shared, pane, "sh")
    pane, out = reader(shared)
    await client.ok(*send_text(profile, pane, "C-c Enter"))
    assert received(shared, pane, out) == b"C-c Enter\r"


@pytest.mark.parametrize("profile", PROFILES)
async def test_send_keys_with_enter_false_presses_no_enter(
    shared: TmuxServer, profile_clients: dict[str, Client], profile: str
) -> None:
    """Pitfall: an Enter forced after every send breaks programs that read keys one by one."""
    client = profile_clients[profile]
    pane, out = reader(shared)
    await client.ok(*send_text(profile, pane, "no enter", enter=False))
    await client.ok(*send_text(profile, pane, " then enter"))
    assert received(shared, pane, out) == b"no enter then enter\r"


@pytest.mark.parametrize("profile", PROFILES)
async def test_text_ending_in_a_semicolon_arrives_whole(
    shared: TmuxServer, profile_clients: dict[str, Client], profile: str
) -> None:
    """Pitfall: tmux reads an argument's trailing ';' as its command separator and drops it."""
    client = profile_clients[profile]
    for text in ("echo a;", ";", "a;;", "\\;"):
        pane, out = reader(shared)
        await client.ok(*send_text(profile, pane, text))
        assert received(shared, pane, out) == text.encode() + b"\r", text
    pane, out = reader(shared)
    await client.ok(*paste(profile, pane, "pasted;"))
    await client.ok(*send_key(profile, pane, "Enter"))
    assert received(shared, pane, out) == b"pasted;\r"


@pytest.mark.parametrize("profile", PROFILES)
async def test_text_longer_than_one_tmux_command_arrives_whole(
    shared: TmuxServer, profile_clients: dict[str, Client], profile: str
) -> None:
    """Pitfall: long text fails with "command too long", or arrives cut."""
    client = profile_clients[profile]
    text = "".join(f"{n:05d}é漢🙂 " for n in range(3000))  # ~45 KB of UTF-8
    pane, out = reader(shared)
    await client.ok(*send_text(profile, pane, text))
    assert received(shared, pane, out) == text.encode() + b"\r"
    pane, out = reader(shared)
    await client.ok(*paste(profile, pane, text))
    await client.ok(*send_key(profile, pane, "Enter"))
    assert received(shared, pane, out) == text.encode() + b"\r"


@pytest.mark.parametrize("profile", PROFILES)
async def test_keys_typed_while_the_pane_prints_heavily_all_arrive(
    shared: TmuxServer, profile_clients: dict[str, Client], profile: str
) -> None:
    """Pitfall: send-keys dropped while the pane's program floods it with output."""
    client = profile_clients[profile]
    out = shared.tmpdir / f"heavy-{uuid.uuid4().hex[:8]}"
    noise = "while :; do echo noise noise noise noise noise; done"
    pane = window(shared, "sh", "-c", f"({noise}) & exec sh -c 'cat > {shlex.quote(str(out))}'")
    until_screen_shows(shared, pane, "noise")
    lines = [f"line {n} {uuid.uuid4().hex}" for n in range(20)]
    for line in lines:
        await client.ok(*send_text(profile, pane, line))
    deadline = time.monotonic() + 20
    while (out.read_text().splitlines() if out.exists() else []) != lines:
        assert time.monotonic() < deadline, out.read_text() if out.exists() else "no file"
        time.sleep(0.05)
    shared.tmux("kill-pane", "-t", pane)


# --- commands at a shell ------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
async def test_run_command_returns_what_the_command_printed_not_the_line_typed(
    shared: TmuxServer, profile_clients: dict[str, Client], profile: str
) -> None:
    """Pitfall: the shell's echo of the typed line is taken for output (a wait for text
    that the command itself contains ends at once), or the line shows twice."""
    client = profile_clients[profile]
    pane = window(shared)
    answer = await client.ok(*run_command(profile, pane, "sleep 1; echo FINISHED; echo second"))
    assert command_output(profile, answer) == ["FINISHED", "second"]
    assert command_status(profile, answer) == 0


FLUSHING_START = (
    "sleep 1; "
    + shlex.quote(sys.executable)
    + " -c 'import termios; termios.tcflush(0, termios.TCIFLUSH)'; exec sh"
)
"""A shell start that throws away what was typed meanwhile, as zsh's line editor does."""


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_command_lost_to_a_shell_that_flushes_its_input_as_it_starts_is_reported(
    shared: TmuxServer, profile_clients: dict[str, Client], profile: str
) -> None:
    """Pitfall: keys typed while a shell starts are lost (zsh flushes its input as it
    starts), and the tool says the command ran. The command's own start marker never
    prints, so the call says nothing ran; once the prompt is there, it runs."""
    client = profile_clients[profile]
    pane = window(shared, "sh", "-c", FLUSHING_START)
    tool, arguments = run_command(profile, pane, "echo started", seconds=3)
    result = await client.call(tool, arguments)
    structured = result.structured_content or {}
    if profile == "python":
        assert structured["timed_out"] is True and structured["exit_status"] is None
        assert structured["output"] == [], structured["output"]  # not the line's echo
    elif profile == "rust":
        assert structured["outcome"] == "no_shell" and structured["exit_status"] is None
    else:
        said = message(profile, str(getattr(result.content[0], "text", "")))
        assert result.is_error and "start marker never printed" in said, said
    until_running(shared, pane, "sh")
    shared.wait_for_prompt(pane)
    if profile == "python":
        answer = await client.ok(*run_command(profile, pane, "echo started"))
        assert command_output(profile, answer) == ["started"]
    else:
        # The rust and swift contracts keep a pane whose line may still run reserved
        # until it completes or the pane exits: the next call is refused, saying so.
        said = message(profile, await client.error(*run_command(profile, pane, "echo again")))
        assert "is using it" in said or "already running" in said, said


# --- text that comes back -----------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
async def test_wide_characters_and_emoji_come_back_whole_in_a_capture(
    shared: TmuxServer, profile_clients: dict[str, Client], profile: str
) -> None:
    """Pitfall: double-width characters come back padded, cut or as other characters."""
    line = "漢字かな 🙂👍 é ✓ ｗｉｄｅ"
    pane = window(shared, "sh", "-c", f"printf '%s\\n' {shlex.quote(line)}; exec sleep 60")
    until_screen_shows(shared, pane, "✓")
    lines = captured(profile, await profile_clients[profile].ok(*capture(profile, pane)))
    assert line in lines, lines


BOX = (
    "\\033(0lqqk\\033(B\\n"  # the alternate character set: a box's top edge
    "\\033(0x\\033(Bok\\033(0x\\033(B\\n"
    "\\033[32m\\033(0mqqj\\033(B\\033[0m plain x\\n"  # in colour, then plain letters
)


@pytest.mark.parametrize("profile", PROFILES)
async def test_line_drawing_comes_back_as_the_lines_drawn_not_as_letters(
    shared: TmuxServer, profile_clients: dict[str, Client], profile: str
) -> None:
    """Pitfall: a box a program drew in the terminal's alternate character set (curses
    without UTF-8) is captured as the letters of that set ("lqqk" for its top edge)."""
    pane = window(shared, "sh", "-c", f"printf '{BOX}'; exec sleep 60")
    until_screen_shows(shared, pane, "plain x")
    client = profile_clients[profile]
    lines = captured(profile, await client.ok(*capture(profile, pane)))
    assert lines[:3] == ["┌──┐", "│ok│", "└──┘ plain x"], lines
    snapshot = json.dumps(await client.ok(*snapshot_call(profile, pane)), ensure_ascii=False)
    assert "┌──┐" in snapshot and "└──┘ plain x" in snapshot and "lqqk" not in snapshot


@pytest.mark.parametrize("profile", PROFILES)
async def test_text_outside_ascii_survives_a_server_started_in_the_c_locale(
    shared: TmuxServer, shared_env: ServerEnv, profile: str
) -> None:
    """Pitfall: under a non-UTF-8 locale tmux prints every byte outside printable ASCII as
    '_' (the field separator of a listing among them): listings came back empty. Through
    ssh the remote tmux runs in sshd's locale, which passes none (C) whatever ours is."""
    pane = window(shared, "sh", "-c", "printf 'é漢🙂 ok\\n'; exec cat")
    until_screen_shows(shared, pane, "ok")
    async with open_client(profile_env(shared_env, profile, LC_ALL="C"), profile) as client:
        listed = await client.ok("list_panes", {})
        rows = listed.get("result") or listed.get("panes") or []
        assert pane in {row.get("pane_id") or row.get("id") for row in rows}
        assert "é漢🙂 ok" in captured(profile, await client.ok(*capture(profile, pane)))
        await client.ok(*send_text(profile, pane, "ünï 🙂"))
        until_screen_shows(shared, pane, "ünï 🙂")


# --- sockets ------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
async def test_an_error_names_the_full_socket_path_tmux_was_asked_on(
    shared: TmuxServer, profile_clients: dict[str, Client], profile: str
) -> None:
    """Pitfall: "no server running on /tmp/tmux-0/default" when two profile_clients disagree on
    TMUX_TMPDIR or the socket name: every error says exactly which socket file it used."""
    tool, arguments = pane_info(profile, "%999999")
    said = message(profile, await profile_clients[profile].error(tool, arguments))
    assert shared.socket_path in said and "%999999" in said, said
    assert str(shared.tmpdir) in said


async def test_no_server_on_the_socket_is_said_with_its_full_path(
    shared_env: ServerEnv, tmp_path: Path
) -> None:
    """The same pitfall where nothing listens: python names the socket file it tried."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "TMUX_TMPDIR": str(tmp_path),
        "LIBTMUX_SOCKET": "nobody-here",
    }
    if SSH_ENV in shared_env():
        # The remote side resolves a socket name in its own TMUX_TMPDIR (sshd's, not ours):
        # through ssh the same socket file is named by its path.
        env = shared_env(**env, LIBTMUX_SOCKET_PATH=str(tmp_path / "nobody-here"))
    async with open_client(env, "python") as client:
        said = await client.error("list_sessions", {})
    assert str(tmp_path) in said and "nobody-here" in said, said
    assert "no tmux server" in said.lower() or "no server" in said.lower(), said
