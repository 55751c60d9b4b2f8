"""The argument rules end to end: the installed server over pipes, a real tmux server.

A lone surrogate is valid JSON (``"\\ud800"``) but no UTF-8, and the SDK's own
parser refuses a line holding one; such a call must still reach the server
and be refused by the text rule with an answer, as must NUL. Integral floats
are integers, and a pattern's ``$`` is the end of the text, in every checker.

One tmux server and one server per profile for the module: a refused call runs
nothing, and each test reads its own answers.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from scripts.lab.client import COMMAND
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.tmux import wait_for
from tests.helpers.wire import INITIALIZE, INITIALIZED, read_line

RULE = "(rule: text without NUL or lone surrogates)"


class Wire:
    """One server over plain pipes; requests written as JSON lines, answers read back."""

    def __init__(self, tmux: TmuxServer, profile: str) -> None:
        self.process = subprocess.Popen(
            [COMMAND, "--profile", profile],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=tmux.server_env(),
            bufsize=0,
        )
        self.next_id = 100
        self.write(json.dumps(INITIALIZE))
        assert self.answer()["id"] == 1
        self.write(json.dumps(INITIALIZED))

    def write(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode("ascii") + b"\n")

    def answer(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        return dict(json.loads(read_line(self.process.stdout)))

    def call(self, tool: str, arguments: Any) -> dict[str, Any]:
        """A tools/call; json.dumps spells a lone surrogate as the escape ``\\ud800``."""
        self.next_id += 1
        request = {
            "jsonrpc": "2.0",
            "id": self.next_id,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
        self.write(json.dumps(request))
        answer = self.answer()
        assert answer["id"] == self.next_id, answer
        return dict(answer["result"])

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def python_wire(shared: TmuxServer) -> Iterator[Wire]:
    wire = Wire(shared, "python")
    try:
        yield wire
    finally:
        wire.close()


@pytest.fixture(scope="module")
def swift_wire(shared: TmuxServer) -> Iterator[Wire]:
    wire = Wire(shared, "swift")
    try:
        yield wire
    finally:
        wire.close()


def text_of(result: dict[str, Any]) -> str:
    return " ".join(block["text"] for block in result["content"])


# (tool, arguments, the field path the answer must name)
BROKEN_TEXT: dict[str, tuple[str, Any, str]] = {
    "lone surrogate in a value": ("list_panes", {"session_name": "main\ud800"}, "`session_name`"),
    "low surrogate first": ("list_panes", {"session_name": "\udc00main"}, "`session_name`"),
    "NUL in a value": ("list_panes", {"session_name": "ma\x00in"}, "`session_name`"),
    "lone surrogate in a key": (
        "list_panes",
        {"session\ud800": "main"},
        "the key 'session\\ud800'",
    ),
    "inside a batch operation": (
        "call_read_tools_batch",
        {"operations": [{"tool": "list_panes", "arguments": {"session_name": "\ud83d"}}]},
        "`operations[0].arguments.session_name`",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN_TEXT))
def test_text_tmux_cannot_carry_is_refused_naming_field_and_rule_and_nothing_runs(
    shared: TmuxServer, python_wire: Wire, case: str
) -> None:
    tmux = shared
    tool, arguments, where = BROKEN_TEXT[case]
    mark = tmux.mark()
    result = python_wire.call(tool, arguments)
    assert result["isError"] is True, result
    message = text_of(result)
    assert where in message and RULE in message and "Nothing was run" in message, message
    tmux.assert_nothing_sent_since(mark)
    # The same call with clean text runs, and the log sees it.
    assert python_wire.call("list_panes", {"session_name": "main"})["isError"] is False
    assert tmux.sent_since(mark)


def test_a_lone_surrogate_in_a_swift_list_is_refused_with_its_index(swift_wire: Wire) -> None:
    result = swift_wire.call("get_tmux_variables", {"names": ["pane_id", "x\udfff"]})
    assert result["isError"] is True
    assert "`names[1]`" in text_of(result) and RULE in text_of(result)


def test_a_request_whose_id_is_not_valid_unicode_gets_an_invalid_request_error(
    python_wire: Wire,
) -> None:
    python_wire.write('{"jsonrpc": "2.0", "id": "\\ud800", "method": "ping"}')
    answer = python_wire.answer()
    assert answer["id"] is None and answer["error"]["code"] == -32600
    python_wire.write('{"jsonrpc": "2.0", "id": 7, "method": 5}')
    answer = python_wire.answer()
    assert answer["id"] == 7 and answer["error"]["code"] == -32600
    python_wire.write("{not json")
    answer = python_wire.answer()
    assert answer["id"] is None and answer["error"]["code"] == -32700
    assert python_wire.call("list_sessions", {})["isError"] is False  # and the server lives on


def test_an_integral_float_is_an_integer_to_every_checker_and_to_the_handler(
    shared: TmuxServer, python_wire: Wire
) -> None:
    tmux = shared
    pane = tmux.active_pane(tmux.new_window())  # a pane of its own to respawn
    tmux.tmux("respawn-pane", "-k", "-t", pane, "seq 1 8; echo DONE; exec sleep 100000")
    wait_for(tmux, pane, "DONE")
    result = python_wire.call("capture_pane", {"pane_id": pane, "max_lines": 3.0})
    assert result["isError"] is False, text_of(result)
    text = result["structuredContent"]["result"]
    assert text.startswith("[... truncated") and len(text.splitlines()) == 4, text  # header + 3
    batch = python_wire.call(
        "call_read_tools_batch",
        {
            "operations": [
                {"tool": "capture_pane", "arguments": {"pane_id": pane, "max_lines": 1e1}}
            ]
        },
    )
    assert batch["isError"] is False and batch["structuredContent"]["succeeded"] == 1, batch


def test_a_trailing_newline_does_not_match_a_pattern_ending_in_dollar(
    shared: TmuxServer, swift_wire: Wire
) -> None:
    mark = shared.mark()
    result = swift_wire.call("get_tmux_variables", {"names": ["pane_id\n"]})
    assert result["isError"] is True
    message = text_of(result)
    assert "`names[0]`" in message and "rule: pattern" in message, message
    shared.assert_nothing_sent_since(mark)
    batch = swift_wire.call(
        "call_read_tools_batch",
        {"operations": [{"tool": "get_tmux_variables", "arguments": {"names": ["pane_id\n"]}}]},
    )
    assert batch["isError"] is True and "rule: pattern" in text_of(batch)
    shared.assert_nothing_sent_since(mark)
