"""capture_since counts the rows a pane's ``%output`` advances, so rows lost to the history's
limit are reported whatever the pane showed when the cursor opened: an empty pane (no
rows above the cursor to find again) and blank rows (found anywhere) included, in every
profile that has cursors. A display that redraws its lines in place (cursor up, then the
lines again) is not taken for lost rows.
"""

from __future__ import annotations

import subprocess
import time
import uuid

import anyio
import pytest

from scripts.lab.client import Client, open_client
from scripts.lab.tmuxserver import TmuxServer
from tmux_contract_mcp.handlers.tmux.transport.printed import RowCount

pytestmark = pytest.mark.anyio

PROFILES = ("python", "rust", "swift")
ARGUMENT = {"python": "pane_id", "rust": "pane", "swift": "paneId"}


def echoes(tty: str) -> bool:
    settings = subprocess.run(["stty", "-a", "-F", tty], capture_output=True, text=True)
    return "-echo" not in settings.stdout.split()


def pane_running(tmux: TmuxServer, script: str, history: int, before: str = "true") -> str:
    """A pane of a session of its own (history-limit ``history``) running ``before``, then
    ``script`` after one Enter; it shows nothing else until then."""
    session = f"c{uuid.uuid4().hex[:8]}"
    tmux.tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "20")
    tmux.tmux("set-option", "-t", session, "history-limit", str(history))
    pane = tmux.tmux(
        "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", f"{session}:",
        f"stty -echo; {before}; read go; {script}; exec cat",
    ).strip()  # fmt: skip
    # The Enter a test sends must not be echoed: wait for the terminal to stop echoing.
    tty = tmux.tmux("display-message", "-p", "-t", pane, "#{pane_tty}").strip()
    deadline = time.monotonic() + 10
    while echoes(tty):
        assert time.monotonic() < deadline, f"{pane} still echoes"
        time.sleep(0.02)
    return pane


def until_shown(tmux: TmuxServer, pane: str, text: str) -> None:
    deadline = time.monotonic() + 20
    while text not in tmux.tmux("capture-pane", "-p", "-t", pane):
        assert time.monotonic() < deadline, f"{text!r} never showed in {pane}"
        time.sleep(0.02)


async def since(client: Client, pane: str, cursor: str | None = None) -> dict[str, object]:
    args: dict[str, object] = {ARGUMENT[client.profile]: pane}
    if cursor is not None:
        args["cursor"] = cursor
    if client.profile != "rust":  # rust's cap is 2,000 lines
        args["max_lines" if client.profile == "python" else "maxLines"] = 1000
    return await client.ok("capture_since", args)


def missed(answer: dict[str, object]) -> bool:
    key = {"python": "lines_missed", "rust": "missed", "swift": "linesMissed"}
    return next(bool(answer[k]) for k in key.values() if k in answer)


def lines(answer: dict[str, object]) -> list[str]:
    if "text" in answer:
        text = str(answer["text"])
        return text.split("\n") if text else []
    found = answer["lines"]
    assert isinstance(found, list)
    return [str(line) for line in found]


@pytest.fixture
def profile_client(
    request: pytest.FixtureRequest, python_client: Client, rust_client: Client, swift_client: Client
) -> Client:
    return {"python": python_client, "rust": rust_client, "swift": swift_client}[request.param]


@pytest.mark.parametrize("profile_client", PROFILES, indirect=True)
async def test_a_cursor_opened_on_an_empty_pane_reports_rows_lost_to_history(
    shared: TmuxServer, profile_client: Client
) -> None:
    pane = pane_running(shared, "seq 1 500", history=50)
    opened = await since(profile_client, pane)
    assert lines(opened) == []  # nothing above the cursor to find it again by
    shared.tmux("send-keys", "-t", pane, "Enter")
    until_shown(shared, pane, "500")
    later = await since(profile_client, pane, str(opened["cursor"]))
    assert missed(later) is True
    assert lines(later)[-1] == "500"
    assert "1" not in lines(later)  # the first rows are gone: nothing says otherwise


@pytest.mark.parametrize("profile_client", PROFILES, indirect=True)
async def test_a_cursor_opened_on_an_empty_pane_misses_nothing_when_nothing_was_lost(
    shared: TmuxServer, profile_client: Client
) -> None:
    pane = pane_running(shared, "seq 1 300", history=2000)
    opened = await since(profile_client, pane)
    shared.tmux("send-keys", "-t", pane, "Enter")
    until_shown(shared, pane, "300")
    later = await since(profile_client, pane, str(opened["cursor"]))
    assert missed(later) is False
    assert lines(later) == [str(n) for n in range(1, 301)]


