"""The python profile's reading tools (capture_pane, capture_since, snapshot_pane,
search_panes, show_buffer), each called through the MCP client against real tmux.

One tmux server and one MCP server serve the whole module (starting the MCP
server costs over a second); every test makes its own windows or sessions and
only asserts about those, or compares with what tmux itself reports.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import anyio
import pytest

from scripts.lab.client import Client
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.family import tmux_fields as show
from tests.helpers.family import window_running as new_window
from tests.helpers.tmux import tag

pytestmark = [pytest.mark.anyio, pytest.mark.transports("control", "subprocess")]

# --- fixtures ---------------------------------------------------------------------------


# --- helpers ----------------------------------------------------------------------------


def reader(*lines: str) -> list[str]:
    """A pane command: print ``lines``, then echo back each line typed (without tty echo)."""
    script = 'stty -echo; for l in "$@"; do printf "%s\\n" "$l"; done; exec cat'
    return ["sh", "-c", script, "sh", *lines]


def numbered(count: int, prefix: str) -> list[str]:
    """A pane command printing ``<prefix>1`` … ``<prefix><count>``, then echoing typed lines."""
    return ["sh", "-c", f"stty -echo; seq 1 {count} | sed 's/^/{prefix}/'; exec cat"]


def contents(server: TmuxServer, pane: str) -> list[str]:
    """Everything the pane holds, history and screen, wrapped lines joined."""
    return server.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", pane).splitlines()


def screen(server: TmuxServer, pane: str) -> list[str]:
    """The visible screen as tmux shows it, blank rows under the output left out."""
    lines = server.tmux("capture-pane", "-p", "-t", pane).split("\n")[:-1]
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def poll(check: object, what: str, timeout: float = 10.0) -> None:
    """Wait until ``check()`` is true, or fail naming ``what``."""
    assert callable(check)
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def wait_for_line(server: TmuxServer, pane: str, text: str) -> None:
    poll(lambda: text in contents(server, pane), f"{pane} to show {text!r}")


def type_lines(server: TmuxServer, pane: str, *lines: str) -> None:
    """Type ``lines`` into a ``reader`` pane (which prints each back)."""
    for line in lines:
        server.tmux("send-keys", "-t", pane, "-l", "--", line)
        server.tmux("send-keys", "-t", pane, "Enter")


def feed(server: TmuxServer, pane: str, *lines: str) -> None:
    """Type ``lines`` and wait until the last one is printed."""
    type_lines(server, pane, *lines)
    wait_for_line(server, pane, lines[-1])


@contextmanager
def sending_nothing(server: TmuxServer) -> Iterator[None]:
    """The block sends tmux nothing: no tmux process, no control-client line."""
    mark = server.mark()
    yield
    server.assert_nothing_sent_since(mark)


# --- capture_pane -----------------------------------------------------------------------


async def test_capture_pane_returns_the_screen_as_one_string_without_blank_rows_below(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = new_window(shared, *reader("alpha", "beta", "", "gamma"))
    wait_for_line(shared, pane, "gamma")
    captured = await python_client.ok("capture_pane", {"pane_id": pane})
    # The blank line between output is kept; the empty rows under it are not.
    assert captured == {"result": "alpha\nbeta\n\ngamma"}


async def test_capture_pane_targets_the_active_pane_of_a_window_or_session(
    shared: TmuxServer, python_client: Client
) -> None:
    session = f"cap-{tag()}"
    made = shared.new_session(session, *reader("in-session"))
    session_id, first = made.id, made.pane
    window, pane = new_window(shared, *reader("in-window"), session=session)
    wait_for_line(shared, first, "in-session")
    wait_for_line(shared, pane, "in-window")
    assert (await python_client.ok("capture_pane", {"window_id": window}))["result"] == "in-window"
    for target in ({"session_name": session}, {"session_id": session_id}):
        assert (await python_client.ok("capture_pane", target))["result"] == "in-session"


async def test_capture_pane_header_appears_from_exactly_max_lines_plus_one(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = new_window(shared, *numbered(6, "row-"))
    wait_for_line(shared, pane, "row-6")
    rows = [f"row-{i}" for i in range(1, 7)]
    exact = await python_client.ok("capture_pane", {"pane_id": pane, "max_lines": 6})
    assert exact["result"] == "\n".join(rows)
    cut = await python_client.ok("capture_pane", {"pane_id": pane, "max_lines": 5})
    assert cut["result"] == "\n".join(["[... truncated 1 lines ...]", *rows[1:]])
    one = await python_client.ok("capture_pane", {"pane_id": pane, "max_lines": 1})
    assert one["result"] == "[... truncated 5 lines ...]\nrow-6"


async def test_capture_pane_default_cap_keeps_the_newest_500_and_null_keeps_all(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = new_window(shared, *numbered(600, "n-"))
    wait_for_line(shared, pane, "n-600")
    capped = await python_client.ok("capture_pane", {"pane_id": pane, "start": -1000})
    lines = capped["result"].split("\n")
    assert lines[0] == "[... truncated 100 lines ...]"
    assert lines[1:] == [f"n-{i}" for i in range(101, 601)]
    everything = await python_client.ok(
        "capture_pane", {"pane_id": pane, "start": -1000, "max_lines": None}
    )
    assert everything["result"].split("\n") == [f"n-{i}" for i in range(1, 601)]


async def test_capture_pane_start_and_end_reach_into_history(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = new_window(shared, *numbered(100, "h-"))
    wait_for_line(shared, pane, "h-100")
    history = int(show(shared, pane, "history_size")[0])
    assert history > 5
    tail = await python_client.ok("capture_pane", {"pane_id": pane, "start": -3, "end": -1})
    assert tail["result"] == "\n".join(f"h-{i}" for i in range(history - 2, history + 1))
    oldest = await python_client.ok(
        "capture_pane", {"pane_id": pane, "start": -history, "end": -history}
    )
    assert oldest["result"] == "h-1"
    top = await python_client.ok("capture_pane", {"pane_id": pane, "start": 0, "end": 0})
    assert top["result"] == f"h-{history + 1}"


async def test_capture_pane_refuses_a_cap_of_zero_or_less_without_asking_tmux(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = new_window(shared, *reader("x"))
    with sending_nothing(shared):
        for bad in (0, -1):
            message = await python_client.error("capture_pane", {"pane_id": pane, "max_lines": bad})
            assert "max_lines" in message and str(bad) in message


async def test_capture_pane_bad_pane_ids(shared: TmuxServer, python_client: Client) -> None:
    with sending_nothing(shared):
        for tool in ("capture_pane", "snapshot_pane", "capture_since"):
            message = await python_client.error(tool, {"pane_id": "abc"})
            assert "pane_id" in message and "'abc'" in message, tool
    for tool in ("capture_pane", "snapshot_pane", "capture_since"):
        message = await python_client.error(tool, {"pane_id": "%9999"})
        assert "%9999" in message and shared.socket_path in message, tool
        assert "list_panes" in message


# --- capture_since ----------------------------------------------------------------------


async def test_capture_since_first_call_gives_the_screen_then_only_new_lines(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = new_window(shared, *reader("one", "two"))
    wait_for_line(shared, pane, "two")
    first = await python_client.ok("capture_since", {"pane_id": pane})
    assert first["lines"] == ["one", "two"] == screen(shared, pane)
    assert first["pane_id"] == pane and first["cursor"]
    assert (first["lines_missed"], first["truncated"], first["dropped_lines"]) == (False, False, 0)

    feed(shared, pane, "three", "four", "five")
    second = await python_client.ok("capture_since", {"pane_id": pane, "cursor": first["cursor"]})
    assert second["lines"] == ["three", "four", "five"]
    assert (second["lines_missed"], second["truncated"], second["dropped_lines"]) == (
        False,
        False,
        0,
    )

    quiet = await python_client.ok("capture_since", {"pane_id": pane, "cursor": second["cursor"]})
    assert quiet["lines"] == []
    feed(shared, pane, "six")
    later = await python_client.ok("capture_since", {"pane_id": pane, "cursor": quiet["cursor"]})
    assert later["lines"] == ["six"]


async def test_capture_since_hands_out_a_growing_row_once_it_is_complete(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = new_window(shared, "sh", "-c", "stty -echo; printf 'done\\npartial'; exec cat")
    wait_for_line(shared, pane, "partial")
    first = await python_client.ok("capture_since", {"pane_id": pane})
    assert first["lines"] == ["done", "partial"]  # the screen, as it is now
    type_lines(shared, pane, "-end")
    wait_for_line(shared, pane, "partial-end")
    second = await python_client.ok("capture_since", {"pane_id": pane, "cursor": first["cursor"]})
    assert second["lines"] == ["partial-end"]


async def test_capture_since_caps_keep_the_newest_lines(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = new_window(shared, *reader("start"))
    wait_for_line(shared, pane, "start")
    cursor = (await python_client.ok("capture_since", {"pane_id": pane}))["cursor"]
    feed(shared, pane, *(f"l{i:03d}" for i in range(10)))  # 4 bytes each
    by_lines = await python_client.ok(
        "capture_since", {"pane_id": pane, "cursor": cursor, "max_lines": 3}
    )
    assert by_lines["lines"] == ["l007", "l008", "l009"]
    assert (by_lines["truncated"], by_lines["dropped_lines"]) == (True, 7)
    by_bytes = await python_client.ok(
        "capture_since", {"pane_id": pane, "cursor": cursor, "max_bytes": 10}
    )
    assert by_bytes["lines"] == ["l008", "l009"]
    assert (by_bytes["truncated"], by_bytes["dropped_lines"]) == (True, 8)
    uncapped = await python_client.ok(
        "capture_since", {"pane_id": pane, "cursor": cursor, "max_lines": None, "max_bytes": None}
    )
    assert uncapped["lines"] == [f"l{i:03d}" for i in range(10)]
    assert (uncapped["truncated"], uncapped["dropped_lines"]) == (False, 0)
    for field in ("max_lines", "max_bytes"):
        message = await python_client.error("capture_since", {"pane_id": pane, field: 0})
        assert field in message


async def test_capture_since_with_only_a_cursor_reads_the_pane_it_was_issued_for(
    shared: TmuxServer, python_client: Client
) -> None:
    # Two panes: the default target (the first session's active pane) and a pane of a
    # window in the background, whose cursor alone must lead back to it.
    default = (await python_client.ok("get_pane_info"))["pane_id"]
    _, pane = new_window(shared, *reader("first"))
    assert pane != default
    wait_for_line(shared, pane, "first")
    cursor = (await python_client.ok("capture_since", {"pane_id": pane}))["cursor"]
    feed(shared, pane, "second", "third")
    followed = await python_client.ok("capture_since", {"cursor": cursor})
    assert followed["pane_id"] == pane
    assert followed["lines"] == ["second", "third"]
    feed(shared, pane, "fourth")
    again = await python_client.ok("capture_since", {"cursor": followed["cursor"]})
    assert (again["pane_id"], again["lines"]) == (pane, ["fourth"])


async def test_capture_since_with_only_the_cursor_of_a_pane_that_is_gone_says_so(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = new_window(shared, *reader("x"))
    wait_for_line(shared, pane, "x")
    cursor = (await python_client.ok("capture_since", {"pane_id": pane}))["cursor"]
    shared.tmux("kill-pane", "-t", pane)
    message = await python_client.error("capture_since", {"cursor": cursor})
    assert f"No pane {pane}" in message and "`cursor`" in message and "list_panes" in message


async def test_capture_since_refuses_a_cursor_of_another_pane(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane_a = new_window(shared, *reader("a"))
    _, pane_b = new_window(shared, *reader("b"))
    wait_for_line(shared, pane_a, "a")
    cursor = (await python_client.ok("capture_since", {"pane_id": pane_a}))["cursor"]
    with sending_nothing(shared):
        message = await python_client.error("capture_since", {"pane_id": pane_b, "cursor": cursor})
    assert "cursor" in message and pane_a in message and pane_b in message


async def test_capture_since_refuses_a_garbage_cursor(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = new_window(shared, *reader("x"))
    valid = (await python_client.ok("capture_since", {"pane_id": pane}))["cursor"]
    forged = "A" + valid[1:] if valid[0] != "A" else "B" + valid[1:]
    for garbage in ("garbage", "eyJ2IjoxfQ.AAAAAAAAAAAA", "", forged):
        message = await python_client.error("capture_since", {"pane_id": pane, "cursor": garbage})
        assert "cursor" in message and "without a cursor" in message, garbage


async def test_capture_since_refuses_a_cursor_after_the_pane_was_respawned(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = new_window(shared, *reader("before"))
    wait_for_line(shared, pane, "before")
    first = await python_client.ok("capture_since", {"pane_id": pane})
    shared.tmux("respawn-pane", "-k", "-t", pane, *reader("after"))
    wait_for_line(shared, pane, "after")
    message = await python_client.error(
        "capture_since", {"pane_id": pane, "cursor": first["cursor"]}
    )
    assert pane in message and "respawned" in message and "without a cursor" in message
    fresh = await python_client.ok("capture_since", {"pane_id": pane})
    assert fresh["lines"] == ["after"]


async def test_capture_since_refuses_a_dead_pane(shared: TmuxServer, python_client: Client) -> None:
    window, pane = new_window(shared, *reader("last words"))
    shared.tmux("set-option", "-w", "-t", window, "remain-on-exit", "on")
    wait_for_line(shared, pane, "last words")
    cursor = (await python_client.ok("capture_since", {"pane_id": pane}))["cursor"]
    shared.tmux("send-keys", "-t", pane, "C-d")  # cat reads end of file and exits
    poll(lambda: show(shared, pane, "pane_dead") == ["1"], f"{pane} to die")
    message = await python_client.error("capture_since", {"pane_id": pane, "cursor": cursor})
    assert pane in message and "dead" in message and "capture_pane" in message


async def test_capture_since_reports_lines_missed_when_history_was_trimmed_past_the_cursor(
    shared: TmuxServer, python_client: Client
) -> None:
    session = f"hist-{tag()}"
    shared.new_session(session)
    shared.tmux("set-option", "-t", session, "history-limit", "5")
    _, pane = new_window(shared, *numbered(3, "old-"), session=session)
    wait_for_line(shared, pane, "old-3")
    first = await python_client.ok("capture_since", {"pane_id": pane})
    assert first["lines"] == ["old-1", "old-2", "old-3"]
    # Far more rows than the screen and the 5 history lines hold: the cursor's rows are gone.
    shared.tmux("send-keys", "-t", pane, "-l", "--", "\n".join(f"new-{i}" for i in range(200)))
    shared.tmux("send-keys", "-t", pane, "Enter")
    wait_for_line(shared, pane, "new-199")
    missed = await python_client.ok("capture_since", {"pane_id": pane, "cursor": first["cursor"]})
    assert missed["lines_missed"] is True
    assert missed["lines"] == screen(shared, pane)
    assert missed["lines"][-1] == "new-199"
    # The fresh cursor continues from there.
    after = await python_client.ok("capture_since", {"pane_id": pane, "cursor": missed["cursor"]})
    assert (after["lines"], after["lines_missed"]) == ([], False)
    feed(shared, pane, "next")
    more = await python_client.ok("capture_since", {"pane_id": pane, "cursor": after["cursor"]})
    assert (more["lines"], more["lines_missed"]) == (["next"], False)


# --- snapshot_pane ----------------------------------------------------------------------


async def test_snapshot_pane_reports_content_cursor_and_size_from_one_tmux_read(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = new_window(shared, *reader("first", "second", "third"))
    wait_for_line(shared, pane, "third")
    mark = shared.mark()
    snapshot = await python_client.ok("snapshot_pane", {"pane_id": pane})
    # One display-message for the fields and one capture, nothing else.
    sent = sorted(item.command for item in shared.sent_since(mark))
    assert sent == ["capture-pane", "display-message"]
    x, y, width, height, history, command, path = show(
        shared, pane, "cursor_x", "cursor_y", "pane_width", "pane_height", "history_size",
        "pane_current_command", "pane_current_path",
    )  # fmt: skip
    assert snapshot == {
        "pane_id": pane,
        "content": "first\nsecond\nthird",
        "cursor_x": int(x),
        "cursor_y": int(y),
        "pane_width": int(width),
        "pane_height": int(height),
        "pane_in_mode": False,
        "pane_mode": None,
        "scroll_position": None,
        "history_size": int(history),
        "alternate_on": False,
        "pane_current_command": command,
        "pane_current_path": path,
        "truncated_lines": 0,
    }
    assert snapshot["cursor_y"] == 3
    short = await python_client.ok("snapshot_pane", {"pane_id": pane, "max_lines": 2})
    assert (short["content"], short["truncated_lines"]) == ("second\nthird", 1)


async def test_snapshot_pane_in_copy_mode_reports_the_mode_and_scroll_position(
    shared: TmuxServer, python_client: Client
) -> None:
    _, pane = new_window(shared, *numbered(120, "c-"))
    wait_for_line(shared, pane, "c-120")
    shared.tmux("copy-mode", "-t", pane)
    for _ in range(3):
        shared.tmux("send-keys", "-X", "-t", pane, "scroll-up")
    snapshot = await python_client.ok("snapshot_pane", {"pane_id": pane})
    assert snapshot["pane_in_mode"] is True
    assert snapshot["pane_mode"] == "copy-mode"
    assert snapshot["scroll_position"] == 3
    assert snapshot["history_size"] == int(show(shared, pane, "history_size")[0]) > 0
    shared.tmux("send-keys", "-X", "-t", pane, "cancel")
    left = await python_client.ok("snapshot_pane", {"pane_id": pane})
    assert (left["pane_in_mode"], left["pane_mode"], left["scroll_position"]) == (False, None, None)


async def test_snapshot_pane_targets_a_window_and_names_a_missing_pane(
    shared: TmuxServer, python_client: Client
) -> None:
    window, pane = new_window(shared, *reader("snap"))
    wait_for_line(shared, pane, "snap")
    by_window = await python_client.ok("snapshot_pane", {"window_id": window})
    assert (by_window["pane_id"], by_window["content"]) == (pane, "snap")
    message = await python_client.error("snapshot_pane", {"window_id": "@9999"})
    assert "@9999" in message and shared.socket_path in message


# --- search_panes -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def fifty(shared: TmuxServer) -> tuple[str, list[str]]:
    """A session of 50 panes (5 windows of 10): pane k prints `Needle-k` or `needle-k`
    (capital N on even k) and `shared-line`; returns (session name, pane ids in order)."""
    session = f"fifty-{tag()}"

    def command(k: int) -> list[str]:
        word = "Needle" if k % 2 == 0 else "needle"
        return reader(f"{word}-{k} here", "shared-line")

    shared.tmux("new-session", "-d", "-s", session, "-x", "200", "-y", "50", *command(0))
    k = 1
    for window in range(5):
        if window:
            new_window(shared, *command(k), session=session)
            k += 1
        target = f"{session}:{window}"
        while k < (window + 1) * 10:
            shared.tmux(
                "split-window", "-d", "-t", target, *command(k), ";",
                "select-layout", "-t", target, "tiled",
            )  # fmt: skip
            k += 1
    panes = shared.lines("list-panes", "-s", "-t", session, "-F", "#{pane_id}")
    assert len(panes) == 50
    for pane in panes:
        poll(lambda pane=pane: "shared-line" in contents(shared, pane), f"{pane} to print")
    return session, panes


async def test_search_panes_pages_over_fifty_panes(
    fifty: tuple[str, list[str]], python_client: Client
) -> None:
    session, panes = fifty
    seen: list[str] = []
    offset = 0
    pages = []
    while True:
        page = await python_client.ok(
            "search_panes",
            {"pattern": "shared-line", "session_name": session, "limit": 20, "offset": offset},
        )
        pages.append(page)
        assert page["total_panes"] == 50 and page["offset"] == offset and page["limit"] == 20
        seen += [match["pane_id"] for match in page["matches"]]
        if not page["has_more"]:
            break
        offset += 20
    assert [len(page["matches"]) for page in pages] == [20, 20, 10]
    assert [page["has_more"] for page in pages] == [True, True, False]
    assert seen == panes
    for page in pages:
        for match in page["matches"]:
            assert match["matched_lines"] == ["shared-line"] and match["line_numbers"] == [1]
    beyond = await python_client.ok(
        "search_panes", {"pattern": "shared-line", "session_name": session, "offset": 50}
    )
    assert (beyond["matches"], beyond["has_more"], beyond["total_panes"]) == ([], False, 50)
    everything = await python_client.ok("search_panes", {"pattern": "shared-line", "limit": None})
    assert everything["limit"] is None and everything["has_more"] is False
    assert [m["pane_id"] for m in everything["matches"]] == panes
    assert everything["total_panes"] > 50


async def test_search_panes_literal_regex_and_match_case(
    shared: TmuxServer, fifty: tuple[str, list[str]], python_client: Client
) -> None:
    session, panes = fifty
    session_id = shared.tmux("display-message", "-p", "-t", f"{session}:", "#{session_id}").strip()

    async def found(**arguments: object) -> list[str]:
        result = await python_client.ok("search_panes", {"session_id": session_id, **arguments})
        assert [m["pane_id"] for m in result["matches"]] == [
            pane for pane in panes if pane in {m["pane_id"] for m in result["matches"]}
        ]
        return sorted(line for match in result["matches"] for line in match["matched_lines"])

    every = sorted(f"{'Needle' if k % 2 == 0 else 'needle'}-{k} here" for k in range(50))
    assert await found(pattern="NEEDLE-") == every  # case-insensitive by default
    assert await found(pattern="needle-", match_case=True) == [
        line for line in every if line.startswith("needle")
    ]
    assert await found(pattern="needle-[0-9]+") == []  # literal: the brackets are text
    assert await found(pattern=r"needle-[0-9]+ here$", regex=True) == every
    assert await found(pattern=r"^Needle-\d*7 ", regex=True, match_case=True) == []
    assert await found(pattern=r"^needle-\d*7 ", regex=True, match_case=True) == sorted(
        f"needle-{k} here" for k in (7, 17, 27, 37, 47)
    )


async def test_search_panes_caps_matched_lines_per_pane(
    shared: TmuxServer, python_client: Client
) -> None:
    session = f"cap-{tag()}"
    pane = shared.new_session(session, *reader(*(f"hit {i}" for i in range(10)))).pane
    wait_for_line(shared, pane, "hit 9")
    capped = await python_client.ok(
        "search_panes", {"pattern": "hit", "session_name": session, "max_matched_lines_per_pane": 3}
    )
    [match] = capped["matches"]
    assert match["matched_lines"] == ["hit 0", "hit 1", "hit 2"]
    assert match["line_numbers"] == [0, 1, 2]
    assert capped["truncated_by"] == ["max_matched_lines_per_pane"]
    whole = await python_client.ok("search_panes", {"pattern": "hit", "session_name": session})
    assert len(whole["matches"][0]["matched_lines"]) == 10 and whole["truncated_by"] == []


async def test_search_panes_content_range_reaches_into_history_with_line_numbers(
    shared: TmuxServer, python_client: Client
) -> None:
    session = f"deep-{tag()}"
    pane = shared.new_session(session, *numbered(120, "zz-")).pane
    wait_for_line(shared, pane, "zz-120")
    on_screen = await python_client.ok(
        "search_panes", {"pattern": "zz-5$", "regex": True, "session_name": session}
    )
    assert on_screen["matches"] == []
    deep = await python_client.ok(
        "search_panes",
        {"pattern": "zz-5$", "regex": True, "session_name": session, "content_start": -500},
    )
    [match] = deep["matches"]
    assert match["matched_lines"] == ["zz-5"]
    [line] = match["line_numbers"]
    assert line < 0
    around = await python_client.ok("capture_pane", {"pane_id": pane, "start": line, "end": line})
    assert around["result"] == "zz-5"
    # content_end bounds the range too: only the history's newest 10 lines.
    window = await python_client.ok(
        "search_panes",
        {"pattern": "zz-", "session_name": session, "content_start": -10, "content_end": -1},
    )
    assert window["matches"][0]["line_numbers"] == list(range(-10, 0))


async def test_search_panes_a_catastrophic_regex_runs_out_of_time_instead_of_hanging(
    shared: TmuxServer, python_client: Client
) -> None:
    session = f"rx-{tag()}"
    script = (
        "stty -echo; i=0; while [ $i -lt 45 ]; do printf '%0199d\\n' 0 | tr 0 x; "
        "i=$((i+1)); done; echo end; exec cat"
    )
    pane = shared.new_session(session, "sh", "-c", script).pane
    wait_for_line(shared, pane, "end")
    with anyio.fail_after(20):
        found = await python_client.ok(
            "search_panes", {"pattern": "(x+x+)+y", "regex": True, "session_name": session}
        )
    assert found["matches"] == []
    assert "time" in found["truncated_by"]
    assert (found["limit"], found["has_more"]) == (1, False)


async def test_search_panes_refuses_bad_patterns_and_arguments_without_asking_tmux(
    shared: TmuxServer, python_client: Client
) -> None:
    with sending_nothing(shared):
        message = await python_client.error("search_panes", {"pattern": "(unclosed", "regex": True})
        assert "pattern" in message and "(unclosed" in message
        assert "pattern" in await python_client.error("search_panes", {"pattern": ""})
        for field, value in (("limit", 0), ("offset", -1), ("max_matched_lines_per_pane", 0)):
            message = await python_client.error("search_panes", {"pattern": "x", field: value})
            assert field in message, field
        message = await python_client.error("search_panes", {"pattern": "x", "session_id": "nope"})
        assert "session_id" in message
    message = await python_client.error("search_panes", {"pattern": "x", "session_name": "no-such"})
    assert "no-such" in message and shared.socket_path in message and "list_sessions" in message


# --- show_buffer ------------------------------------------------------------------------


async def test_show_buffer_returns_the_text_with_newlines_and_non_ascii(
    shared: TmuxServer, python_client: Client
) -> None:
    name = f"buf-{tag()}"
    text = "héllo wörld\nzweite Zeile ✓\n日本語\n"
    shared.tmux("set-buffer", "-b", name, text)
    shown = await python_client.ok("show_buffer", {"buffer_name": name})
    assert shown == {
        "buffer_name": name,
        "content": text,
        "truncated_lines": 0,
        "size_bytes": len(text.encode("utf-8")),
    }
    newest = await python_client.ok("show_buffer", {"buffer_name": name, "max_lines": 1})
    assert (newest["content"], newest["truncated_lines"]) == ("日本語\n", 2)
    assert newest["size_bytes"] == len(text.encode("utf-8"))
    bare = f"bare-{tag()}"
    shared.tmux("set-buffer", "-b", bare, "no newline at the end")
    assert (await python_client.ok("show_buffer", {"buffer_name": bare}))["content"] == (
        "no newline at the end"
    )


async def test_show_buffer_unknown_buffer_names_it_and_where_to_look(
    shared: TmuxServer, python_client: Client
) -> None:
    message = await python_client.error("show_buffer", {"buffer_name": "no-such-buffer"})
    assert "no-such-buffer" in message and shared.socket_path in message
    assert "list-buffers" in message
    with sending_nothing(shared):
        message = await python_client.error("show_buffer", {"buffer_name": "x", "max_lines": 0})
        assert "max_lines" in message
