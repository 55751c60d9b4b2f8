"""The rust profile's input tools (send_keys, send_keys_batch, paste_text,
set_synchronize_panes) over stdio against real tmux.

One tmux server and one MCP server serve the module; each test makes its own
windows. What arrives is read from the panes themselves; every refusal is
checked to have sent tmux nothing but reads and to have changed nothing.
"""

from __future__ import annotations

import itertools
import json
import os
import pty
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import mcp.types as types
import pytest

from scripts.lab.client import Client, open_client
from scripts.lab.sentlog import Sent
from scripts.lab.tmuxserver import TMUX, TmuxServer
from tmux_contract_mcp.handlers.tmux.errors import InputRefused
from tmux_contract_mcp.handlers.tmux.objects.input import PaneInput, Typing
from tmux_contract_mcp.handlers.tmux.objects.server import Tmux
from tmux_contract_mcp.handlers.tmux.policy.ledger import Ledger
from tmux_contract_mcp.handlers.tmux.transport.kinds import is_read
from tmux_contract_mcp.handlers.tmux.transport.quoting import pieces

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


def tag() -> str:
    return uuid.uuid4().hex[:8]


def window(shared: TmuxServer, *command: str, session: str = "main") -> tuple[str, str]:
    """A detached window running ``command`` (else the shell, prompt drawn): (window, pane)."""
    out = shared.tmux(
        "new-window", "-d", "-P", "-F", "#{window_id} #{pane_id}", "-t", f"{session}:", *command
    )
    window_id, pane_id = out.split()
    if not command:
        shared.wait_for_prompt(pane_id)
    return window_id, pane_id


ECHOING = "stty -echo; exec cat"  # prints back each line it reads, without the tty's echo


def echoing(shared: TmuxServer, session: str = "main") -> tuple[str, str]:
    """A window whose pane prints back each line it reads (no tty echo): (window, pane)."""
    window_id, pane = window(shared, "sh", "-c", ECHOING, session=session)
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


def split(shared: TmuxServer, target: str) -> str:
    """A pane split from ``target`` that prints back each line it reads, as ``echoing``'s."""
    pane = shared.tmux(
        "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", target, "sh", "-c", ECHOING
    )[:-1]
    until_running(shared, pane, "cat")
    return pane


def screen(shared: TmuxServer, pane: str) -> list[str]:
    return shared.tmux("capture-pane", "-p", "-t", pane).rstrip("\n").split("\n")


def until_screen_has(shared: TmuxServer, pane: str, line: str, timeout: float = 10.0) -> list[str]:
    """The pane's screen once a line of it is ``line`` (the program echoes after tmux wrote)."""
    deadline = time.monotonic() + timeout
    while line not in (shown := screen(shared, pane)):
        assert time.monotonic() < deadline, f"{line!r} never appeared in {pane}: {shown}"
        time.sleep(0.01)
    return shown


def envelope(text: str) -> dict[str, Any]:
    value = json.loads(text)
    assert set(value) == {"message", "data"}, value
    return dict(value)


def only_looks(item: Sent) -> bool:
    """A read, or the start of a control client (which attaches to read)."""
    return is_read((item.command,)) or (item.command == "attach-session" and "-C" in item.words)


async def refused(
    shared: TmuxServer, client: Client, tool: str, arguments: dict[str, Any], *, looks: bool = True
) -> dict[str, Any]:
    """The call's error envelope, once it is known to have typed nothing: it sent tmux
    only reads (``looks``) or nothing at all, and every pane's screen stayed as it was."""
    before = shared.state()
    screens = {
        pane: screen(shared, pane) for pane in shared.lines("list-panes", "-a", "-F", "#{pane_id}")
    }
    mark = shared.mark()
    sent = envelope(await client.error(tool, arguments))
    words = [item for item in shared.sent_since(mark) if item.reaches_a_server]
    if looks:
        assert words and all(map(only_looks, words)), [str(i) for i in words]
    else:
        assert words == [], [str(i) for i in words]
    assert shared.state() == before
    assert {pane: screen(shared, pane) for pane in screens} == screens
    return sent


