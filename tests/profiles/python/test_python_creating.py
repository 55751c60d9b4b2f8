"""The python profile's creating tools (create_session, create_window, split_window,
set_option, set_environment, pipe_pane, paste_buffer), through the MCP client against real tmux.

One tmux server serves the module, reached by one MCP server per transport: every
test runs over both the control client and subprocesses. Each test makes its own
sessions and uniquely named options, variables and buffers, and reads the result back
from tmux itself. Values made of ``;``, formats, ``#(...)``, ``$(...)``, quotes, a
newline and non-ASCII must reach tmux literally, and never run: the marker file
their commands would create must not exist.
"""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest

from scripts.lab.client import Client
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.tmux import tag

pytestmark = [pytest.mark.anyio, pytest.mark.transports("control", "subprocess")]

T = TypeVar("T")
SEP = "\x1f"


# --- fixtures ---------------------------------------------------------------------------


@pytest.fixture
def marker(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "marker"
    yield path
    assert not path.exists(), "a value was run as a command"


def tricky(marker: Path, newline: bool = True) -> str:
    """A value every creating tool must pass on literally."""
    value = f"x;y #{{session_name}} #(touch {marker}) $(touch {marker}) `touch {marker}` '\" é漢"
    return value + ("\nline2;" if newline else ";")


# --- helpers ----------------------------------------------------------------------------


def show(server: TmuxServer, target: str, *fields: str) -> dict[str, str]:
    """Fields of one pane, window or session as tmux expands them (values may hold newlines)."""
    fmt = SEP.join(f"#{{{field}}}" for field in fields)
    out = server.tmux("display-message", "-p", "-t", target, fmt).removesuffix("\n")
    return dict(zip(fields, out.split(SEP), strict=True))


def session_names(server: TmuxServer) -> list[str]:
    return server.lines("list-sessions", "-F", "#{session_name}")


def session_variable(server: TmuxServer, name: str, *scope: str) -> str | None:
    """A variable of tmux's environment, read raw (a value may hold a newline)."""
    done = server.tmux("show-environment", *scope, "--", name, check=False)
    if not done.startswith(f"{name}="):
        return None
    return done[len(name) + 1 :].removesuffix("\n")


def option_value(server: TmuxServer, *args: str) -> str:
    return server.tmux("show-options", "-v", *args).removesuffix("\n")


async def until_found(probe: Callable[[], T | None], timeout: float = 10.0) -> T:
    """``probe()`` once it is not None; fails after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        found = probe()
        if found is not None:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {probe.__doc__ or probe}")
        await anyio.sleep(0.05)


def file_text(path: Path, ending: str = "") -> Callable[[], str | None]:
    """A probe: the file's text once it exists (and ends with ``ending``)."""

    def probe() -> str | None:
        try:
            text = path.read_text(encoding="utf-8")
        except (FileNotFoundError, UnicodeDecodeError):
            return None
        return text if text.endswith(ending) else None

    return probe


def screen_has(server: TmuxServer, pane: str, text: str) -> Callable[[], bool | None]:
    def probe() -> bool | None:
        screen = server.tmux("capture-pane", "-p", "-t", pane)
        probe.__doc__ = f"{text!r} on the screen of {pane}:\n{screen}"
        return True if text in screen else None

    return probe


async def dump_variable(server: TmuxServer, pane: str, name: str, out: Path) -> str:
    """The value of ``name`` in the shell of ``pane``, as that shell sees it."""
    done = out.with_suffix(".done")
    line = f"printf '%s' \"${name}\" > {shlex.quote(str(out))}; touch {shlex.quote(str(done))}"
    server.tmux("send-keys", "-t", pane, "-l", line)
    server.tmux("send-keys", "-t", pane, "Enter")
    await until_found(lambda: True if done.exists() else None)
    return out.read_text(encoding="utf-8")


def literal_dir(base: Path, name: str) -> Path:
    """A directory whose path ends in ``name`` (slashes in it make subdirectories)."""
    path = Path(f"{base}/{name}")
    path.mkdir(parents=True)
    return path


# --- create_session ---------------------------------------------------------------------


async def test_create_session_returns_the_new_session_as_tmux_reports_it(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    name = f"made-{tag()}"
    result = await python_client.ok(
        "create_session",
        {
            "session_name": name,
            "window_name": "first",
            "start_directory": str(tmp_path),
            "x": 123,
            "y": 31,
            "environment": {"MADE_BY": "create_session"},
        },
    )
    tmux = show(shared, name, "session_id", "session_windows", "session_created", "pane_id")
    assert result == {
        "session_id": tmux["session_id"],
        "session_name": name,
        "window_count": 1,
        "session_attached": "0",
        "session_created": tmux["session_created"],
        "active_pane_id": tmux["pane_id"],
    }
    pane = show(shared, tmux["pane_id"], "window_name", "window_width", "window_height")
    assert pane == {"window_name": "first", "window_width": "123", "window_height": "31"}
    path = await until_found(
        lambda: show(shared, tmux["pane_id"], "pane_current_path")["pane_current_path"] or None
    )
    assert os.path.realpath(path) == os.path.realpath(tmp_path)
    # new-session -e fills the session's environment: later panes inherit it too.
    assert session_variable(shared, "MADE_BY", "-t", tmux["session_id"]) == "create_session"


async def test_create_session_without_a_name_lets_tmux_pick_one(
    shared: TmuxServer, python_client: Client
) -> None:
    result = await python_client.ok("create_session", {"environment": '{"AS_JSON": "yes"}'})
    assert result["session_name"] in session_names(shared)
    assert (
        show(shared, result["session_id"], "session_name")["session_name"]
        == (result["session_name"])
    )
    assert session_variable(shared, "AS_JSON", "-t", result["session_id"]) == "yes"


@pytest.mark.parametrize("name", ["a:b", "a.b", "", "two\nlines", "back\\slash", "tab\there"])
async def test_create_session_refuses_a_name_tmux_would_change(
    shared: TmuxServer, python_client: Client, name: str
) -> None:
    before = session_names(shared)
    message = await python_client.error("create_session", {"session_name": name})
    assert "session_name" in message and repr(name) in message
    assert session_names(shared) == before


async def test_create_session_with_a_taken_name_says_which_and_where(
    shared: TmuxServer, python_client: Client
) -> None:
    name = f"taken-{tag()}"
    shared.new_session(name)
    message = await python_client.error("create_session", {"session_name": name})
    assert name in message and shared.name in message and "list_sessions" in message
    assert session_names(shared).count(name) == 1


async def test_create_session_starts_a_server_on_an_idle_socket(
    shared: TmuxServer, python_client: Client
) -> None:
    fresh = TmuxServer(shared.tmpdir, f"n{tag()}", dict(shared.env), owns_tmpdir=False)
    try:
        result = await python_client.ok(
            "create_session", {"session_name": "born", "socket_name": fresh.name}
        )
        assert session_names(fresh) == ["born"]
        assert result["session_id"] == show(fresh, "born", "session_id")["session_id"]
        assert "born" not in session_names(shared)
    finally:
        fresh.kill()


@pytest.mark.parametrize(
    "arguments",
    [
        {"x": 0},
        {"y": 10001},
        {"environment": {"A=B": "x"}},
        {"environment": {"": "x"}},
        {"environment": "[1, 2]"},
        {"environment": "{not json"},
        {"environment": '{"N": 5}'},
        {"start_directory": "/no/such/directory"},
        {"suppress_persistent_history": True, "environment": {"HISTFILE": "/tmp/h"}},
    ],
)
async def test_create_session_refuses_bad_arguments_before_tmux_runs(
    shared: TmuxServer, python_client: Client, arguments: dict[str, Any]
) -> None:
    before = session_names(shared)
    mark = shared.mark()
    message = await python_client.error("create_session", arguments)
    assert f"`{next(iter(arguments))}`" in message or "`environment`" in message
    shared.assert_nothing_sent_since(mark)
    assert session_names(shared) == before


async def test_suppress_persistent_history_keeps_the_shell_history_off_disk(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    result = await python_client.ok(
        "create_session",
        {
            "suppress_persistent_history": True,
            "environment": {"HISTCONTROL": "ignoredups", "HISTFILE": ""},
        },
    )
    session = result["session_id"]
    assert session_variable(shared, "HISTFILE", "-t", session) == ""
    assert session_variable(shared, "fish_history", "-t", session) == ""
    assert session_variable(shared, "fish_private_mode", "-t", session) == "1"
    assert session_variable(shared, "HISTCONTROL", "-t", session) == "ignoredups:ignorespace"
    # For a window it reaches only that window's shell, not the session environment.
    window = await python_client.ok(
        "create_window", {"session_id": session, "suppress_persistent_history": True}
    )
    pane = window["active_pane_id"]
    assert await dump_variable(shared, pane, "fish_private_mode", tmp_path / "v") == "1"


# --- create_window ----------------------------------------------------------------------


async def test_create_window_reports_the_window_tmux_made(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    name = f"win-{tag()}"
    made = shared.new_session(name)
    session_id, first = made.id, made.window
    result = await python_client.ok(
        "create_window",
        {"session_name": name, "window_name": "logs", "start_directory": str(tmp_path)},
    )
    window = result["window_id"]
    tmux = show(
        shared,
        window,
        "window_index",
        "window_layout",
        "window_width",
        "window_height",
        "pane_id",
    )
    assert result == {
        "window_id": window,
        "window_name": "logs",
        "window_index": "1",
        "session_id": session_id,
        "session_name": name,
        "pane_count": 1,
        "window_layout": tmux["window_layout"],
        "window_active": "0",
        "window_width": tmux["window_width"],
        "window_height": tmux["window_height"],
        "active_pane_id": tmux["pane_id"],
    }
    # attach false leaves the session's current window alone.
    assert show(shared, session_id, "window_id")["window_id"] == first
    path = await until_found(
        lambda: show(shared, tmux["pane_id"], "pane_current_path")["pane_current_path"] or None
    )
    assert os.path.realpath(path) == os.path.realpath(tmp_path)


async def test_create_window_places_it_before_or_after_the_current_window(
    shared: TmuxServer, python_client: Client
) -> None:
    name = f"order-{tag()}"
    made = shared.new_session(name)
    session_id, first = made.id, made.window
    last = shared.tmux("new-window", "-d", "-t", f"{session_id}:", "-P", "-F", "#{window_id}")
    after = await python_client.ok(
        "create_window", {"session_id": session_id, "direction": "after"}
    )
    before = await python_client.ok(
        "create_window", {"session_id": session_id, "direction": "before"}
    )
    at_end = await python_client.ok("create_window", {"session_id": session_id, "attach": True})
    order = shared.lines("list-windows", "-t", session_id, "-F", "#{window_id}")
    assert order == [
        before["window_id"],
        first,
        after["window_id"],
        last.strip(),
        at_end["window_id"],
    ]
    assert at_end["window_active"] == "1"
    assert show(shared, session_id, "window_id")["window_id"] == at_end["window_id"]


async def test_create_window_environment_reaches_only_its_pane(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    session_id = shared.new_session(f"env-{tag()}").id
    result = await python_client.ok(
        "create_window", {"session_id": session_id, "environment": {"ONLY_HERE": "pane value"}}
    )
    pane = result["active_pane_id"]
    assert await dump_variable(shared, pane, "ONLY_HERE", tmp_path / "v") == "pane value"
    assert session_variable(shared, "ONLY_HERE", "-t", session_id) is None


async def test_create_window_names_a_missing_session_and_the_socket(
    shared: TmuxServer, python_client: Client
) -> None:
    message = await python_client.error("create_window", {"session_name": f"absent-{tag()}"})
    assert "absent-" in message and shared.name in message and "list_sessions" in message
    message = await python_client.error("create_window", {"session_id": "$99999"})
    assert "$99999" in message and shared.name in message


# --- split_window -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("direction", "size", "edge", "measure", "expected"),
    [
        ("right", 30, "pane_at_right", "pane_width", "30"),
        ("left", "40", "pane_at_left", "pane_width", "40"),
        ("below", "20%", "pane_at_bottom", "pane_height", "10"),
        ("above", None, "pane_at_top", "pane_height", "half"),
        (None, 7, "pane_at_bottom", "pane_height", "7"),
    ],
)
async def test_split_window_puts_the_new_pane_where_asked(
    shared: TmuxServer,
    python_client: Client,
    direction: str | None,
    size: str | int | None,
    edge: str,
    measure: str,
    expected: str,
) -> None:
    made = shared.new_session(f"split-{tag()}")
    window, pane = made.window, made.pane
    result = await python_client.ok(
        "split_window", {"pane_id": pane, "direction": direction, "size": size}
    )
    new = result["pane_id"]
    assert shared.lines("list-panes", "-t", window, "-F", "#{pane_id}") == (
        [new, pane] if direction in ("left", "above") else [pane, new]
    )
    assert result[edge] is True
    if expected == "half":
        old = show(shared, pane, measure)[measure]
        assert abs(int(result[measure]) - int(old)) <= 1
    else:
        assert result[measure] == expected
    assert result["pane_active"] == "0"
    assert result["window_id"] == window
    assert shared.active_pane(window) == pane
    tmux = show(shared, new, "pane_width", "pane_height", "pane_left", "pane_top", "pane_tty")
    assert result["pane_width"] == tmux["pane_width"]
    assert result["pane_top"] == int(tmux["pane_top"])
    assert result["pane_tty"] == tmux["pane_tty"]


async def test_split_window_without_a_pane_splits_the_windows_active_pane(
    shared: TmuxServer, python_client: Client
) -> None:
    name = f"splitw-{tag()}"
    session_id, window, pane = shared.new_session(name).ids
    result = await python_client.ok("split_window", {"window_id": window, "direction": "right"})
    assert result["window_id"] == window
    result = await python_client.ok(
        "split_window", {"session_name": name, "window_index": "0", "direction": "below"}
    )
    assert result["window_id"] == window
    result = await python_client.ok("split_window", {"session_id": session_id})
    assert len(shared.lines("list-panes", "-t", window)) == 4
    assert shared.active_pane(window) == pane


async def test_split_window_runs_its_shell_command_in_the_directory_and_environment_given(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    pane = shared.new_session(f"shell-{tag()}").pane
    out = tmp_path / "out"
    result = await python_client.ok(
        "split_window",
        {
            "pane_id": pane,
            "start_directory": str(tmp_path),
            "environment": {"GREETING": "hello there"},
            "shell": f'printf "%s|%s" "$PWD" "$GREETING" > {shlex.quote(str(out))}.tmp '
            f"&& mv {shlex.quote(str(out))}.tmp {shlex.quote(str(out))}",
        },
    )
    assert result["pane_id"].startswith("%")
    text = await until_found(file_text(out))
    directory, greeting = text.split("|")
    assert os.path.realpath(directory) == os.path.realpath(tmp_path)
    assert greeting == "hello there"


async def test_split_window_on_a_pane_too_small_says_what_to_do(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(f"small-{tag()}")
    window, pane = made.window, made.pane
    shared.tmux("resize-window", "-t", window, "-x", "200", "-y", "2")
    message = await python_client.error("split_window", {"pane_id": pane, "size": "100%"})
    assert pane in message and shared.name in message and "smaller size" in message
    assert len(shared.lines("list-panes", "-t", window)) == 1


@pytest.mark.parametrize(
    "arguments",
    [
        {"size": 0},
        {"size": "0%"},
        {"size": "101%"},
        {"size": "ten"},
        {"size": "-5"},
        {"shell": "  "},
        {"pane_id": "abc"},
        {"window_id": "1"},
        {"window_index": "x", "session_name": "main"},
        {"window_index": "1"},
        {"session_id": "main"},
        {"start_directory": "/no/such/dir"},
    ],
)
async def test_split_window_refuses_bad_arguments_before_tmux_runs(
    shared: TmuxServer, python_client: Client, arguments: dict[str, Any]
) -> None:
    before = shared.state()
    mark = shared.mark()
    message = await python_client.error("split_window", arguments)
    assert f"`{next(iter(arguments))}`" in message
    shared.assert_nothing_sent_since(mark)
    assert shared.state() == before


async def test_split_window_names_a_missing_pane_and_the_socket(
    shared: TmuxServer, python_client: Client
) -> None:
    message = await python_client.error("split_window", {"pane_id": "%99999"})
    assert "%99999" in message and shared.name in message and "list_panes" in message


# --- set_option -------------------------------------------------------------------------


async def test_set_option_sets_each_scope_and_the_global_value(
    shared: TmuxServer, python_client: Client
) -> None:
    name = f"opt-{tag()}"
    session_id, window, pane = shared.new_session(name).ids
    cases: list[tuple[dict[str, Any], tuple[str, ...]]] = [
        ({"scope": "session", "target": name}, ("-t", session_id)),
        ({"scope": "window", "target": window}, ("-w", "-t", window)),
        ({"scope": "pane", "target": pane}, ("-p", "-t", pane)),
        ({"scope": "server"}, ("-s",)),
        ({"global_": True}, ("-g",)),
        ({"scope": "window", "global_": True}, ("-gw",)),
    ]
    for index, (where, flags) in enumerate(cases):
        option = f"@{name}-{index}"
        value = f"-value {index}"  # a leading '-' stays part of the value
        result = await python_client.ok("set_option", {"option": option, "value": value, **where})
        assert result == {"option": option, "value": value, "status": "set"}
        assert option_value(shared, *flags, option) == value, where
    # A real option, through a session given by name; tmux checks the value's type.
    await python_client.ok(
        "set_option", {"option": "history-limit", "value": "777", "target": name}
    )
    assert option_value(shared, "-t", session_id, "history-limit") == "777"
    await python_client.ok(
        "set_option",
        {"option": "remain-on-exit", "value": "on", "scope": "pane", "target": pane},
    )
    assert option_value(shared, "-p", "-t", pane, "remain-on-exit") == "on"


async def test_set_option_without_a_target_sets_what_show_option_reads(
    shared: TmuxServer, python_client: Client
) -> None:
    option = f"@default-{tag()}"
    await python_client.ok("set_option", {"option": option, "value": "here"})
    result = await python_client.ok("show_option", {"option": option})
    assert result["value"] == "here"


async def test_set_option_errors_name_the_option_the_value_and_the_socket(
    shared: TmuxServer, python_client: Client
) -> None:
    message = await python_client.error("set_option", {"option": "history-limit", "value": "lots"})
    assert "history-limit" in message and "lots" in message and shared.name in message
    message = await python_client.error("set_option", {"option": "no-such-option-x", "value": "1"})
    assert "no-such-option-x" in message and shared.name in message
    message = await python_client.error(
        "set_option", {"option": "@x", "value": "1", "scope": "pane", "target": "%99999"}
    )
    assert "%99999" in message and shared.name in message and "list_panes" in message
    message = await python_client.error(
        "set_option", {"option": "@x", "value": "1", "target": f"nosession-{tag()}"}
    )
    assert "nosession-" in message and "list_sessions" in message
    before = option_value(shared, "-g", "status")
    message = await python_client.error("set_option", {"option": "status -g", "value": "off"})
    assert "`option`" in message
    assert option_value(shared, "-g", "status") == before


# --- set_environment --------------------------------------------------------------------


async def test_set_environment_sets_a_session_or_the_global_environment(
    shared: TmuxServer, python_client: Client
) -> None:
    name = f"envs-{tag()}"
    session_id = shared.new_session(name).id
    variable = f"V_{tag()}"
    result = await python_client.ok(
        "set_environment", {"name": variable, "value": "-in session", "session_name": name}
    )
    assert result == {"name": variable, "value": "-in session", "status": "set"}
    assert session_variable(shared, variable, "-t", session_id) == "-in session"
    assert session_variable(shared, variable, "-g") is None
    await python_client.ok(
        "set_environment", {"name": variable, "value": "", "session_id": session_id}
    )
    assert session_variable(shared, variable, "-t", session_id) == ""
    await python_client.ok("set_environment", {"name": variable, "value": "everywhere"})
    assert session_variable(shared, variable, "-g") == "everywhere"
    shared.tmux("set-environment", "-gu", variable)


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"name": "A=B", "value": "x"}, "`name`"),
        ({"name": "", "value": "x"}, "`name`"),
        ({"name": "TWO\nLINES", "value": "x"}, "`name`"),
        ({"name": "OK", "value": "x", "session_id": "1"}, "`session_id`"),
        ({"name": "OK", "value": "x", "session_name": "absent-session"}, "absent-session"),
        ({"name": "OK", "value": "x", "session_id": "$99999"}, "$99999"),
    ],
)
async def test_set_environment_refuses_what_it_cannot_set(
    shared: TmuxServer, python_client: Client, arguments: dict[str, Any], field: str
) -> None:
    message = await python_client.error("set_environment", arguments)
    assert field in message
    assert session_variable(shared, "OK", "-g") is None


# --- pipe_pane --------------------------------------------------------------------------


async def test_pipe_pane_copies_output_to_a_file_until_stopped(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    pane = shared.new_session(f"pipe-{tag()}").pane
    log = tmp_path / "pane.log"
    log.write_text("before\n")
    result = await python_client.ok("pipe_pane", {"pane_id": pane, "output_path": str(log)})
    assert pane in result["result"] and str(log) in result["result"]
    assert show(shared, pane, "pane_pipe")["pane_pipe"] == "1"
    shared.tmux("send-keys", "-t", pane, "echo piped-$((6*7))", "Enter")
    text = await until_found(lambda: log.read_text() if "piped-42" in log.read_text() else None)
    assert text.startswith("before\n")
    stopped = await python_client.ok("pipe_pane", {"pane_id": pane})
    assert "Stopped" in stopped["result"]
    assert show(shared, pane, "pane_pipe")["pane_pipe"] == "0"
    again = await python_client.ok("pipe_pane", {"pane_id": pane})
    assert "not being piped" in again["result"]


async def test_pipe_pane_without_append_starts_the_file_afresh(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    name = f"pipe-{tag()}"
    pane = shared.new_session(name).pane
    log = tmp_path / "fresh.log"
    log.write_text("old content\n")
    await python_client.ok(
        "pipe_pane", {"session_name": name, "output_path": str(log), "append": False}
    )
    shared.tmux("send-keys", "-t", pane, "echo fresh-$((6*7))", "Enter")
    text = await until_found(lambda: log.read_text() if "fresh-42" in log.read_text() else None)
    assert "old content" not in text
    await python_client.ok("pipe_pane", {"pane_id": pane})


@pytest.mark.parametrize(
    "arguments",
    [
        {"output_path": "/no/such/dir/file.log"},
        {"output_path": "/"},
        {"output_path": " "},
        {"pane_id": "17"},
        {"window_id": "w"},
        {"session_id": "$x"},
    ],
)
async def test_pipe_pane_refuses_bad_arguments_before_tmux_runs(
    shared: TmuxServer, python_client: Client, arguments: dict[str, Any]
) -> None:
    mark = shared.mark()
    message = await python_client.error("pipe_pane", arguments)
    assert f"`{next(iter(arguments))}`" in message
    shared.assert_nothing_sent_since(mark)


async def test_pipe_pane_names_a_missing_pane_and_the_socket(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    message = await python_client.error(
        "pipe_pane", {"pane_id": "%99999", "output_path": str(tmp_path / "x")}
    )
    assert "%99999" in message and shared.name in message
    assert not (tmp_path / "x").exists()


# --- paste_buffer -----------------------------------------------------------------------


async def reader(shared: TmuxServer, out: Path, size: int, bracketed: bool) -> str:
    """A pane whose program reads ``size`` bytes of input into ``out``."""
    pane = shared.new_session(f"paste-{tag()}").pane
    enable = "printf '\\033[?2004h'; " if bracketed else ""
    target = shlex.quote(str(out))
    command = (
        f"stty -icanon -echo; {enable}echo ready-$((6*7)); "
        f"dd bs=1 count={size} of={target}.tmp 2>/dev/null; mv {target}.tmp {target}"
    )
    shared.tmux("send-keys", "-t", pane, "-l", command)
    shared.tmux("send-keys", "-t", pane, "Enter")
    await until_found(screen_has(shared, pane, "ready-42"))
    return pane


@pytest.mark.parametrize("bracket", [True, False])
async def test_paste_buffer_types_the_buffer_into_the_pane(
    shared: TmuxServer, python_client: Client, tmp_path: Path, bracket: bool
) -> None:
    text = f"pasted {tag()} text"
    framing = len("\x1b[200~\x1b[201~") if bracket else 0
    out = tmp_path / "pasted"
    pane = await reader(shared, out, len(text) + framing, bracketed=True)
    buffer = f"buf-{tag()}"
    shared.tmux("set-buffer", "-b", buffer, text)
    result = await python_client.ok(
        "paste_buffer", {"buffer_name": buffer, "pane_id": pane, "bracket": bracket}
    )
    assert buffer in result["result"] and pane in result["result"]
    got = await until_found(file_text(out))
    assert got == (f"\x1b[200~{text}\x1b[201~" if bracket else text)
    assert buffer in shared.lines("list-buffers", "-F", "#{buffer_name}")


async def test_paste_buffer_names_a_missing_buffer_and_the_socket(
    shared: TmuxServer, python_client: Client
) -> None:
    pane = shared.new_session(f"paste-{tag()}").pane
    message = await python_client.error(
        "paste_buffer", {"buffer_name": "no-such-buffer", "pane_id": pane}
    )
    assert "no-such-buffer" in message and shared.name in message and "load_buffer" in message
    message = await python_client.error("paste_buffer", {"buffer_name": "b", "pane_id": "%99999"})
    assert "%99999" in message and shared.name in message
    message = await python_client.error("paste_buffer", {"buffer_name": "b", "pane_id": "x"})
    assert "`pane_id`" in message


# --- nothing runs on malformed input ----------------------------------------------------


async def test_malformed_targets_run_no_tmux_command(
    shared: TmuxServer, python_client: Client
) -> None:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("create_window", {"session_id": "main"}),
        ("create_window", {"start_directory": "/no/such/dir"}),
        ("create_window", {"environment": {"A=B": "c"}}),
        ("create_session", {"session_name": "a.b"}),
        ("split_window", {"pane_id": "%x"}),
        ("split_window", {"size": "half"}),
        ("set_option", {"option": "bad name", "value": "v"}),
        ("set_environment", {"name": "A=B", "value": "v"}),
        ("set_environment", {"name": "A", "value": "v", "session_id": "0"}),
        ("pipe_pane", {"window_id": "@@1", "output_path": "/tmp/x"}),
        ("pipe_pane", {"output_path": "/no/such/dir/x"}),
        ("paste_buffer", {"buffer_name": "b", "session_id": "s"}),
    ]
    before = (shared.state(), shared.lines("list-sessions"))
    mark = shared.mark()
    for tool, arguments in calls:
        message = await python_client.error(tool, arguments)
        assert "Invalid argument" in message, (tool, message)
        shared.assert_nothing_sent_since(mark, (tool, arguments, message))
    assert (shared.state(), shared.lines("list-sessions")) == before


# --- injection: values reach tmux literally and never run --------------------------------


async def test_session_and_window_names_directories_and_environment_arrive_literally(
    shared: TmuxServer, python_client: Client, tmp_path: Path, marker: Path
) -> None:
    value = tricky(marker)
    session_name = f"{tag()} {tricky(marker, newline=False)}"
    directory = literal_dir(tmp_path, value)
    result = await python_client.ok(
        "create_session",
        {
            "session_name": session_name,
            "window_name": value,
            "start_directory": str(directory),
            "environment": {"TRICKY": value},
        },
    )
    assert result["session_name"] == session_name
    assert session_name in session_names(shared)
    pane = result["active_pane_id"]
    assert show(shared, pane, "window_name")["window_name"] == value
    assert session_variable(shared, "TRICKY", "-t", result["session_id"]) == value
    path = await until_found(
        lambda: show(shared, pane, "pane_current_path")["pane_current_path"] or None
    )
    assert path == os.path.realpath(directory)

    window = await python_client.ok(
        "create_window",
        {
            "session_name": session_name,
            "window_name": value,
            "start_directory": str(directory),
            "environment": {"TRICKY_WINDOW": value},
        },
    )
    assert window["window_name"] == value
    assert window["session_name"] == session_name
    assert show(shared, window["window_id"], "window_name")["window_name"] == value
    new_pane = window["active_pane_id"]
    assert await dump_variable(shared, new_pane, "TRICKY_WINDOW", tmp_path / "w") == value
    path = await until_found(
        lambda: show(shared, new_pane, "pane_current_path")["pane_current_path"] or None
    )
    assert path == os.path.realpath(directory)

    out = tmp_path / "split-out"
    split = await python_client.ok(
        "split_window",
        {
            "session_name": session_name,
            "start_directory": str(directory),
            "environment": {"TRICKY_PANE": value},
            "shell": f'printf "%s|%s" "$PWD" "$TRICKY_PANE" > {shlex.quote(str(out))}.tmp '
            f"&& mv {shlex.quote(str(out))}.tmp {shlex.quote(str(out))}",
        },
    )
    assert split["session_id"] == result["session_id"]
    written = await until_found(file_text(out))
    assert written == f"{os.path.realpath(directory)}|{value}"


async def test_option_and_environment_values_arrive_literally(
    shared: TmuxServer, python_client: Client, marker: Path
) -> None:
    value = tricky(marker)
    name = f"lit-{tag()}"
    session_id = shared.new_session(name).id
    await python_client.ok(
        "set_option", {"option": f"@{name}", "value": value, "target": session_id}
    )
    assert option_value(shared, "-t", session_id, f"@{name}") == value
    await python_client.ok(
        "set_option",
        {"option": "word-separators", "value": value, "scope": "session", "target": name},
    )
    assert option_value(shared, "-t", session_id, "word-separators") == value
    # (Not an option tmux interprets later, such as automatic-rename-format: tmux would
    # run the #(...) itself when it renames a window; the contract says so.)
    await python_client.ok(
        "set_option",
        {"option": f"@{name}-w", "value": value, "global_": True, "scope": "window"},
    )
    try:
        assert option_value(shared, "-gw", f"@{name}-w") == value
    finally:
        shared.tmux("set-option", "-gwu", f"@{name}-w")
    variable = f"LIT_{tag()}"
    await python_client.ok(
        "set_environment", {"name": variable, "value": value, "session_name": name}
    )
    assert session_variable(shared, variable, "-t", session_id) == value
    result = await python_client.ok("show_environment", {"session_id": session_id})
    assert result["variables"][variable] == value


async def test_pipe_pane_path_and_buffer_name_arrive_literally(
    shared: TmuxServer, python_client: Client, tmp_path: Path, marker: Path
) -> None:
    value = tricky(marker) + " 100%d %Y"
    session_name = f"{tag()} {tricky(marker, newline=False)}"
    # tmux itself would expand (and run) such a name: the tool under test makes it.
    made = await python_client.ok("create_session", {"session_name": session_name})
    pane = made["active_pane_id"]
    directory = literal_dir(tmp_path, value)
    log = directory / "é漢 ;#{session_name} 100%d $(x).log"
    result = await python_client.ok(
        "pipe_pane", {"session_name": session_name, "output_path": str(log)}
    )
    assert str(log) in result["result"]
    shared.tmux("send-keys", "-t", pane, "echo literal-$((6*7))", "Enter")
    await until_found(lambda: True if log.exists() and "literal-42" in log.read_text() else None)
    assert os.listdir(directory) == [log.name]
    await python_client.ok("pipe_pane", {"pane_id": pane})

    buffer = f"{tag()} {value}"
    out = tmp_path / "pasted"
    reading = await reader(shared, out, len("é漢 pasted".encode()), bracketed=False)
    shared.tmux("set-buffer", "-b", buffer, "é漢 pasted")
    await python_client.ok(
        "paste_buffer", {"buffer_name": buffer, "pane_id": reading, "bracket": False}
    )
    assert await until_found(file_text(out)) == "é漢 pasted"
