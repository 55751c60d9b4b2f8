"""send_keys, send_keys_batch, paste_text and run_command of the python profile.

Over stdio against real tmux, on both transports: one tmux server and one MCP
server per transport serve the module, and every test makes its own windows.
What was typed is read back from the pane: a ``cat`` with the terminal's echo off
shows each line exactly as it arrived, a ``cat > FILE`` keeps it byte for byte.
Nothing here asserts a duration.
"""

from __future__ import annotations

import math
import shlex
import time
import uuid
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import pytest

from scripts.lab.client import Client, error_text, open_in_process
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.family import ending_job
from tests.helpers.running import at_shell_prompt as at_prompt
from tests.helpers.running import current_command
from tests.helpers.running import run_ok as run
from tests.helpers.running import shell_at_prompt as shell
from tests.helpers.waiting import joined_screen as screen
from tests.helpers.waiting import pane_in_main as window
from tests.helpers.waiting import quiet_cat, until

pytestmark = [pytest.mark.anyio, pytest.mark.transports("control", "subprocess")]

DEADLINE = 20.0  # only there to turn a hang into a failure


# --- fixtures and helpers ---------------------------------------------------------------


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "marker"


def tricky(marker: Path) -> list[str]:
    """Values that would run something, or mean something to tmux, if not kept literal."""
    return [
        "semi;colon;",
        "#{session_name} and #{pane_id}",
        f"#(touch {marker})",
        f"$(touch {marker}) `touch {marker}`",
        "quotes ' and \" here",
        "é漢 non-ASCII",
        "-l looks like a flag",
    ]


async def shows(server: TmuxServer, pane: str, *lines: str) -> None:
    """Until the pane shows ``lines`` as consecutive rows."""

    def found() -> bool:
        rows = screen(server, pane)
        size = len(lines)
        return any(rows[at : at + size] == list(lines) for at in range(len(rows) - size + 1))

    await until(found, f"{lines!r} in {pane}")


async def fenced(client: Client, server: TmuxServer, pane: str) -> list[str]:
    """Everything typed into a quiet cat before now: a fence line is sent and awaited."""
    fence = f"fence-{uuid.uuid4().hex[:6]}"
    await client.ok("send_keys", {"pane_id": pane, "keys": fence})
    await shows(server, pane, fence)
    rows = screen(server, pane)
    return rows[: rows.index(fence)]


# --- send_keys --------------------------------------------------------------------------