# --- send_keys ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["", "short", "x" * 9, "é" * 7, "漢字" * 5, "a🙂" * 6, "🙂" * 3 + "ab"]
)
def test_pieces_never_cut_a_character_and_never_pass_the_limit(text: str) -> None:
    cut = pieces(text, limit=8)
    assert "".join(cut) == text and all(cut)
    assert all(len(piece.encode("utf-8")) <= 8 for piece in cut), cut
    # every piece but the last is full: the next character would not have fitted
    for piece, after in itertools.pairwise(cut):
        assert len((piece + after[0]).encode("utf-8")) > 8, cut


async def test_text_is_typed_literally_then_keys_by_name_then_enter(
    shared: TmuxServer, rust_client: Client
) -> None:
    _, pane = echoing(shared)
    text = "#{pane_id} $HOME ; Enter C-c"
    sent = await rust_client.ok("send_keys", {"pane": pane, "text": "junk", "keys": ["C-u"]})
    assert sent == {"pane": pane, "panes": [pane]}
    await rust_client.ok("send_keys", {"pane": pane, "text": text, "enter": True})
    shown = until_screen_has(shared, pane, text)
    assert not any("junk" in line for line in shown)  # C-u, a key name, erased it


async def test_keys_or_enter_alone_go_and_nothing_at_all_is_invalid_input(
    shared: TmuxServer, rust_client: Client
) -> None:
    _, pane = echoing(shared)
    await rust_client.ok("send_keys", {"pane": pane, "text": "one"})
    await rust_client.ok("send_keys", {"pane": pane, "enter": True})
    until_screen_has(shared, pane, "one")
    for arguments in ({"pane": pane}, {"pane": pane, "text": "", "keys": []}):
        sent = await refused(shared, rust_client, "send_keys", arguments, looks=False)
        assert sent["data"]["kind"] == "invalid_input" and "`text`" in sent["message"]
    sent = await refused(shared, rust_client, "send_keys", {"pane": "3", "text": "x"}, looks=False)
    assert sent["data"]["kind"] == "invalid_input" and "`pane`" in sent["message"]
    gone = await refused(shared, rust_client, "send_keys", {"pane": "%99999", "text": "x"})
    assert gone["data"] == {"kind": "object_gone", "retryable": False, "stale": True}


# --- synchronized panes -----------------------------------------------------------------


async def test_synchronized_panes_all_receive_send_keys_but_paste_reaches_one(
    shared: TmuxServer, rust_client: Client
) -> None:
    window_id, first = echoing(shared)
    second = split(shared, first)
    third = split(shared, first)
    shared.tmux("set-option", "-p", "-t", third, "synchronize-panes", "off")  # pane value wins

    result = await rust_client.call("set_synchronize_panes", {"window": window_id, "enabled": True})
    turned = result.structured_content
    assert turned == {"name": "synchronize-panes", "target": window_id, "value": "on"}
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    amplified = sorted([first, second], key=lambda pane: int(pane[1:]))
    assert json.loads(text.text) == {**turned, "amplifies": amplified}  # what the agent reads
    assert shared.tmux("show-options", "-wv", "-t", window_id, "synchronize-panes") == "on\n"

    sent = await rust_client.ok("send_keys", {"pane": first, "text": "both", "enter": True})
    assert sent["pane"] == first and sorted(sent["panes"]) == sorted([first, second])
    until_screen_has(shared, first, "both")
    until_screen_has(shared, second, "both")

    pasted = await rust_client.ok("paste_text", {"pane": second, "text": "only", "enter": True})
    assert pasted == {"pane": second, "bytes": 4}
    until_screen_has(shared, second, "only")
    # The paste was one paste-buffer into `second`; tmux never copies a paste to the cohort.
    assert "only" not in screen(shared, first)
    assert "both" not in screen(shared, third) and "only" not in screen(shared, third)

    off = await rust_client.ok("set_synchronize_panes", {"window": window_id, "enabled": False})
    assert off["value"] == "off"
    assert (await rust_client.ok("send_keys", {"pane": first, "text": "x"}))["panes"] == [first]
    before = shared.state()
    missing = envelope(
        await rust_client.error("set_synchronize_panes", {"window": "@99999", "enabled": True})
    )
    assert missing["data"]["kind"] == "object_gone" and "@99999" in missing["message"]
    assert shared.state() == before


