"""The rust profile's reading tools against a real tmux: variables, options, environment,
hooks, captures, snapshots, following with a cursor and bounded search.

One tmux server and two rust servers for the module (one allowed to give out the value of
TCM_SHOWN); each test reads panes of its own, checked against tmux itself.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator

import pytest

from scripts.lab.client import Client, open_in_process
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.tmux import printed

pytestmark = pytest.mark.anyio

LONG = "x" * 190


@pytest.fixture(scope="module")
async def allowing(shared: TmuxServer) -> AsyncIterator[Client]:
    """A rust server that may give out TCM_SHOWN's value."""
    env = shared.server_env(LIBTMUX_TOOLSETS="inspect", LIBTMUX_ENVIRONMENT_VALUES="TCM_SHOWN")
    async with open_in_process(env, "rust") as opened:
        yield opened


@pytest.fixture(scope="module")
def big(shared: TmuxServer) -> str:
    """A pane with 6,000 short lines, then 3,000 of 190 characters, in a 9,000-line history."""
    shared.tmux("set-option", "-g", "history-limit", "20000")
    pane = printed(shared, f"seq 6000; yes {LONG} | head -n 3000")
    shared.tmux("set-option", "-g", "history-limit", "2000")
    return pane


def envelope(text: str) -> dict[str, object]:
    value = json.loads(text)
    assert set(value) == {"message", "data"}
    return dict(value)


