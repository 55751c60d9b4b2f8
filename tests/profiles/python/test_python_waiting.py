"""wait_for_text of the python profile, through the MCP client against real tmux, on both transports.

One tmux server and one MCP server per transport serve the module. Every test
makes its own session, so the wait's output client (attached to the watched
pane's session) tells when the wait is waiting: only then is the pane made to
print. Nothing here asserts a duration.
"""

from __future__ import annotations

from typing import Any

import anyio
import anyio.to_thread
import pytest

from scripts.lab.client import Client, error_text, open_in_process
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.tmux import echoing, type_line
from tests.helpers.tmux import tmux_clients as clients
from tests.helpers.waiting import eventually, showing, wait_while, waiting_on

pytestmark = [pytest.mark.anyio, pytest.mark.transports("control", "subprocess")]

DEADLINE = 20.0  # only there to turn a hang into a failure


# --- fixtures ---------------------------------------------------------------------------


# --- helpers ----------------------------------------------------------------------------


# --- matching new output ----------------------------------------------------------------


async def test_a_line_printed_after_the_call_starts_is_matched(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(None, *echoing("before"))
    session, pane = made.name, made.pane
    await showing(shared, pane, "before")
    arguments = {"pane_id": pane, "patterns": ["nothing-like-it", "MARKER"], "timeout": 15}
    found = await wait_while(python_client, shared, session, arguments, "the MARKER-7 line")
    assert found["found"] is True
    assert found["outcome"] == "matched"
    assert found["matched_index"] == 1
    assert found["matched_lines"] == ["the MARKER-7 line"]
    assert found["saw_new_output"] is True
    assert found["matched_at_entry"] is False
    assert found["alternate_screen"] is False
    assert found["pane_id"] == pane
    assert found["effective_timeout"] == 15
    assert found["tail"][-2:] == ["before", "the MARKER-7 line"]


async def test_a_finished_wait_leaves_no_output_client_attached(
    shared: TmuxServer, python_client: Client
) -> None:
    # The answer goes out before the output client has detached (it is closed in the
    # background), but the client still goes once the wait has answered.
    made = shared.new_session(None, *echoing("before"))
    session, pane = made.name, made.pane
    await showing(shared, pane, "before")
    arguments = {"pane_id": pane, "patterns": ["DONE-MARK"], "timeout": 15}
    found = await wait_while(python_client, shared, session, arguments, "DONE-MARK")
    assert found["outcome"] == "matched"
    await eventually(
        lambda: session not in {name for _, name in clients(shared)}, "the output client to go"
    )


async def test_text_already_on_screen_does_not_end_the_wait(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(None, *echoing("OLD-MARK is here"))
    session, pane = made.name, made.pane
    await showing(shared, pane, "OLD-MARK")
    arguments = {"pane_id": pane, "patterns": ["old-mark"], "timeout": 0.5}
    timed_out = await python_client.ok("wait_for_text", arguments)
    assert timed_out["outcome"] == "timeout"
    assert timed_out["found"] is False
    assert timed_out["matched_at_entry"] is True
    assert timed_out["saw_new_output"] is False
    assert timed_out["matched_lines"] == []
    assert "OLD-MARK is here" in timed_out["tail"]

    # The same text printed again after the call starts does end it.
    again = await wait_while(
        python_client, shared, session, {**arguments, "timeout": 15}, "OLD-MARK once more"
    )
    assert again["outcome"] == "matched"
    assert again["matched_at_entry"] is True
    assert again["matched_lines"] == ["OLD-MARK once more"]


async def test_a_stop_pattern_ends_the_wait_as_stopped(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(None, *echoing())
    session, pane = made.name, made.pane
    arguments = {
        "pane_id": pane,
        "patterns": ["BUILD OK"],
        "stop": ["warning", "error:"],
        "timeout": 15,
    }
    stopped = await wait_while(
        python_client, shared, session, arguments, "compiling", "Error: boom"
    )
    assert stopped["outcome"] == "stopped"
    assert stopped["found"] is False
    assert stopped["matched_index"] == 1
    assert stopped["matched_lines"] == ["Error: boom"]
    assert stopped["saw_new_output"] is True


async def test_a_wait_with_nothing_printed_times_out(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = shared.new_session(None, *echoing("quiet")).pane
    await showing(shared, pane, "quiet")
    result = await python_client.ok(
        "wait_for_text", {"pane_id": pane, "patterns": ["never printed"], "timeout": 0.5}
    )
    assert result["outcome"] == "timeout"
    assert result["found"] is False
    assert result["matched_index"] is None
    assert result["saw_new_output"] is False
    assert result["effective_timeout"] == 0.5
    assert result["tail"] == ["quiet"]


async def test_with_no_patterns_any_new_output_ends_the_wait(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(None, *echoing())
    session, pane = made.name, made.pane
    result = await wait_while(
        python_client, shared, session, {"pane_id": pane, "timeout": 15}, "hello"
    )
    assert result["outcome"] == "any_output"
    assert result["found"] is True
    assert result["matched_index"] is None
    assert result["saw_new_output"] is True
    assert result["tail"] == ["hello"]


async def test_regex_and_match_case(shared: TmuxServer, python_client: Client) -> None:
    made = shared.new_session(None, *echoing())
    session, pane = made.name, made.pane
    # Literal by default: the dot is a dot.
    literal = await wait_while(
        python_client, shared, session, {"pane_id": pane, "patterns": ["v1.2"], "timeout": 15},
        "v1x2", "got V1.2",
    )  # fmt: skip
    assert literal["outcome"] == "matched"
    assert literal["matched_lines"] == ["got V1.2"]  # case-insensitive by default

    regex = await wait_while(
        python_client, shared, session,
        {"pane_id": pane, "patterns": ["^build (ok|fine) in [0-9]+s$"], "regex": True,
         "timeout": 15},
        "build ok in soon", "build fine in 12s",
    )  # fmt: skip
    assert regex["outcome"] == "matched"
    assert regex["matched_lines"] == ["build fine in 12s"]

    exact = await wait_while(
        python_client, shared, session,
        {"pane_id": pane, "patterns": ["Ready"], "match_case": True, "timeout": 15},
        "ready", "READY", "Ready now",
    )  # fmt: skip
    assert exact["outcome"] == "matched"
    assert exact["matched_lines"] == ["Ready now"]


async def test_text_without_a_newline_such_as_a_prompt_is_matched(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session()
    session, pane = made.name, made.pane
    # The command line itself never shows the prompt text (it is spelled in octal).
    command = "printf '\\120ROMPT> '"
    arguments = {"pane_id": pane, "stop": ["prompt>"], "patterns": ["never"], "timeout": 15}
    stopped = await wait_while(python_client, shared, session, arguments, command)
    assert stopped["outcome"] == "stopped"
    assert any(line.startswith("PROMPT>") for line in stopped["matched_lines"]), stopped


async def test_a_switch_to_the_alternate_screen_ends_the_wait(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session()
    session, pane = made.name, made.pane
    arguments = {"pane_id": pane, "patterns": ["never"], "timeout": 15}
    result = await wait_while(python_client, shared, session, arguments, "printf '\\033[?1049h'")
    assert result["outcome"] == "alternate_screen"
    assert result["found"] is False
    assert result["alternate_screen"] is True


async def test_on_the_alternate_screen_changed_rows_are_new_output(
    shared: TmuxServer, python_client: Client
) -> None:
    script = "printf '\\033[?1049h'; printf 'FULL SCREEN\\n'; stty -echo; exec cat"
    made = shared.new_session(None, "sh", "-c", script)
    session, pane = made.name, made.pane
    await showing(shared, pane, "FULL SCREEN")
    arguments = {"pane_id": pane, "patterns": ["full screen", "ALT-MARK"], "timeout": 15}
    result = await wait_while(python_client, shared, session, arguments, "ALT-MARK")
    assert result["outcome"] == "matched"
    assert result["matched_index"] == 1
    assert result["matched_at_entry"] is True
    assert result["alternate_screen"] is True
    assert result["tail"] == ["FULL SCREEN", "ALT-MARK"]


async def test_the_pane_defaults_to_the_active_pane_of_the_session_given(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(None, *echoing())
    session, pane = made.name, made.pane
    arguments = {"session_name": session, "patterns": ["by session"], "timeout": 15}
    result: dict[str, Any] = {}

    async def wait() -> None:
        result.update(await python_client.ok("wait_for_text", arguments))

    with anyio.fail_after(DEADLINE):
        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await waiting_on(shared, session)
            await anyio.to_thread.run_sync(type_line, shared, pane, "found by session")
    assert result["pane_id"] == pane
    assert result["outcome"] == "matched"


async def test_a_quiet_wait_asks_tmux_nothing_while_it_waits(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = shared.new_session(None, *echoing()).pane
    await python_client.ok("list_sessions")  # the transport's own client, if any, is up
    sent = []
    for timeout in (0.2, 2.2):
        mark = shared.mark()
        result = await python_client.ok(
            "wait_for_text", {"pane_id": pane, "patterns": ["never"], "timeout": timeout}
        )
        assert result["outcome"] == "timeout"
        sent.append([item.words for item in shared.sent_since(mark)])
    # Ten times longer, not one command more: no polling.
    assert sent[0], "a wait reads the pane at least once"
    assert sent[0] == sent[1]


# --- the ceiling, progress and cancellation ---------------------------------------------


async def test_the_timeout_is_clamped_to_the_ceiling_and_reported(shared: TmuxServer) -> None:
    pane = shared.new_session(None, *echoing()).pane
    env = shared.server_env(LIBTMUX_MCP_WAIT_MAX_SECONDS="1")
    with anyio.fail_after(DEADLINE):
        async with open_in_process(env, "python") as clamped:
            result = await clamped.ok(
                "wait_for_text", {"pane_id": pane, "patterns": ["never"], "timeout": 60}
            )
            assert result["effective_timeout"] == 1
            assert result["outcome"] == "timeout"
            # Zero or less reads the pane once and does not wait.
            at_once = await clamped.ok(
                "wait_for_text", {"pane_id": pane, "patterns": ["never"], "timeout": -5}
            )
            assert at_once["effective_timeout"] == 0
            assert at_once["outcome"] == "timeout"


async def test_a_ceiling_that_is_not_a_number_is_reported(shared: TmuxServer) -> None:
    pane = shared.new_session(None, *echoing()).pane
    env = shared.server_env(LIBTMUX_MCP_WAIT_MAX_SECONDS="soon")
    with anyio.fail_after(DEADLINE):
        async with open_in_process(env, "python") as broken:
            message = await broken.error("wait_for_text", {"pane_id": pane, "timeout": 1})
    assert "LIBTMUX_MCP_WAIT_MAX_SECONDS" in message and "'soon'" in message


async def test_progress_is_notified_while_waiting(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = shared.new_session(None, *echoing()).pane
    notes: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        notes.append((progress, total, message))

    with anyio.fail_after(DEADLINE):
        result = await python_client.session.call_tool(
            "wait_for_text",
            {"pane_id": pane, "patterns": ["never"], "timeout": 2.5},
            progress_callback=on_progress,
        )
    assert not result.is_error, error_text(result)
    assert result.structured_content is not None
    assert result.structured_content["outcome"] == "timeout"
    assert notes, "no progress notification during a 2.5 s wait"
    assert all(total == 2.5 for _, total, _ in notes)
    assert [progress for progress, _, _ in notes] == sorted(p for p, _, _ in notes)
    assert all(message and pane in message for _, _, message in notes)


# --- refusals ---------------------------------------------------------------------------


async def test_bad_arguments_are_refused_before_tmux_runs(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = shared.new_session(None, *echoing()).pane
    mark = shared.mark()
    message = await python_client.error(
        "wait_for_text", {"pane_id": pane, "patterns": ["ok", "(unclosed"], "regex": True}
    )
    assert "patterns[1]" in message and "(unclosed" in message and "regular expression" in message
    message = await python_client.error(
        "wait_for_text", {"pane_id": pane, "patterns": ["ok"], "stop": ["[z-a]"], "regex": True}
    )
    assert "stop[0]" in message
    message = await python_client.error("wait_for_text", {"pane_id": pane, "patterns": [""]})
    assert "patterns[0]" in message and "empty" in message
    message = await python_client.error("wait_for_text", {"pane_id": "3"})
    assert "pane_id" in message and "list_panes" in message
    shared.assert_nothing_sent_since(mark)
    # Not a regex: the same text is a literal, and fine.
    result = await python_client.ok(
        "wait_for_text", {"pane_id": pane, "patterns": ["(unclosed"], "timeout": 0}
    )
    assert result["outcome"] == "timeout"


async def test_a_pane_that_does_not_exist_is_named(
    shared: TmuxServer, python_client: Client
) -> None:
    message = await python_client.error("wait_for_text", {"pane_id": "%9999", "timeout": 1})
    assert "%9999" in message and "list_panes" in message