# --- refusals: nothing typed ----------------------------------------------------------------


@pytest.fixture
def dead_pane(shared: TmuxServer) -> str:
    return make_dead_pane(shared)


def make_dead_pane(shared: TmuxServer) -> str:
    """A pane whose program has exited, kept by remain-on-exit."""
    window_id, pane = window(shared, "sh", "-c", "read line")
    shared.tmux("set-option", "-w", "-t", window_id, "remain-on-exit", "on")
    shared.tmux("send-keys", "-t", pane, "Enter")  # `read` returns, the program exits
    deadline = time.monotonic() + 10
    while shared.tmux("display-message", "-p", "-t", pane, "#{pane_dead}") != "1\n":
        assert time.monotonic() < deadline, f"{pane} never died"
        time.sleep(0.01)
    return pane


async def test_a_dead_pane_a_pane_in_copy_mode_and_one_with_input_off_are_refused(
    shared: TmuxServer, rust_client: Client, dead_pane: str
) -> None:
    sent = await refused(shared, rust_client, "send_keys", {"pane": dead_pane, "text": "x"})
    assert sent["data"]["kind"] == "refused" and "dead" in sent["message"]
    _, moded = echoing(shared)
    shared.tmux("copy-mode", "-t", moded)
    for tool, arguments in (
        ("send_keys", {"pane": moded, "keys": ["q"]}),
        ("paste_text", {"pane": moded, "text": "x"}),
        ("paste_text", {"pane": moded, "text": ""}),  # checks only: still refused
    ):
        sent = await refused(shared, rust_client, tool, arguments)
        assert "mode" in sent["message"] and moded in sent["message"]
    _, off = echoing(shared)
    shared.tmux("select-pane", "-d", "-t", off)
    sent = await refused(shared, rust_client, "paste_text", {"pane": off, "text": "x"})
    assert "input turned off" in sent["message"]


async def test_a_synchronized_pane_in_copy_mode_refuses_input_to_its_whole_window(
    shared: TmuxServer, rust_client: Client
) -> None:
    window_id, first = echoing(shared)
    second = split(shared, first)
    shared.tmux("set-option", "-w", "-t", window_id, "synchronize-panes", "on")
    shared.tmux("copy-mode", "-t", second)
    sent = await refused(shared, rust_client, "send_keys", {"pane": first, "text": "x"})
    assert second in sent["message"] and "synchronized with" in sent["message"]
    # paste_text reaches only its pane, so the cohort's state does not matter to it
    assert (await rust_client.ok("paste_text", {"pane": first, "text": ""}))["bytes"] == 0


@pytest.fixture
def attached(shared: TmuxServer) -> Iterator[tuple[str, str]]:
    """A session a real tmux client (under a pty) is attached to: (shown pane, hidden pane)."""
    name = f"seen-{tag()}"
    shared.tmux(
        "new-session", "-d", "-s", name, "-x", "80", "-y", "24", "sh", "-c", "stty -echo; exec cat"
    )
    shown = shared.tmux("display-message", "-p", "-t", f"{name}:", "#{pane_id}").strip()
    _, hidden = echoing(shared, session=name)
    controller, terminal = pty.openpty()
    env = {**os.environ, **shared.env, "TERM": "xterm"}
    env.pop("TMUX", None)
    client = subprocess.Popen(
        [TMUX, "-L", shared.name, "attach-session", "-t", name],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        env=env,
        start_new_session=True,
    )
    os.close(terminal)
    try:
        deadline = time.monotonic() + 10
        while not shared.lines("list-clients", "-t", name, "-F", "#{client_control_mode}"):
            assert time.monotonic() < deadline, "the client never attached"
            time.sleep(0.01)
        yield shown, hidden
    finally:
        client.terminate()
        client.wait(10)
        os.close(controller)
        shared.tmux("kill-session", "-t", name)