async def test_send_keys_types_a_line_and_presses_enter(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = await shell(shared)
    result = await python_client.ok("send_keys", {"pane_id": pane, "keys": "echo $((6 * 7))"})
    assert result == {"result": f"Keys sent to pane {pane}"}
    await shows(shared, pane, "42")


async def test_without_enter_the_text_waits_on_the_prompt(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = await shell(shared)
    await python_client.ok("send_keys", {"pane_id": pane, "keys": "echo not-yet", "enter": False})
    await until(lambda: any("echo not-yet" in row for row in screen(shared, pane)), "the text")
    assert "not-yet" not in screen(shared, pane)
    # Empty keys with Enter press only Enter.
    await python_client.ok("send_keys", {"pane_id": pane, "keys": ""})
    await shows(shared, pane, "not-yet")


async def test_a_key_name_interrupts_a_running_command(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = await shell(shared)
    await python_client.ok("send_keys", {"pane_id": pane, "keys": "sleep 100"})
    await until(lambda: current_command(shared, pane) == "sleep", "sleep to run")
    await python_client.ok("send_keys", {"pane_id": pane, "keys": "C-c", "enter": False})
    await until(lambda: current_command(shared, pane) == "sh", "sleep to be interrupted")


async def test_literal_types_a_key_name_as_text(shared: TmuxServer, python_client: Client) -> None:
    pane = await quiet_cat(shared)
    await python_client.ok("send_keys", {"pane_id": pane, "keys": "Enter", "literal": True})
    await python_client.ok("send_keys", {"pane_id": pane, "keys": "C-c is no key name here"})
    assert await fenced(python_client, shared, pane) == [
        "ready",
        "Enter",
        "C-c is no key name here",
    ]


async def test_suppress_history_types_one_leading_space(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = await quiet_cat(shared)
    for literal in (False, True):
        arguments = {"keys": f"spaced-{literal}", "literal": literal, "suppress_history": True}
        await python_client.ok("send_keys", {"pane_id": pane, **arguments})
    assert await fenced(python_client, shared, pane) == ["ready", " spaced-False", " spaced-True"]


async def test_keys_reach_the_pane_as_typed_and_run_nothing(
    shared: TmuxServer, python_client: Client, marker: Path
) -> None:
    values = [*tricky(marker), "two\nlines"]
    pane = await quiet_cat(shared)
    for literal in (True, False):
        for value in values:
            await python_client.ok(
                "send_keys", {"pane_id": pane, "keys": value, "literal": literal}
            )
    typed = [line for value in values for line in value.split("\n")]
    assert await fenced(python_client, shared, pane) == ["ready", *typed, *typed]

    # At a shell prompt, without Enter: shown as typed, and neither tmux nor the shell ran it.
    prompt = await shell(shared)
    line = f"#{{session_name}}; #(touch {marker}) $(touch {marker})"
    await python_client.ok("send_keys", {"pane_id": prompt, "keys": line, "enter": False})
    await until(lambda: any(row.endswith(line) for row in screen(shared, prompt)), "the line")
    assert not marker.exists()


async def test_long_text_is_typed_whole(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    kept = tmp_path / "typed"
    pane = await quiet_cat(shared, into=kept)
    text = "\n".join(f"{n:04d} " + "漢" * 40 for n in range(100))  # ~12 KB: several pieces
    for literal in (True, False):
        await python_client.ok("send_keys", {"pane_id": pane, "keys": text, "literal": literal})
    await until(partial(holds, kept, f"{text}\n{text}\n"), "the long text, twice")


async def test_send_keys_names_a_bad_or_missing_pane(
    shared: TmuxServer, python_client: Client
) -> None:
    mark = shared.mark()
    message = await python_client.error("send_keys", {"pane_id": "3", "keys": "x"})
    assert "pane_id" in message and "list_panes" in message
    message = await python_client.error("send_keys", {"keys": "x", "window_id": "main"})
    assert "window_id" in message
    message = await python_client.error(
        "send_keys", {"pane_id": "%1", "keys": "a\0b", "literal": True}
    )
    assert "keys" in message and "NUL" in message
    shared.assert_nothing_sent_since(mark)
    message = await python_client.error("send_keys", {"pane_id": "%9999", "keys": "x"})
    assert "%9999" in message and shared.name in message and "list_panes" in message


async def test_send_keys_without_a_target_types_into_the_session_active_pane(
    shared: TmuxServer, python_client: Client
) -> None:
    session = f"s-{uuid.uuid4().hex[:6]}"
    pane = shared.tmux(
        "new-session", "-d", "-s", session, "-P", "-F", "#{pane_id}",
        "sh", "-c", "stty -echo; echo ready; exec cat",
    ).strip()  # fmt: skip
    await until(lambda: "ready" in screen(shared, pane), "the pane")
    result = await python_client.ok("send_keys", {"session_name": session, "keys": "by-session"})
    assert result["result"] == f"Keys sent to pane {pane}"
    await shows(shared, pane, "by-session")


# --- send_keys_batch --------------------------------------------------------------------


async def test_a_batch_sends_each_operation_in_order(
    shared: TmuxServer, python_client: Client
) -> None:
    first, second = await quiet_cat(shared), await quiet_cat(shared)
    operations = [
        {"pane_id": first, "keys": "one"},
        {"pane_id": second, "keys": "two", "suppress_history": True},
        {"pane_id": first, "keys": "Enter", "literal": True},
        {"pane_id": second, "keys": "three", "enter": False},
        {"pane_id": second, "keys": "Enter", "enter": False},
    ]
    started = time.monotonic()
    result = await python_client.ok("send_keys_batch", {"operations": operations})
    wall = time.monotonic() - started
    assert [row["index"] for row in result["results"]] == [0, 1, 2, 3, 4]
    assert [row["pane_id"] for row in result["results"]] == [first, second, first, second, second]
    assert all(row["success"] and row["error"] is None for row in result["results"])
    # One after another inside the call (each rounded to milliseconds).
    assert sum(row["elapsed_seconds"] for row in result["results"]) <= wall + 0.0005 * 5
    assert (result["succeeded"], result["failed"], result["stopped_at"]) == (5, 0, None)
    assert await fenced(python_client, shared, first) == ["ready", "one", "Enter"]
    assert await fenced(python_client, shared, second) == ["ready", " two", "three"]


async def test_a_failed_operation_stops_the_batch_unless_told_to_continue(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = await quiet_cat(shared)
    operations = [
        {"pane_id": pane, "keys": "s1"},
        {"pane_id": "%9999", "keys": "lost"},
        {"pane_id": pane, "keys": "s3"},
    ]
    stopped = await python_client.ok("send_keys_batch", {"operations": operations})
    assert [row["success"] for row in stopped["results"]] == [True, False]
    failure = stopped["results"][1]
    assert failure["pane_id"] == "%9999" and "%9999" in failure["error"]
    assert shared.name in failure["error"]
    assert (stopped["succeeded"], stopped["failed"], stopped["stopped_at"]) == (1, 1, 1)
    assert await fenced(python_client, shared, pane) == ["ready", "s1"]

    going = await python_client.ok(
        "send_keys_batch", {"operations": operations, "on_error": "continue"}
    )
    assert [row["success"] for row in going["results"]] == [True, False, True]
    assert (going["succeeded"], going["failed"], going["stopped_at"]) == (2, 1, None)
    assert (await fenced(python_client, shared, pane))[-2:] == ["s1", "s3"]


async def test_a_malformed_operation_refuses_the_whole_batch(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = await quiet_cat(shared)
    good = {"pane_id": pane, "keys": "never"}
    cases = [
        ([good, {"pane_id": "x", "keys": "k"}], "operations[1].pane_id"),
        ([{"window_id": "1", "keys": "k"}, good], "operations[0].window_id"),
        ([good, {"session_id": "main", "keys": "k"}], "operations[1].session_id"),
        ([good, {"pane_id": pane, "keys": "a\0b"}], "operations[1].keys"),
    ]
    mark = shared.mark()
    for operations, field in cases:
        message = await python_client.error("send_keys_batch", {"operations": operations})
        assert field in message
    message = await python_client.error("send_keys_batch", {"operations": [good], "timeout": 0})
    assert "timeout" in message
    shared.assert_nothing_sent_since(mark)
    assert await fenced(python_client, shared, pane) == ["ready"]


async def test_a_batch_out_of_time_stops_with_a_timeout_row(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = await quiet_cat(shared)
    operations = [{"pane_id": pane, "keys": f"t{n}"} for n in range(3)]
    result = await python_client.ok("send_keys_batch", {"operations": operations, "timeout": 1e-9})
    assert result["stopped_at"] == 0
    assert result["failed"] == 1 and result["succeeded"] == 0
    assert "timeout" in result["results"][0]["error"]
    # With room enough, all of them run.
    result = await python_client.ok("send_keys_batch", {"operations": operations, "timeout": 10})
    assert result["succeeded"] == 3


# --- paste_text -------------------------------------------------------------------------


async def test_paste_text_delivers_the_text_byte_for_byte(
    shared: TmuxServer, python_client: Client, tmp_path: Path, marker: Path
) -> None:
    for bracket in (True, False):
        kept = tmp_path / f"pasted-{bracket}"
        pane = await quiet_cat(shared, into=kept)
        text = "\n".join([*tricky(marker), "\ttab", "last line"]) + "\n"
        result = await python_client.ok(
            "paste_text", {"pane_id": pane, "text": text, "bracket": bracket}
        )
        assert result == {"result": f"Text pasted to pane {pane}"}
        await until(partial(holds, kept, text), "the pasted text")
    assert not marker.exists()
    assert not [name for name in shared.lines("list-buffers", "-F", "#{buffer_name}")]


async def test_long_text_is_pasted_whole(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    kept = tmp_path / "long"
    pane = await quiet_cat(shared, into=kept)
    text = "".join(f"{n:05d} " + "é" * 90 + "\n" for n in range(300))  # ~57 KB
    await python_client.ok("paste_text", {"pane_id": pane, "text": text})
    await until(lambda: _read(kept) == text, "the long text")
    assert not shared.lines("list-buffers", "-F", "#{buffer_name}")


@pytest.mark.parametrize("transport", ["control", "subprocess"])
async def test_long_text_is_loaded_from_a_path_whose_hashes_tmux_would_expand(
    shared: TmuxServer, tmp_path: Path, marker: Path, transport: str
) -> None:
    """Long text reaches tmux as a file under TMPDIR: a ``#[``, ``#{…}`` or ``#(…)`` in
    that path is kept literal (``##[`` would reach tmux as two characters, ``#(`` would run)."""
    scratch = tmp_path / f"a#[b]#{{pane_id}}##c#(touch {marker})"
    scratch.mkdir(parents=True)
    kept = tmp_path / "long"
    pane = await quiet_cat(shared, into=kept)
    text = "".join(f"{n:05d} #(x) #{{pane_id}}\n" for n in range(1000))  # over set-buffer's limit
    env = shared.server_env(TMUX_CONTRACT_MCP_TRANSPORT=transport, TMPDIR=str(scratch))
    async with open_in_process(env, "python") as client:
        await client.ok("paste_text", {"pane_id": pane, "text": text, "bracket": False})
    await until(lambda: _read(kept) == text, "the long text")
    assert not marker.exists()
    assert not list(scratch.iterdir())  # the private file is gone


async def test_bracketed_paste_wraps_the_text_when_the_program_asks(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = await quiet_cat(shared, vis=True)
    await python_client.ok("paste_text", {"pane_id": pane, "text": "bare\n", "bracket": False})
    await shows(shared, pane, "bare")
    await python_client.ok("paste_text", {"pane_id": pane, "text": "alpha\nbeta\n"})
    await shows(shared, pane, "^[[200~alpha", "beta")


async def test_paste_text_refusals(shared: TmuxServer, python_client: Client) -> None:
    mark = shared.mark()
    message = await python_client.error("paste_text", {"pane_id": "%1", "text": ""})
    assert "text" in message and "empty" in message
    message = await python_client.error("paste_text", {"pane_id": "1", "text": "x"})
    assert "pane_id" in message
    shared.assert_nothing_sent_since(mark)
    message = await python_client.error("paste_text", {"pane_id": "%9999", "text": "x"})
    assert "%9999" in message and shared.name in message
    assert not shared.lines("list-buffers", "-F", "#{buffer_name}")


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def holds(path: Path, text: str) -> bool:
    return _read(path) == text


# --- run_command ------------------------------------------------------------------------


async def test_run_command_returns_output_and_exit_status(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = await shell(shared)
    started = time.monotonic()
    result = await run(python_client, pane, "echo one; echo two")
    wall = time.monotonic() - started
    assert result["output"] == ["one", "two"]
    assert result["exit_status"] == 0
    assert result["timed_out"] is False
    assert result["pane_id"] == pane
    assert result["effective_timeout"] == 30
    assert result["output_truncated"] is False and result["output_truncated_lines"] == 0
    assert result["elapsed_seconds"] <= wall + 0.0005  # rounded to milliseconds
    # It counts from typing to the end: a command that sleeps takes at least its sleep.
    assert (await run(python_client, pane, "sleep 0.3"))["elapsed_seconds"] >= 0.3
    failed = await run(python_client, pane, "echo oops >&2; (exit 3)")
    assert (failed["exit_status"], failed["output"]) == (3, ["oops"])
    assert (await run(python_client, pane, "true"))["output"] == []
    assert (await run(python_client, pane, "printf 'no newline'"))["output"] == ["no newline"]
    assert (await run(python_client, pane, "printf 'a\\n\\nb\\n\\n'"))["output"] == [
        "a",
        "",
        "b",
        "",
    ]
    # The shell is the pane's own: what the command changes stays.
    await run(python_client, pane, "cd /tmp && export TCM_SEEN=kept")
    assert (await run(python_client, pane, 'echo "$PWD $TCM_SEEN"'))["output"] == ["/tmp kept"]


async def test_a_syntax_error_is_a_failed_command_not_a_hang(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = await shell(shared)
    for command in ("if then", "echo 'unterminated"):
        result = await run(python_client, pane, command)
        assert result["timed_out"] is False
        assert result["exit_status"] not in (None, 0)
    assert (await run(python_client, pane, "echo still fine"))["output"] == ["still fine"]


async def test_a_command_typed_as_the_shell_starts_comes_back_clean(
    shared: TmuxServer, python_client: Client
) -> None:
    # Typed before the shell prints its first prompt, the line is echoed by the terminal
    # and the prompt follows it, on the row where the output starts.
    pane = window(shared, "sh")
    assert (await run(python_client, pane, "echo early"))["output"] == ["early"]


async def test_a_pane_whose_program_is_still_tmuxs_own_copy_is_waited_for_not_refused(
    shared: TmuxServer, python_client: Client
) -> None:
    # A new pane runs a copy of tmux until it becomes the shell: here that moment is
    # stretched to 0.6 s by a process named "tmux" that then becomes sh.
    pane = window(shared, "bash", "-c", "exec -a tmux bash -c 'sleep 0.6; exec sh'")
    await until(lambda: current_command(shared, pane) == "tmux", "the copy named tmux")
    assert (await run(python_client, pane, "echo started"))["output"] == ["started"]


async def test_the_command_reaches_the_shell_as_written(
    shared: TmuxServer, python_client: Client, marker: Path
) -> None:
    pane = await shell(shared)
    values = [*tricky(marker), "two\nlines", "tab\there", "back\\slash!"]
    command = "printf '%s\\n' " + " ".join(shlex.quote(value) for value in values)
    result = await run(python_client, pane, command)
    expected = [line for value in values for line in value.split("\n")]
    assert result["output"] == [line.expandtabs() for line in expected]  # tabs are cursor moves
    assert result["exit_status"] == 0
    # Several lines, a comment and a heredoc are one command.
    script = "cat <<'EOF'\n#{session_name} $HOME\nEOF\n# a comment; echo no\necho done"
    result = await run(python_client, pane, script)
    assert result["output"] == ["#{session_name} $HOME", "done"]
    assert not marker.exists()


async def test_a_command_that_outlives_its_timeout_is_left_running(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = await shell(shared)
    result = await run(python_client, pane, "echo started; sleep 30", timeout=0.5)
    assert result["timed_out"] is True
    assert result["exit_status"] is None
    assert result["effective_timeout"] == 0.5
    assert result["output"] == ["started"]
    assert current_command(shared, pane) == "sleep"
    # The pane is busy: a second command is refused, naming what runs there.
    message = await python_client.error("run_command", {"pane_id": pane, "command": "echo no"})
    assert "'sleep'" in message and pane in message and "C-c" in message
    await python_client.ok("send_keys", {"pane_id": pane, "keys": "C-c", "enter": False})
    await until(lambda: current_command(shared, pane) == "sh", "the interrupt")
    assert (await run(python_client, pane, "echo back"))["output"] == ["back"]


async def test_long_output_comes_back_whole_or_counted(
    shared: TmuxServer, python_client: Client
) -> None:
    roomy = await shell(shared, history=20000)
    whole = await run(python_client, roomy, "seq 1 10000")
    assert whole["output"] == [str(n) for n in range(1, 10001)]
    assert whole["output_truncated"] is False
    newest = await run(python_client, roomy, "seq 1 10000", max_lines=100)
    assert newest["output"] == [str(n) for n in range(9901, 10001)]
    assert (newest["output_truncated"], newest["output_truncated_lines"]) == (True, 9900)

    # A pane keeping 2,000 lines of history cannot give them all back: the lines that
    # scrolled out are counted.
    small = await shell(shared)
    cut = await run(python_client, small, "seq 1 10000")
    dropped = cut["output_truncated_lines"]
    assert cut["output_truncated"] is True and 0 < dropped < 10000
    assert cut["output"] == [str(n) for n in range(dropped + 1, 10001)]


async def test_history_stays_clean_in_bash(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    history = tmp_path / "bash_history"
    pane = window(shared, "env", f"HISTFILE={history}", "bash", "--norc", "--noprofile")
    await until(lambda: current_command(shared, pane) == "bash", "bash")
    tag = uuid.uuid4().hex[:6]
    await run(python_client, pane, f"echo secret-{tag}")
    await run(python_client, pane, f"echo kept-{tag}", suppress_history=False)
    listed = await run(python_client, pane, "history")
    assert [line.split(None, 1)[1] for line in listed["output"]] == [f"echo kept-{tag}"]


async def test_run_command_refuses_a_pane_not_at_a_shell_prompt(
    shared: TmuxServer, python_client: Client
) -> None:
    busy = await quiet_cat(shared)
    message = await python_client.error("run_command", {"pane_id": busy, "command": "echo x"})
    assert "'cat'" in message and busy in message and "send_keys" in message
    copying = await shell(shared)
    shared.tmux("copy-mode", "-t", copying)
    message = await python_client.error("run_command", {"pane_id": copying, "command": "echo x"})
    assert "copy mode" in message and "exit_copy_mode" in message
    shared.tmux("send-keys", "-t", copying, "-X", "cancel")


async def test_run_command_waits_for_a_job_that_is_ending_to_give_the_prompt_back(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = await shell(shared)
    ending_job(shared, pane)
    result = await run(python_client, pane, "echo next")
    assert (result["output"], result["exit_status"]) == (["next"], 0), result


async def test_run_command_refuses_bad_arguments_before_tmux_runs(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = await shell(shared)
    mark = shared.mark()
    cases: list[tuple[dict[str, Any], str]] = [
        ({"pane_id": "x1", "command": "true"}, "pane_id"),
        ({"pane_id": pane, "command": "  \n"}, "command"),
        ({"pane_id": pane, "command": "a\0b"}, "command"),
        ({"pane_id": pane, "command": "true", "max_lines": 0}, "max_lines"),
        ({"session_id": "main", "command": "true"}, "session_id"),
    ]
    for arguments, field in cases:
        message = await python_client.error("run_command", arguments)
        assert field in message, message
    shared.assert_nothing_sent_since(mark)
    message = await python_client.error("run_command", {"pane_id": "%9999", "command": "true"})
    assert "%9999" in message and shared.name in message


async def test_a_command_that_closes_its_pane_is_reported(
    shared: TmuxServer, python_client: Client
) -> None:
    first = await shell(shared)
    second = shared.tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", first).strip()
    await until(lambda: at_prompt(shared, second), "the shell's prompt")
    message = await python_client.error("run_command", {"pane_id": second, "command": "exit"})
    assert second in message and "went away" in message


async def test_progress_is_notified_while_the_command_runs(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = await shell(shared)
    notes: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        notes.append((progress, total, message))

    arguments = {"pane_id": pane, "command": "sleep 1.3; echo slept", "timeout": 10}
    with anyio.fail_after(DEADLINE):
        result = await python_client.session.call_tool(
            "run_command", arguments, progress_callback=on_progress
        )
    assert not result.is_error, error_text(result)
    assert result.structured_content is not None
    assert result.structured_content["output"] == ["slept"]
    assert notes, "no progress notification during a 1.3 s command"
    assert all(total == 10 and message and pane in message for _, total, message in notes)


async def test_the_timeout_is_clamped_to_the_ceiling(shared: TmuxServer) -> None:
    pane = await shell(shared)
    env = shared.server_env(LIBTMUX_MCP_WAIT_MAX_SECONDS="0.5")
    with anyio.fail_after(DEADLINE):
        async with open_in_process(env, "python") as clamped:
            result = await clamped.ok(
                "run_command", {"pane_id": pane, "command": "sleep 5", "timeout": 60}
            )
            assert result["effective_timeout"] == 0.5
            assert result["timed_out"] is True
            await clamped.ok("send_keys", {"pane_id": pane, "keys": "C-c", "enter": False})
            await until(lambda: current_command(shared, pane) == "sh", "the interrupt")
            # 0 or less types the command and returns at once.
            at_once = await clamped.ok(
                "run_command", {"pane_id": pane, "command": "sleep 5", "timeout": -1}
            )
            assert at_once["effective_timeout"] == 0
            assert at_once["timed_out"] is True
            assert not math.isnan(at_once["elapsed_seconds"])
            await until(lambda: current_command(shared, pane) == "sleep", "the command")
            error = await clamped.call("run_command", {"pane_id": pane, "command": "true"})
            assert error.is_error and "'sleep'" in error_text(error)
    shared.tmux("send-keys", "-t", pane, "C-c")