async def test_rows_lost_below_a_cursor_on_blank_rows_are_reported(
    shared: TmuxServer, python_client: Client
) -> None:
    """Blank rows above the cursor are found again anywhere: only the count can tell."""
    script = "yes '' | head -n 400; echo end"
    pane = pane_running(shared, script, history=30, before="printf 'x\\n\\n\\n\\n'")
    until_shown(shared, pane, "x")
    opened = await since(python_client, pane)
    assert lines(opened) == ["x"]  # the screen; the three rows above the cursor are blank
    shared.tmux("send-keys", "-t", pane, "Enter")
    until_shown(shared, pane, "end")
    later = await since(python_client, pane, str(opened["cursor"]))
    assert missed(later) is True


async def test_a_display_redrawn_in_place_is_not_taken_for_lost_rows(
    shared: TmuxServer, python_client: Client
) -> None:
    """Three lines drawn 200 times over (cursor up three rows, then the lines): 600 line
    feeds, three rows, in a pane that keeps 20 rows of history."""
    draw = (
        "printf 'a\\nb\\nc\\n'; "
        "for i in $(seq 1 200); do printf '\\033[3Aa%s\\nb%s\\nc%s\\n' $i $i $i; done; "
        "echo done"
    )
    pane = pane_running(shared, draw, history=20)
    opened = await since(python_client, pane)
    shared.tmux("send-keys", "-t", pane, "Enter")
    until_shown(shared, pane, "done")
    later = await since(python_client, pane, str(opened["cursor"]))
    assert missed(later) is False
    assert lines(later) == ["a200", "b200", "c200", "done"]


async def test_a_counting_cursor_holds_one_client_until_a_cursor_below_written_rows(
    tmux: TmuxServer,
) -> None:
    """An empty pane's cursor has the pane's rows counted by an output client; a cursor
    taken below written rows needs no count, and the client goes."""
    pane = pane_running(tmux, "echo written", history=2000)
    async with open_client(tmux.server_env(), "python") as client:
        await client.ok("list_sessions")  # the control transport's own client
        before = tmux.lines("list-clients", "-F", "#{client_pid}")
        opened = await since(client, pane)
        counting = tmux.lines("list-clients", "-F", "#{client_pid}")
        assert len(counting) == len(before) + 1, (before, counting)
        tmux.tmux("send-keys", "-t", pane, "Enter")
        until_shown(tmux, pane, "written")
        later = await since(client, pane, str(opened["cursor"]))
        assert lines(later) == ["written"]
        deadline = time.monotonic() + 5
        while tmux.lines("list-clients", "-F", "#{client_pid}") != before:
            assert time.monotonic() < deadline, "the counter's client stayed"
            await anyio.sleep(0.05)


# --- the count itself ----------------------------------------------------------------------


def counted(*payloads: str) -> RowCount:
    count = RowCount()
    for payload in payloads:
        count.feed(payload)
    return count


def test_line_feeds_are_rows_and_a_carriage_return_is_none() -> None:
    assert counted(r"one\015\012two\015\012", r"three\012").rows == 3
    assert counted(r"\013\014").rows == 2  # VT and FF move down as LF does
    assert counted(r"progress 10%\015progress 20%\015").rows == 0


def test_a_literal_backslash_followed_by_digits_is_not_a_line_feed() -> None:
    assert counted(r"C:\134012").rows == 0


def test_cursor_up_takes_rows_back() -> None:
    assert counted(r"a\012b\012c\012\033[3Ax\012").rows == 1
    assert counted(r"a\012\033[A").rows == 0
    assert counted(r"a\012b\012\033Mx").rows == 1  # reverse index
    assert counted(r"\033[2F").rows == -2  # cursor previous line


def test_a_sequence_split_between_two_payloads_is_read_whole() -> None:
    count = counted(r"a\012b\012\033[", r"2A")
    assert (count.rows, count.breaks) == (0, 0)
    count = counted(r"a\012\033", r"[1;1H")
    assert count.breaks == 1


@pytest.mark.parametrize(
    "payload",
    [r"\033[H", r"\033[5;1H", r"\033[10d", r"\033[1;20r", r"\033[?1049h", r"\0338", r"\033c"],
    ids=["home", "position", "row", "scroll-region", "alternate-screen", "restore", "reset"],
)
def test_what_places_the_cursor_breaks_the_count(payload: str) -> None:
    assert counted(r"a\012", payload).breaks == 1


def test_colours_and_bracketed_paste_change_nothing() -> None:
    count = counted(r"\033[?2004h\033[1;32mok\033[0m\012\033[K")
    assert (count.rows, count.breaks) == (1, 0)