async def test_a_pane_a_real_client_shows_is_refused_one_it_does_not_show_is_not(
    shared: TmuxServer, rust_client: Client, attached: tuple[str, str]
) -> None:
    shown, hidden = attached
    for tool, arguments in (
        ("send_keys", {"pane": shown, "text": "x"}),
        ("paste_text", {"pane": shown, "text": "x"}),
    ):
        sent = await refused(shared, rust_client, tool, arguments)
        assert "shows it" in sent["message"] and shown in sent["message"]
    await rust_client.ok("send_keys", {"pane": hidden, "text": "unseen", "enter": True})
    until_screen_has(shared, hidden, "unseen")


@pytest.fixture(scope="module")
async def inside(shared: TmuxServer) -> AsyncIterator[tuple[Client, str]]:
    """A rust server that believes it runs in a pane of the shared server: (client, that pane)."""
    _, pane = echoing(shared)
    pid = shared.tmux("display-message", "-p", "#{pid}").strip()
    env = shared.server_env(
        LIBTMUX_TOOLSETS="inspect,manage,execute,teardown",
        TMUX=f"{shared.socket_path},{pid},0",
        TMUX_PANE=pane,
    )
    async with open_client(env, "rust") as client:
        yield client, pane


async def test_the_callers_own_pane_is_self_protection_and_other_panes_still_take_input(
    shared: TmuxServer, inside: tuple[Client, str]
) -> None:
    client, own = inside
    for tool, arguments in (
        ("send_keys", {"pane": own, "text": "x"}),
        ("paste_text", {"pane": own, "text": "x"}),
        ("send_keys_batch", {"operations": [{"pane": own, "keys": ["C-c"]}]}),
        ("run_shell_command", {"pane": own, "command": "true"}),
    ):
        if tool == "send_keys_batch":
            row = (await client.ok(tool, arguments))["results"][0]
            assert row["error"]["data"]["kind"] == "self_protection"
            continue
        sent = await refused(shared, client, tool, arguments)
        assert sent["data"]["kind"] == "self_protection" and "TMUX_PANE" in sent["message"]
    _, other = echoing(shared)
    await client.ok("send_keys", {"pane": other, "text": "fine", "enter": True})
    until_screen_has(shared, other, "fine")


# --- paste_text -----------------------------------------------------------------------------


async def test_paste_is_bracketed_counts_utf8_bytes_and_leaves_no_buffer(
    shared: TmuxServer, rust_client: Client
) -> None:
    _, pane = window(shared, "sh", "-c", "printf '\\033[?2004hready\\n'; stty -echo; exec cat -v")
    until_screen_has(shared, pane, "ready")  # tmux has read the mode switch before it
    until_running(shared, pane, "cat")
    text = "é #{pane_id}"
    pasted = await rust_client.ok("paste_text", {"pane": pane, "text": text, "enter": True})
    assert pasted == {"pane": pane, "bytes": len(text.encode())}
    # The line reached cat -v after the paste's start marker, ended by the newline inside
    # the paste (its end marker waits, unread, for the next line).
    until_screen_has(shared, pane, "^[[200~M-CM-) #{pane_id}")
    assert shared.tmux("list-buffers", "-F", "#{buffer_name}") == ""
    many = "x" * 9000 + "end"  # more than one set-buffer argument
    assert (await rust_client.ok("paste_text", {"pane": pane, "text": many}))["bytes"] == 9003
    assert shared.tmux("list-buffers", "-F", "#{buffer_name}") == ""


# --- send_keys_batch ------------------------------------------------------------------------