def trimmed(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def screen(tmux: TmuxServer, pane: str, *args: str) -> list[str]:
    return tmux.tmux("capture-pane", "-p", "-t", pane, *args).split("\n")[:-1]


# --- get_tmux_variables ------------------------------------------------------------------


async def test_get_tmux_variables_expands_each_name_for_the_pane_as_tmux_does(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane = printed(shared, "true")
    names = ["pane_id", "window_id", "session_name", "pane_width", "mouse", "no_such_thing"]
    got = await rust_client.ok("get_tmux_variables", {"names": names, "pane": pane})
    fmt = "\x1f".join(f"#{{{name}}}" for name in names)
    expected = shared.tmux("display-message", "-p", "-t", pane, fmt).rstrip("\n").split("\x1f")
    assert got["values"] == dict(zip(names, expected, strict=True))
    assert got["values"]["pane_id"] == pane and got["values"]["no_such_thing"] == ""
    picked = await rust_client.ok("get_tmux_variables", {"names": ["pane_id"]})
    assert picked["values"]["pane_id"].startswith("%")


async def test_get_tmux_variables_refuses_a_name_tmux_answers_from_the_environment(
    shared: TmuxServer, rust_client: Client, allowing: Client
) -> None:
    shared.tmux("set-environment", "-g", "TCM_HIDDEN", "s3cret")
    shared.tmux("set-environment", "-g", "TCM_SHOWN", "visible")
    sent = envelope(await rust_client.error("get_tmux_variables", {"names": ["TCM_HIDDEN"]}))
    assert sent["data"] == {"kind": "invalid_input", "retryable": False, "stale": False}
    assert "names[0]" in str(sent["message"]) and "LIBTMUX_ENVIRONMENT_VALUES" in str(sent)
    assert "s3cret" not in str(sent)
    shown = await allowing.ok("get_tmux_variables", {"names": ["TCM_SHOWN"]})
    assert shown["values"] == {"TCM_SHOWN": "visible"}
    assert "s3cret" not in await allowing.error("get_tmux_variables", {"names": ["TCM_HIDDEN"]})


async def test_get_tmux_variables_unknown_pane_is_object_gone(
    shared: TmuxServer, rust_client: Client
) -> None:
    sent = envelope(await rust_client.error("get_tmux_variables", {"names": ["pane_id"], "pane": "%9999"}))  # fmt: skip
    assert sent["data"] == {"kind": "object_gone", "retryable": False, "stale": True}
    assert "%9999" in str(sent["message"])


# --- show_option, show_environment, show_hooks ------------------------------------------------


async def test_show_option_reads_each_scope_as_tmux_holds_it(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane = printed(shared, "true")
    window = shared.tmux("display-message", "-p", "-t", pane, "#{window_id}").strip()
    shared.tmux("set-option", "-p", "-t", pane, "@tcm_pane_opt", "on the pane")
    shared.tmux("set-option", "-w", "-t", window, "automatic-rename", "off")
    limit = shared.tmux("show-options", "-gv", "history-limit").strip()
    assert await rust_client.ok("show_option", {"name": "history-limit"}) == {
        "name": "history-limit",
        "value": limit,
    }
    by_scope = {"name": "@tcm_pane_opt", "scope": "pane", "target": pane}
    assert (await rust_client.ok("show_option", by_scope))["value"] == "on the pane"
    by_shape = {"name": "@tcm_pane_opt", "target": pane}  # no scope: the target's own
    assert (await rust_client.ok("show_option", by_shape))["value"] == "on the pane"
    local = {"name": "automatic-rename", "scope": "window", "target": window}
    assert (await rust_client.ok("show_option", local))["value"] == "off"
    unset = {"name": "@tcm_never_set", "scope": "global-window"}
    assert await rust_client.ok("show_option", unset) == {"name": "@tcm_never_set", "value": None}
    array = await rust_client.ok("show_option", {"name": "update-environment"})
    assert array["value"].split("\n") == shared.lines("show-options", "-gv", "update-environment")
    inherited = {"name": "mode-keys", "scope": "window", "target": window}
    assert (await rust_client.ok("show_option", inherited))["value"] is None


@pytest.mark.parametrize(
    ("arguments", "field", "kind"),
    [
        ({"name": "status", "scope": "session"}, "target", "invalid_input"),
        ({"name": "status", "scope": "server", "target": "main"}, "target", "invalid_input"),
        ({"name": "tcm-no-such-option"}, "tcm-no-such-option", "invalid_input"),
        ({"name": "status#(touch x)"}, "name", "invalid_input"),
        ({"name": "status", "scope": "session", "target": "no-such"}, "no-such", "object_gone"),
    ],
)
async def test_show_option_refuses_what_it_cannot_read_naming_it(
    shared: TmuxServer, rust_client: Client, arguments: dict[str, str], field: str, kind: str
) -> None:
    sent = envelope(await rust_client.error("show_option", arguments))
    assert field in str(sent["message"]) and sent["data"]["kind"] == kind  # type: ignore[index]


async def test_show_environment_withholds_values_the_user_did_not_allow(
    shared: TmuxServer, rust_client: Client, allowing: Client
) -> None:
    shared.tmux("set-environment", "-g", "TCM_HIDDEN", "s3cret")
    shared.tmux("set-environment", "-g", "TCM_SHOWN", "visible")
    shared.tmux("set-environment", "-g", "-r", "TCM_REMOVED")
    listed = shared.tmux("show-environment", "-g").splitlines()
    got = await rust_client.ok("show_environment", {})
    assert got["session"] is None
    assert [e["name"] for e in got["entries"]] == [
        line.split("=")[0].lstrip("-") for line in listed
    ]
    entries = {e["name"]: e for e in got["entries"]}
    assert entries["TCM_HIDDEN"] == {
        "name": "TCM_HIDDEN",
        "state": "set",
        "withheld": True,
        "value": None,
    }
    assert entries["TCM_REMOVED"] == {
        "name": "TCM_REMOVED",
        "state": "removed",
        "withheld": False,
        "value": None,
    }
    assert "s3cret" not in json.dumps(got)
    allowed = {e["name"]: e for e in (await allowing.ok("show_environment", {}))["entries"]}
    assert allowed["TCM_SHOWN"]["value"] == "visible" and allowed["TCM_HIDDEN"]["withheld"]


async def test_show_environment_and_hooks_of_one_session_by_name(
    shared: TmuxServer, rust_client: Client
) -> None:
    shared.tmux("new-session", "-d", "-s", "tcm-env")
    shared.tmux("set-environment", "-t", "tcm-env", "-r", "TCM_GONE_HERE")
    shared.tmux("set-hook", "-t", "tcm-env", "after-split-window", "display-message split")
    session_id = shared.tmux("display-message", "-p", "-t", "tcm-env", "#{session_id}").strip()
    got = await rust_client.ok("show_environment", {"session": "tcm-env"})
    assert got["session"] == session_id
    assert {"name": "TCM_GONE_HERE", "state": "removed", "withheld": False, "value": None} in got[
        "entries"
    ]
    hooks = await rust_client.ok("show_hooks", {"session": session_id})
    assert hooks["hooks"] == [
        {"name": "after-split-window", "command": "display-message split", "index": 0}
    ]
    missing = envelope(await rust_client.error("show_hooks", {"session": "tcm-no-such"}))
    assert missing["data"]["kind"] == "object_gone"  # type: ignore[index]


async def test_show_hooks_lists_only_hooks_that_are_set(
    shared: TmuxServer, rust_client: Client
) -> None:
    shared.tmux("set-hook", "-g", "after-new-window[3]", "display-message made")
    listed = shared.tmux("show-hooks", "-g").splitlines()
    set_lines = [line for line in listed if "[" in line.split(" ")[0]]
    assert len(listed) > len(set_lines)  # tmux also prints the hooks that are not set
    got = (await rust_client.ok("show_hooks", {}))["hooks"]
    assert len(got) == len(set_lines)
    assert {"name": "after-new-window", "command": "display-message made", "index": 3} in got


# --- capture_pane -----------------------------------------------------------------------


async def test_capture_pane_reads_screen_history_and_ranges_as_tmux_does(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane = printed(shared, "seq 80")
    got = await rust_client.ok("capture_pane", {"pane": pane})
    want = trimmed(screen(shared, pane))
    assert got == {"pane": pane, "text": "\n".join(want), "lines": len(want), "marks": "not_asked"}
    whole = await rust_client.ok("capture_pane", {"pane": pane, "history": True})
    assert whole["text"].split("\n") == trimmed(screen(shared, pane, "-S", "-"))
    assert whole["text"].startswith("1\n2\n")
    ranged = await rust_client.ok("capture_pane", {"pane": pane, "start": -3, "end": 1})
    assert ranged["text"].split("\n") == screen(shared, pane, "-S", "-3", "-E", "1")
    assert ranged["lines"] == 5


async def test_capture_pane_last_command_answers_the_screen_as_unsupported_on_this_tmux(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane = printed(shared, "seq 70")
    got = await rust_client.ok("capture_pane", {"pane": pane, "last_command": True, "start": -5})
    assert got["marks"] == "unsupported"
    assert got["text"].split("\n") == trimmed(screen(shared, pane))


async def test_capture_pane_refuses_a_range_too_big_before_capturing_and_a_text_too_long(
    shared: TmuxServer, rust_client: Client, big: str
) -> None:
    mark = shared.mark()
    cells = envelope(await rust_client.error("capture_pane", {"pane": big, "history": True}))
    assert cells["data"] == {"kind": "capacity", "retryable": True, "stale": False}
    assert "1,000,000 cells" in str(cells["message"]) and "start" in str(cells["message"])
    assert not [s for s in shared.sent_since(mark) if s.command == "capture-pane"]
    text = envelope(await rust_client.error("capture_pane", {"pane": big, "start": -4500}))
    assert text["data"]["kind"] == "capacity" and "400,000 bytes" in str(text["message"])  # type: ignore[index]
    fits = await rust_client.ok("capture_pane", {"pane": big, "start": -1500, "end": -1})
    assert fits["lines"] == 1500 and fits["text"].split("\n")[0] == LONG


# --- snapshot_pane ----------------------------------------------------------------------


async def test_snapshot_pane_reports_the_pane_as_tmux_does_and_keeps_the_newest_lines(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane = printed(shared, "seq 5")
    fmt = "#{pane_width} #{pane_height} #{cursor_x} #{cursor_y} #{window_id}"
    width, height, x, y, window = shared.tmux("display-message", "-p", "-t", pane, fmt).split()
    got = await rust_client.ok("snapshot_pane", {"pane": pane, "max_lines": 2})
    assert (got["width"], got["height"], got["cursor_x"], got["cursor_y"]) == (
        int(width), int(height), int(x), int(y)
    )  # fmt: skip
    assert got["pane"]["id"] == pane and got["pane"]["window_id"] == window
    assert (got["in_mode"], got["mode"], got["scroll_position"], got["dead"]) == (False, None, None, False)  # fmt: skip
    assert got["content"] == "4\n5" and got["lines"] == 2 and got["dropped"] == 3
    none = await rust_client.ok("snapshot_pane", {"pane": pane, "max_lines": 0})
    assert (none["content"], none["lines"], none["dropped"]) == ("", 0, 5)
    shared.tmux("copy-mode", "-t", pane)
    shared.tmux("send-keys", "-t", pane, "-X", "scroll-up")
    moded = await rust_client.ok("snapshot_pane", {"pane": pane})
    assert moded["in_mode"] is True and moded["mode"] == "copy-mode"
    assert moded["scroll_position"] == int(shared.tmux("display-message", "-p", "-t", pane, "#{scroll_position}"))  # fmt: skip


async def test_snapshot_pane_history_keeps_the_newest_within_the_byte_bound(
    shared: TmuxServer, rust_client: Client, big: str
) -> None:
    got = await rust_client.ok("snapshot_pane", {"pane": big, "history": True})
    assert len(got["content"].encode()) <= 400_000 and got["content"].endswith(LONG)
    assert got["dropped"] > 0 and got["lines"] + got["dropped"] > 3000


# --- capture_since ----------------------------------------------------------------------


async def test_capture_since_opens_with_the_screen_then_gives_only_new_lines(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane = shared.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:", "cat").strip()
    shared.tmux("send-keys", "-t", pane, "-l", "first\n")
    shared.wait_for_prompt(pane)
    opened = await rust_client.ok("capture_since", {"pane": pane})
    assert opened["first"] is True and opened["missed"] is False and opened["closed"] is False
    assert opened["text"].split("\n") == trimmed(screen(shared, pane))
    channel = f"c{uuid.uuid4().hex[:8]}"
    shared.tmux("send-keys", "-t", pane, "-l", "second\nthird\n")
    shared.tmux("run-shell", "-b", f"sleep 0.2; tmux wait-for -S {channel}")
    shared.tmux("wait-for", channel)
    later = await rust_client.ok("capture_since", {"pane": pane, "cursor": opened["cursor"]})
    assert later["first"] is False and later["missed"] is False
    assert sorted(later["text"].split("\n")) == ["second", "second", "third", "third"]  # echo, cat
    again = await rust_client.ok("capture_since", {"pane": pane, "cursor": later["cursor"]})
    assert again["text"] == ""


async def test_capture_since_says_missed_and_closed(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane = printed(shared, "true")
    opened = await rust_client.ok("capture_since", {"pane": pane})
    shared.tmux("set-option", "-p", "-t", pane, "remain-on-exit", "on")
    shared.tmux("respawn-pane", "-k", "-t", pane, "seq 2500")
    shared.tmux("run-shell", "-b", "true")
    restarted = await rust_client.ok("capture_since", {"pane": pane, "cursor": opened["cursor"]})
    assert restarted["missed"] is True
    shared.tmux("kill-pane", "-t", pane)
    gone = await rust_client.ok("capture_since", {"pane": pane, "cursor": restarted["cursor"]})
    assert gone["closed"] is True and gone["text"] == ""


async def test_capture_since_says_missed_when_lines_scrolled_out_before_they_were_read(
    shared: TmuxServer, rust_client: Client
) -> None:
    ready, channel = f"r{uuid.uuid4().hex[:8]}", f"c{uuid.uuid4().hex[:8]}"
    pane = shared.tmux(
        "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:",
        f"echo start; tmux wait-for -S {ready}; read go; seq 2500; tmux wait-for -S {channel}; exec cat",
    ).strip()  # fmt: skip
    shared.tmux("wait-for", ready)  # the cursor is anchored on "start", not on an empty pane
    opened = await rust_client.ok("capture_since", {"pane": pane})
    shared.tmux("send-keys", "-t", pane, "Enter")
    shared.tmux("wait-for", channel)
    got = await rust_client.ok("capture_since", {"pane": pane, "cursor": opened["cursor"]})
    assert got["missed"] is True
    assert got["text"].split("\n")[-1] == "2500" and len(got["text"].split("\n")) <= 2000


async def test_capture_since_refuses_a_cursor_of_another_pane_or_a_made_up_one(
    shared: TmuxServer, rust_client: Client
) -> None:
    one, other = printed(shared, "true"), printed(shared, "true")
    cursor = (await rust_client.ok("capture_since", {"pane": one}))["cursor"]
    for bad in (cursor, "not-a-cursor", cursor[:-2] + "AA"):
        if bad == cursor:
            sent = envelope(
                await rust_client.error("capture_since", {"pane": other, "cursor": bad})
            )
        else:
            sent = envelope(await rust_client.error("capture_since", {"pane": one, "cursor": bad}))
        assert sent["data"]["kind"] == "invalid_input" and "cursor" in str(sent["message"])  # type: ignore[index]


# --- search_panes -----------------------------------------------------------------------


async def test_search_panes_is_literal_and_case_insensitive_unless_asked(
    shared: TmuxServer, rust_client: Client
) -> None:
    shared.tmux("new-session", "-d", "-s", "tcm-search")
    pane = printed(shared, "printf 'Needle.one\\nneedleXone\\n'", session="tcm-search")
    window = shared.tmux("display-message", "-p", "-t", pane, "#{window_id}").strip()
    rows = [r for r in screen(shared, pane)]
    scope = {"session": "tcm-search"}

    async def lines(**arguments: object) -> list[int]:
        got = await rust_client.ok("search_panes", {**scope, **arguments})
        assert got["capped"] is False
        assert all(m["pane"] == pane and m["window_id"] == window for m in got["matches"])
        assert all(rows[m["line"]] == m["text"] for m in got["matches"])
        return [m["line"] for m in got["matches"]]

    at = [i for i, r in enumerate(rows) if r in ("Needle.one", "needleXone")]
    assert await lines(pattern="needle.one") == at[:1]
    assert await lines(pattern="needle.one", match_case=True) == []
    assert await lines(pattern="needle.one", regex=True) == at
    assert await lines(pattern="^needle.one$", regex=True, match_case=True) == at[1:]
    in_window = await rust_client.ok("search_panes", {"pattern": "needle", "window": window})
    assert in_window["panes_searched"] == 1 and len(in_window["matches"]) == 2
    mixed = envelope(await rust_client.error("search_panes", {"pattern": "x", "window": window, "session": "main"}))  # fmt: skip
    assert mixed["data"]["kind"] == "invalid_input" and window in str(mixed["message"])  # type: ignore[index]


@pytest.mark.parametrize(
    "pattern",
    [r"a(?=b)", r"(?<!a)b", r"(a)\1", r"(?P<x>a)(?P=x)", r"(?>ab)", r"\Z", r"a(", "€" * 1400],
)
async def test_search_panes_refuses_what_rust_regex_refuses_before_reading(
    shared: TmuxServer, rust_client: Client, pattern: str
) -> None:
    mark = shared.mark()
    sent = envelope(await rust_client.error("search_panes", {"pattern": pattern, "regex": True}))
    assert sent["data"]["kind"] == "invalid_input" and "`pattern`" in str(sent["message"])  # type: ignore[index]
    shared.assert_nothing_sent_since(mark, pattern)


async def test_search_panes_is_capped_by_lines_matches_and_matching_time(
    shared: TmuxServer, rust_client: Client, big: str
) -> None:
    window = shared.tmux("display-message", "-p", "-t", big, "#{window_id}").strip()
    lines = await rust_client.ok("search_panes", {"pattern": LONG, "window": window, "history": True})  # fmt: skip
    assert lines["capped"] is True and lines["panes_searched"] == 1  # 9,050 lines > 8,192
    assert len(lines["matches"]) == 200  # and at most 200 matches
    screen_only = await rust_client.ok(
        "search_panes", {"pattern": "no such text", "window": window}
    )
    assert screen_only == {"matches": [], "panes_searched": 1, "capped": False}
    # 4,050 lines, under the line and byte ceilings: only the 250 ms of matching can cap it.
    # The crate never backtracks, but a counted repeat of Unicode classes still costs it
    # about a millisecond a line here (some 4 s in all).
    shared.tmux("set-option", "-g", "history-limit", "20000")
    slow = printed(shared, f"yes {LONG} | head -n 4000")
    shared.tmux("set-option", "-g", "history-limit", "2000")
    slow_window = shared.tmux("display-message", "-p", "-t", slow, "#{window_id}").strip()
    search = {"regex": True, "window": slow_window, "history": True}
    quick = await rust_client.ok("search_panes", {"pattern": "^x+!$", **search})
    assert quick == {"matches": [], "panes_searched": 1, "capped": False}
    costly = r"(?:\w{1,20}\s?){1,10}\p{Nd}$"
    timed = await rust_client.ok("search_panes", {"pattern": costly, **search})
    assert timed["capped"] is True and timed["matches"] == []


async def test_search_panes_reads_at_most_one_mebibyte(
    shared: TmuxServer, rust_client: Client
) -> None:
    shared.tmux("set-option", "-g", "history-limit", "20000")
    pane = printed(shared, f"yes {LONG} | head -n 6000")  # 6,050 lines, over 1 MiB
    shared.tmux("set-option", "-g", "history-limit", "2000")
    window = shared.tmux("display-message", "-p", "-t", pane, "#{window_id}").strip()
    got = await rust_client.ok("search_panes", {"pattern": "absent", "window": window, "history": True})  # fmt: skip
    assert got == {"matches": [], "panes_searched": 1, "capped": True}


async def test_search_panes_reads_at_most_64_panes(shared: TmuxServer, rust_client: Client) -> None:
    shared.tmux("new-session", "-d", "-s", "tcm-many", "cat")
    words: list[str] = []
    for _ in range(64):
        words += ["new-window", "-d", "-t", "tcm-many:", "cat", ";"]
    shared.tmux(*words[:-1])
    got = await rust_client.ok("search_panes", {"pattern": "nothing here", "session": "tcm-many"})
    assert got == {"matches": [], "panes_searched": 64, "capped": True}
    shared.tmux("kill-session", "-t", "tcm-many")


# --- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("get_tmux_variables", {"names": []}, "names"),
        ("get_tmux_variables", {"names": ["#(touch /tmp/x)"]}, "names"),
        ("show_option", {"name": 5}, "name"),
        ("show_option", {"name": "status", "scope": "everywhere"}, "scope"),
        ("show_environment", {"session": 1}, "session"),
        ("show_hooks", {"extra": True}, "extra"),
        ("capture_pane", {"pane": "%0", "start": 2**40}, "start"),
        ("capture_pane", {"pane": "%0", "end": "1"}, "end"),
        ("capture_pane", {"pane": "zero"}, "pane"),
        ("snapshot_pane", {"pane": "%0", "max_lines": -1}, "max_lines"),
        ("capture_since", {}, "pane"),
        ("search_panes", {"pattern": "x", "regex": "yes"}, "regex"),
    ],
)
async def test_bad_input_is_refused_naming_the_field_and_nothing_reaches_tmux(
    shared: TmuxServer, rust_client: Client, tool: str, arguments: dict[str, object], field: str
) -> None:
    before, mark = shared.state(), shared.mark()
    sent = envelope(await rust_client.error(tool, arguments))
    assert sent["data"]["kind"] == "invalid_input" and field in str(sent["message"])  # type: ignore[index]
    shared.assert_nothing_sent_since(mark, tool)
    assert shared.state() == before