async def test_batch_rows_run_in_order_and_stop_at_the_first_failure(
    shared: TmuxServer, rust_client: Client
) -> None:
    _, first = echoing(shared)
    _, moded = echoing(shared)
    shared.tmux("copy-mode", "-t", moded)
    operations = [
        {"pane": first, "text": "a", "enter": True},
        {"pane": moded, "text": "b", "enter": True},
        {"pane": first, "text": "c", "enter": True},
    ]
    stopped = await rust_client.ok("send_keys_batch", {"operations": operations})
    assert [row["success"] for row in stopped["results"]] == [True, False]
    assert stopped["results"][0] == {
        "index": 0,
        "tool": "send_keys",
        "success": True,
        "resultTruncated": False,
        "result": {"pane": first, "panes": [first]},
        "error": None,
    }
    error = stopped["results"][1]["error"]
    assert error["code"] == -32603 and error["data"]["kind"] == "refused"
    assert (stopped["stoppedAt"], stopped["succeeded"], stopped["failed"]) == (1, 1, 1)
    assert stopped["onError"] == "stop" and stopped["truncated"] is False
    until_screen_has(shared, first, "a")
    assert "c" not in screen(shared, first)

    went_on = await rust_client.ok(
        "send_keys_batch", {"operations": operations, "on_error": "continue"}
    )
    assert [row["success"] for row in went_on["results"]] == [True, False, True]
    assert went_on["stoppedAt"] is None and went_on["onError"] == "continue"
    until_screen_has(shared, first, "c")


async def test_batch_bounds_and_row_shapes_are_checked_before_anything_is_typed(
    shared: TmuxServer, rust_client: Client
) -> None:
    _, pane = echoing(shared)
    row = {"pane": pane, "text": "x"}
    for operations, field in (
        ([], "`operations`"),
        ([row] * 65, "`operations`"),
        ([row, {"pane": "@1", "text": "x"}], "`operations[1].pane`"),
        ([row, {"pane": pane}], "`operations[1].text`"),
    ):
        sent = await refused(
            shared, rust_client, "send_keys_batch", {"operations": operations}, looks=False
        )
        assert sent["data"]["kind"] == "invalid_input" and field in sent["message"], sent
    full = await rust_client.ok(
        "send_keys_batch", {"operations": [{"pane": pane, "text": "y"}] * 64}
    )
    assert full["succeeded"] == 64


# --- the ledger: a pane held by another input tool ----------------------------------------


async def test_a_held_pane_is_refused_except_for_a_lone_interrupt_key(shared: TmuxServer) -> None:
    """In process, against the real tmux: a pane run_shell_command holds takes no input
    but C-c or C-\\ alone, and a send marks submitted lines for the waits."""
    _, pane = window(shared, "sh", "-c", "trap '' INT QUIT; stty -echo; exec cat")
    until_running(shared, pane, "cat")
    ledger = Ledger()
    # A UTF-8 locale, as the command has (Python's locale coercion sets LC_CTYPE for it).
    tmux = Tmux({**shared.server_env(), "LC_CTYPE": "C.UTF-8"})
    typing = PaneInput(tmux, ledger)
    try:
        server = tmux.server()
        with ledger.reserve(pane, "run_shell_command"):
            for refused_typing in (
                Typing("x"),
                Typing("", ("C-c",), True),
                Typing("", ("C-c", "C-c")),
            ):
                with pytest.raises(InputRefused, match="run_shell_command of this MCP server"):
                    await typing.send(server, pane, refused_typing, tool="send_keys", field="pane")
            for key in ("C-c", "C-\\"):
                found = await typing.send(
                    server, pane, Typing("", (key,)), tool="send_keys", field="pane"
                )
                assert found.ids == [pane] and ledger.holder(pane) == "run_shell_command"
        assert ledger.holder(pane) is None
        await typing.send(server, pane, Typing("seen", (), True), tool="send_keys", field="pane")
        assert ledger.recent(pane) == ["seen"] and ledger.holder(pane) is None
        until_screen_has(shared, pane, "seen")
        assert "x" not in screen(shared, pane)
    finally:
        await tmux.aclose()
