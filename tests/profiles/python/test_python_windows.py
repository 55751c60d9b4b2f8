"""The python profile's window and session tools (rename_session, select_window,
rename_window, select_layout, resize_window, move_window, load_buffer), through the MCP client
against real tmux.

One tmux server serves the module and every test runs over both transports (control
and subprocess). Tests make their own sessions, named ``w-<tag>`` so that ``main``
stays the server's first session; what a tool did is read back from tmux itself.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from scripts.lab.client import Client, open_in_process
from scripts.lab.tmuxserver import TMUX, TmuxServer
from tests.helpers.tmux import tag

pytestmark = [pytest.mark.anyio, pytest.mark.transports("control", "subprocess")]

BUFFER_NAME = re.compile(r"^libtmux_mcp_[0-9a-f]{32}_(?P<label>[A-Za-z0-9_.-]+)$")
PRESETS = ("even-horizontal", "even-vertical", "main-horizontal", "main-vertical", "tiled")
WINDOW_FORMAT = "#{window_id}|#{window_index}|#{window_name}|#{window_active}|#{session_id}"


# --- fixtures ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The MCP server's TMPDIR: load_buffer's temporary files would be left here."""
    return tmp_path_factory.mktemp("tmpdir")


@pytest.fixture(scope="module")
def python_env(scratch: Path) -> dict[str, str]:
    """The server's TMPDIR is ``scratch``."""
    return {"TMPDIR": str(scratch)}


@pytest.fixture
def counting(shared: TmuxServer) -> TmuxServer:
    """The shared server, whose log of what was sent proves a refused call sent nothing."""
    return shared


# --- helpers ----------------------------------------------------------------------------


def windows_of(server: TmuxServer, session_id: str) -> list[dict[str, str]]:
    rows = []
    for line in server.lines("list-windows", "-t", session_id, "-F", WINDOW_FORMAT):
        window_id, index, name, active, sid = line.split("|")
        rows.append(
            {"id": window_id, "index": index, "name": name, "active": active, "session": sid}
        )
    return rows


def current_window(server: TmuxServer, session_id: str) -> str:
    return next(row["id"] for row in windows_of(server, session_id) if row["active"] == "1")


def show(server: TmuxServer, target: str, fmt: str) -> str:
    return server.tmux("display-message", "-p", "-t", target, fmt).rstrip("\n")


def session_names(server: TmuxServer) -> dict[str, str]:
    """session id -> name, as tmux lists them (a name may hold any character)."""
    found = {}
    for line in server.lines("list-sessions", "-F", "#{session_id}\x1f#{session_name}"):
        session_id, _, name = line.partition("\x1f")
        found[session_id] = name
    return found


def window_name(server: TmuxServer, window_id: str) -> str:
    lines = server.tmux("list-windows", "-a", "-F", "#{window_id}\x1f#{window_name}")
    for line in lines.splitlines():
        found, _, name = line.partition("\x1f")
        if found == window_id:
            return name
    raise AssertionError(f"no window {window_id}")


def buffer_content(server: TmuxServer, name: str) -> bytes:
    env = {**server.env}
    done = subprocess.run(
        [TMUX, "-L", server.name, "show-buffer", "-b", name],
        capture_output=True,
        env=env,
        timeout=20,
        check=True,
    )
    return done.stdout


def tricky(marker: Path) -> list[str]:
    """Names that would do something if tmux or a shell interpreted them."""
    return [
        "z;semi;colon",
        "z trailing;",
        "z #{session_name} #S #{window_id}",
        f"z #(touch {marker})",
        f"z $(touch {marker}) `touch {marker}`",
        "z quotes ' and \" both",
        "z back\\slash ~tilde $HOME",
        "z é漢 non-ASCII",
        "-z starts with a dash",
        "z #[fg=red]style ##[x] trailing hash #",
    ]


def tmux_stored(name: str, *, session: bool = False) -> str:
    """How tmux 3.3a stores a name given to rename-session / rename-window: ':' and '.'
    become '_' (sessions); its vis() escapes '\\', a '$' that starts a variable name, and
    control characters (only the newline occurs here)."""
    stored = name.replace("\\", "\\\\").replace("\n", "\\n")
    stored = re.sub(r"\$(?=[A-Za-z_{])", r"\\$", stored)
    return stored.replace(":", "_").replace(".", "_") if session else stored


async def settle(server: TmuxServer, tmp_path: Path) -> None:
    """Wait until tmux has run a #() job started after the calls under test: a job one of
    them started would have run by then too. (The job of a short-lived tmux client may be
    killed with it before it runs, hence a new one each round.)"""
    sentinel = tmp_path / f"sentinel-{tag()}"
    with anyio.fail_after(10):
        while not sentinel.exists():
            server.tmux("display-message", "-p", f"#(touch {sentinel})")
            await anyio.sleep(0.05)


def assert_names(message: str, *words: str) -> None:
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"


async def refused_before_tmux(
    server: TmuxServer, client: Client, tool: str, arguments: dict[str, Any]
) -> str:
    """The call fails, and sent tmux nothing: no tmux process, no control-client line."""
    mark = server.mark()
    message = await client.error(tool, arguments)
    server.assert_nothing_sent_since(mark, f"{tool} {arguments}")
    return message


def tmux_version() -> tuple[int, int]:
    found = re.search(
        r"(\d+)\.(\d+)", subprocess.run([TMUX, "-V"], capture_output=True, text=True).stdout
    )
    assert found
    return int(found.group(1)), int(found.group(2))


# --- rename_session ---------------------------------------------------------------------


async def test_rename_session_by_id_keeps_the_id_and_returns_the_stored_name(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(windows=2, width=120, height=40)
    session_id, windows = made.id, made.windows
    new = f"w-renamed-{tag()}"
    result = await python_client.ok("rename_session", {"session_id": session_id, "new_name": new})
    assert result["session_id"] == session_id
    assert result["session_name"] == new
    assert result["window_count"] == 2
    assert result["session_attached"] == "0"
    assert result["active_pane_id"] == show(shared, session_id, "#{pane_id}")
    assert session_names(shared)[session_id] == new
    assert windows_of(shared, session_id)[0]["id"] == windows[0]


async def test_rename_session_finds_the_session_by_exact_name_only(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(width=120, height=40)
    name, session_id = made.name, made.id
    message = await python_client.error(
        "rename_session", {"session_name": name[:-1], "new_name": "x"}
    )
    assert_names(message, repr(name[:-1]), shared.name, "list_sessions")
    assert session_names(shared)[session_id] == name  # tmux's prefix match was not used
    result = await python_client.ok(
        "rename_session", {"session_name": name, "new_name": f"{name}-b"}
    )
    assert result["session_id"] == session_id
    assert session_names(shared)[session_id] == f"{name}-b"


async def test_rename_session_reports_the_name_tmux_stored_for_colons_dots_and_newlines(
    shared: TmuxServer, python_client: Client
) -> None:
    session_id = shared.new_session(width=120, height=40).id
    t = tag()
    result = await python_client.ok(
        "rename_session", {"session_id": session_id, "new_name": f"w-{t} a:b.c\nd"}
    )
    stored = session_names(shared)[session_id]
    assert stored == f"w-{t} a_b_c\\nd" == tmux_stored(f"w-{t} a:b.c\nd", session=True)
    assert result["session_name"] == stored


async def test_rename_session_to_a_taken_name_is_refused(
    shared: TmuxServer, python_client: Client
) -> None:
    taken = shared.new_session(width=120, height=40).name
    made = shared.new_session(width=120, height=40)
    name, session_id = made.name, made.id
    message = await python_client.error(
        "rename_session", {"session_id": session_id, "new_name": taken}
    )
    assert_names(message, "new_name", repr(taken), shared.name, "list_sessions")
    assert session_names(shared)[session_id] == name


async def test_rename_session_refuses_empty_names_and_malformed_ids_before_tmux(
    counting: TmuxServer, python_client: Client
) -> None:
    session_id = counting.new_session(width=120, height=40).id
    message = await refused_before_tmux(
        counting, python_client, "rename_session", {"session_id": session_id, "new_name": ""}
    )
    assert_names(message, "new_name")
    message = await refused_before_tmux(
        counting, python_client, "rename_session", {"session_id": "1", "new_name": "x"}
    )
    assert_names(message, "session_id", "'1'")
    message = await python_client.error("rename_session", {"session_id": "$9999", "new_name": "x"})
    assert_names(message, "$9999", counting.name, "list_sessions")


async def test_rename_session_stores_tricky_names_literally_and_runs_nothing(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    session_id = shared.new_session(width=120, height=40).id
    try:
        for name in tricky(marker):
            arguments = {"session_id": session_id, "new_name": name}
            result = await python_client.ok("rename_session", arguments)
            stored = tmux_stored(name, session=True)
            assert session_names(shared)[session_id] == stored
            assert result["session_name"] == stored
    finally:  # its name is free again for the run over the other transport
        shared.tmux("kill-session", "-t", session_id)
    await settle(shared, tmp_path)
    assert not marker.exists()


# --- rename_window ----------------------------------------------------------------------


async def test_rename_window_by_id_and_by_index_and_stops_automatic_rename(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(windows=2, width=120, height=40)
    name, session_id, windows = made.name, made.id, made.windows
    result = await python_client.ok("rename_window", {"window_id": windows[1], "new_name": "logs"})
    assert result["window_id"] == windows[1]
    assert result["window_name"] == "logs"
    assert result["window_index"] == "1"
    assert result["session_id"] == session_id
    assert result["session_name"] == name
    assert result["pane_count"] == 1
    assert window_name(shared, windows[1]) == "logs"
    assert shared.tmux("show-options", "-wv", "-t", windows[1], "automatic-rename").strip() == "off"
    result = await python_client.ok(
        "rename_window", {"session_name": name, "window_index": "0", "new_name": "editor"}
    )
    assert result["window_id"] == windows[0]
    assert window_name(shared, windows[0]) == "editor"
    result = await python_client.ok("rename_window", {"window_id": windows[0], "new_name": ""})
    assert result["window_name"] == window_name(shared, windows[0]) == ""


async def test_rename_window_stores_tricky_names_literally_and_runs_nothing(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    windows = shared.new_session(width=120, height=40).windows
    for name in [*tricky(marker), "line one\nline two"]:
        result = await python_client.ok(
            "rename_window", {"window_id": windows[0], "new_name": name}
        )
        stored = window_name(shared, windows[0])
        assert stored == tmux_stored(name)
        assert result["window_name"] == stored
    await settle(shared, tmp_path)
    assert not marker.exists()


async def test_window_tools_name_unknown_and_malformed_targets(
    counting: TmuxServer, python_client: Client
) -> None:
    name = counting.new_session(width=120, height=40).name
    for tool, extra in (
        ("rename_window", {"new_name": "x"}),
        ("select_layout", {"layout": "tiled"}),
        ("resize_window", {"width": 50}),
        ("move_window", {}),
    ):
        message = await refused_before_tmux(
            counting, python_client, tool, {"window_id": "3", **extra}
        )
        assert_names(message, "window_id", "'3'")
        message = await refused_before_tmux(
            counting, python_client, tool, {"window_index": "0", **extra}
        )
        assert_names(message, "window_index", "session")
        message = await python_client.error(tool, {"window_id": "@9999", **extra})
        assert_names(message, "@9999", counting.name, "list_windows")
        message = await python_client.error(
            tool, {"session_name": name, "window_index": "7", **extra}
        )
        assert_names(message, "7", name, counting.name, "list_windows")


# --- select_window ----------------------------------------------------------------------


async def test_select_window_by_id_and_by_index_makes_it_current(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(windows=3, width=120, height=40)
    name, session_id, windows = made.name, made.id, made.windows
    result = await python_client.ok("select_window", {"window_id": windows[2]})
    assert result["window_id"] == windows[2]
    assert result["window_active"] == "1"
    assert result["window_index"] == "2"
    assert current_window(shared, session_id) == windows[2]
    result = await python_client.ok("select_window", {"session_name": name, "window_index": "1"})
    assert result["window_id"] == windows[1]
    assert current_window(shared, session_id) == windows[1]
    result = await python_client.ok(
        "select_window", {"session_id": session_id, "window_index": "0"}
    )
    assert current_window(shared, session_id) == result["window_id"] == windows[0]


async def test_select_window_steps_next_previous_and_last_and_wraps(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(windows=3, width=120, height=40)
    name, session_id, windows = made.name, made.id, made.windows
    steps = [
        ({"direction": "next", "session_id": session_id}, windows[1]),
        ({"direction": "next", "session_name": name}, windows[2]),
        ({"direction": "next", "session_id": session_id}, windows[0]),  # wraps around
        ({"direction": "previous", "session_id": session_id}, windows[2]),
        ({"direction": "last", "session_id": session_id}, windows[0]),
        ({"direction": "last", "session_id": session_id}, windows[2]),
    ]
    for arguments, expected in steps:
        result = await python_client.ok("select_window", arguments)
        assert result["window_id"] == expected, arguments
        assert result["window_active"] == "1"
        assert current_window(shared, session_id) == expected


async def test_select_window_says_when_there_is_no_window_to_step_to(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(width=120, height=40)
    name, session_id = made.name, made.id
    for direction in ("next", "previous", "last"):
        message = await python_client.error(
            "select_window", {"direction": direction, "session_id": session_id}
        )
        assert_names(message, f"no {direction} window", repr(name), session_id, shared.name)


async def test_select_window_needs_one_kind_of_target_and_refuses_bad_ones_before_tmux(
    counting: TmuxServer, python_client: Client
) -> None:
    made = counting.new_session(windows=2, width=120, height=40)
    session_id, windows = made.id, made.windows
    message = await refused_before_tmux(counting, python_client, "select_window", {})
    assert_names(message, "window_id", "window_index", "direction")
    message = await refused_before_tmux(
        counting, python_client, "select_window", {"direction": "next", "window_id": windows[1]}
    )
    assert_names(message, "direction", "window_id")
    message = await refused_before_tmux(
        counting, python_client, "select_window", {"window_id": "1"}
    )
    assert_names(message, "window_id", "'1'")
    message = await refused_before_tmux(
        counting, python_client, "select_window", {"direction": "next", "session_id": "main"}
    )
    assert_names(message, "session_id", "'main'")
    result = await python_client.call("select_window", {"direction": "sideways"})
    assert result.is_error  # not in the contract's enum
    message = await python_client.error(
        "select_window", {"direction": "next", "session_name": "w-nope"}
    )
    assert_names(message, "'w-nope'", counting.name, "list_sessions")
    assert current_window(counting, session_id) == windows[0]


# --- select_layout ----------------------------------------------------------------------


def three_panes(server: TmuxServer) -> tuple[str, str]:
    """A fresh session whose window has three panes: (session id, window id)."""
    made = server.new_session(width=120, height=40)
    session_id, windows = made.id, made.windows
    server.tmux("split-window", "-d", "-t", windows[0])
    server.tmux("split-window", "-d", "-h", "-t", windows[0])
    return session_id, windows[0]


async def test_select_layout_applies_each_preset_and_unambiguous_prefixes(
    shared: TmuxServer, python_client: Client
) -> None:
    _, window_id = three_panes(shared)
    for preset in PRESETS:
        result = await python_client.ok("select_layout", {"window_id": window_id, "layout": preset})
        layout = show(shared, window_id, "#{window_layout}")
        assert result["window_layout"] == layout
        assert result["pane_count"] == 3
        shared.tmux("select-layout", "-t", window_id, preset)
        assert show(shared, window_id, "#{window_layout}") == layout  # what tmux makes of it
    shared.tmux("select-layout", "-t", window_id, "even-vertical")
    result = await python_client.ok("select_layout", {"window_id": window_id, "layout": "ti"})
    shared.tmux("select-layout", "-t", window_id, "tiled")
    assert result["window_layout"] == show(shared, window_id, "#{window_layout}")


async def test_select_layout_restores_a_saved_layout_string(
    shared: TmuxServer, python_client: Client
) -> None:
    _, window_id = three_panes(shared)
    shared.tmux("resize-pane", "-t", show(shared, window_id, "#{pane_id}"), "-x", "30")
    saved = (await python_client.ok("get_window_info", {"window_id": window_id}))["window_layout"]
    await python_client.ok("select_layout", {"window_id": window_id, "layout": "even-horizontal"})
    assert show(shared, window_id, "#{window_layout}") != saved
    result = await python_client.ok("select_layout", {"window_id": window_id, "layout": saved})
    assert result["window_layout"] == saved == show(shared, window_id, "#{window_layout}")


async def test_select_layout_refuses_what_is_not_a_layout_and_tmux_survives(
    counting: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    """tmux 3.3a crashes on `select-layout main` (ambiguous) or `select-layout ""`:
    such names never reach it."""
    marker = tmp_path / "marker"
    _, window_id = three_panes(counting)
    before = show(counting, window_id, "#{window_layout}")
    good = before.partition(",")[2]
    shape_refused = [
        "",
        "Tiled",
        "tiled;kill-server",
        f"#(touch {marker})",
        "$(touch x)",
        "-E",
        f"{before} ",
        f"{before}\n",
        f"zzzz,{good}",
    ]
    for layout in shape_refused:
        message = await refused_before_tmux(
            counting, python_client, "select_layout", {"window_id": window_id, "layout": layout}
        )
        assert_names(message, "layout")
    name_refused = ["main", "e", "x", "bogus", "tiledx"]
    if tmux_version() < (3, 4):
        name_refused += ["main-vertical-mirrored", "main-horizontal-mirrored"]
    for layout in name_refused:
        message = await python_client.error(
            "select_layout", {"window_id": window_id, "layout": layout}
        )
        assert_names(message, "layout", repr(layout), "tiled")
    checksum = f"{(int(before[:4], 16) + 1) % 0x10000:04x},{good}"
    message = await refused_before_tmux(
        counting, python_client, "select_layout", {"window_id": window_id, "layout": checksum}
    )
    assert_names(message, "layout", "checksum")
    await settle(counting, tmp_path)
    assert not marker.exists()
    assert show(counting, window_id, "#{window_layout}") == before  # and the server is alive


async def test_select_layout_string_of_another_window_shape_is_refused_by_tmux(
    shared: TmuxServer, python_client: Client
) -> None:
    one_pane = shared.new_session(width=120, height=40).id
    _, window_id = three_panes(shared)
    single = show(shared, one_pane, "#{window_layout}")
    before = show(shared, window_id, "#{window_layout}")
    message = await python_client.error("select_layout", {"window_id": window_id, "layout": single})
    assert_names(message, "layout", window_id, shared.name)
    assert show(shared, window_id, "#{window_layout}") == before


# --- resize_window ----------------------------------------------------------------------


async def test_resize_window_sets_the_size_and_keeps_it_manual(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(width=120, height=40)
    name, windows = made.name, made.windows
    shared.tmux("split-window", "-d", "-t", windows[0])
    result = await python_client.ok(
        "resize_window", {"window_id": windows[0], "width": 90, "height": 25}
    )
    assert (result["window_width"], result["window_height"]) == ("90", "25")
    assert show(shared, windows[0], "#{window_width}x#{window_height}") == "90x25"
    assert shared.tmux("show-options", "-wv", "-t", windows[0], "window-size").strip() == "manual"
    result = await python_client.ok(
        "resize_window", {"session_name": name, "window_index": "0", "width": 70}
    )
    assert (result["window_width"], result["window_height"]) == ("70", "25")
    result = await python_client.ok("resize_window", {"window_id": windows[0], "height": 12})
    assert show(shared, windows[0], "#{window_width}x#{window_height}") == "70x12"
    assert result["window_layout"] == show(shared, windows[0], "#{window_layout}")


async def test_resize_window_refuses_missing_and_out_of_range_sizes_before_tmux(
    counting: TmuxServer, python_client: Client
) -> None:
    windows = counting.new_session(width=120, height=40).windows
    for arguments, field in (
        ({}, "width"),
        ({"width": 0}, "width"),
        ({"height": -3}, "height"),
        ({"width": 10001}, "width"),
        ({"width": 80, "height": 100000}, "height"),
    ):
        message = await refused_before_tmux(
            counting, python_client, "resize_window", {"window_id": windows[0], **arguments}
        )
        assert_names(message, field)
    assert show(counting, windows[0], "#{window_width}x#{window_height}") == "120x40"


# --- move_window ------------------------------------------------------------------------


async def test_move_window_to_an_index_of_its_session(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(windows=2, width=120, height=40)
    name, session_id, windows = made.name, made.id, made.windows
    result = await python_client.ok(
        "move_window", {"window_id": windows[0], "destination_index": "5"}
    )
    assert result["window_id"] == windows[0]
    assert result["window_index"] == "5"
    assert result["session_id"] == session_id
    assert result["window_active"] == "1"  # tmux makes the moved window current
    assert [(row["id"], row["index"]) for row in windows_of(shared, session_id)] == [
        (windows[1], "1"),
        (windows[0], "5"),
    ]
    result = await python_client.ok("move_window", {"session_name": name, "window_index": "5"})
    assert result["window_index"] == "0"  # the first free index
    assert windows_of(shared, session_id)[0]["id"] == windows[0]


async def test_move_window_into_another_session_by_name_and_by_id(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(windows=3, width=120, height=40)
    source, windows = made.id, made.windows
    made = shared.new_session(width=120, height=40)
    target_name, target, target_windows = made.name, made.id, made.windows
    result = await python_client.ok(
        "move_window", {"window_id": windows[1], "destination_session": target_name}
    )
    assert (result["session_id"], result["session_name"]) == (target, target_name)
    assert result["window_index"] == "1"
    assert [row["id"] for row in windows_of(shared, target)] == [target_windows[0], windows[1]]
    assert [row["id"] for row in windows_of(shared, source)] == [windows[0], windows[2]]
    result = await python_client.ok(
        "move_window",
        {"session_id": source, "window_index": "2", "destination_session": target,
         "destination_index": "7"},
    )  # fmt: skip
    assert (result["session_id"], result["window_index"]) == (target, "7")
    assert current_window(shared, target) == windows[2]


async def test_move_window_of_a_session_last_window_ends_that_session(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(width=120, height=40)
    source, windows = made.id, made.windows
    target = shared.new_session(width=120, height=40).id
    result = await python_client.ok(
        "move_window", {"window_id": windows[0], "destination_session": target}
    )
    assert result["session_id"] == target
    assert source not in session_names(shared)


async def test_move_window_to_its_own_place_changes_nothing(
    shared: TmuxServer, python_client: Client
) -> None:
    made = shared.new_session(windows=2, width=120, height=40)
    session_id, windows = made.id, made.windows
    before = windows_of(shared, session_id)
    result = await python_client.ok(
        "move_window", {"window_id": windows[1], "destination_index": "1"}
    )
    assert (result["window_id"], result["window_index"]) == (windows[1], "1")
    assert windows_of(shared, session_id) == before


async def test_move_window_refuses_taken_indexes_unknown_sessions_and_bad_indexes(
    counting: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    made = counting.new_session(windows=2, width=120, height=40)
    session_id, windows = made.id, made.windows
    before = windows_of(counting, session_id)
    message = await python_client.error(
        "move_window", {"window_id": windows[0], "destination_index": "1"}
    )
    assert_names(message, "destination_index", "'1'", session_id, counting.name, "list_windows")
    marker = tmp_path / "marker"
    for destination in ["w-nope", "$9999", "#{session_name}", f"#(touch {marker})", "main;x"]:
        message = await python_client.error(
            "move_window", {"window_id": windows[0], "destination_session": destination}
        )
        assert_names(message, "destination_session", repr(destination), counting.name)
    for index in ("-1", "a", "1;", "#{window_index}", " 1", "1\n"):
        message = await refused_before_tmux(
            counting,
            python_client,
            "move_window",
            {"window_id": windows[0], "destination_index": index},
        )
        assert_names(message, "destination_index")
    await settle(counting, tmp_path)
    assert not marker.exists()
    assert windows_of(counting, session_id) == before


async def test_move_window_finds_destination_sessions_with_tricky_names_by_exact_name(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    made = shared.new_session(windows=2, width=120, height=40)
    source, windows = made.id, made.windows
    target = shared.new_session(width=120, height=40).id
    for given in tricky(marker)[:4]:
        name = tmux_stored(given, session=True)  # the name to find it by afterwards
        await python_client.ok("rename_session", {"session_id": target, "new_name": given})
        result = await python_client.ok(
            "move_window", {"window_id": windows[1], "destination_session": name}
        )
        assert result["session_id"] == target
        assert result["session_name"] == name
        await python_client.ok(
            "move_window", {"window_id": windows[1], "destination_session": source}
        )
    await settle(shared, tmp_path)
    assert not marker.exists()


# --- load_buffer ------------------------------------------------------------------------


async def test_load_buffer_stores_the_content_byte_for_byte(
    shared: TmuxServer, python_client: Client, tmp_path: Path, scratch: Path
) -> None:
    marker = tmp_path / "marker"
    contents = [
        "one line",
        "two\nlines\n",
        "\n\nblank lines first\n\n",
        f"#{{session_name}} #(touch {marker}) $(touch {marker}) `touch {marker}`",
        "semi;colons; trailing;",
        "quotes ' \" and \\ backslash, tab\there, ~tilde $HOME",
        "é漢 non-ASCII 🎉",
        "-starts with a dash",
        "".join(f"line {i} {'x' * 60}\n" for i in range(2000)),  # ~140 KB
    ]
    for content in contents:
        result = await python_client.ok("load_buffer", {"content": content})
        assert BUFFER_NAME.match(result["buffer_name"])
        assert buffer_content(shared, result["buffer_name"]) == content.encode()
        shown = await python_client.ok(
            "show_buffer", {"buffer_name": result["buffer_name"], "max_lines": None}
        )
        assert shown["content"] == content
    await settle(shared, tmp_path)
    assert not marker.exists()
    assert list(scratch.iterdir()) == []  # no temporary file left behind


async def test_load_buffer_makes_a_new_labelled_buffer_every_call(
    shared: TmuxServer, python_client: Client
) -> None:
    first = await python_client.ok("load_buffer", {"content": "a", "logical_name": "clip"})
    second = await python_client.ok("load_buffer", {"content": "b", "logical_name": "clip"})
    assert first["logical_name"] == second["logical_name"] == "clip"
    assert first["buffer_name"] != second["buffer_name"]
    for result, content in ((first, b"a"), (second, b"b")):
        found = BUFFER_NAME.match(result["buffer_name"])
        assert found and found["label"] == "clip"
        assert buffer_content(shared, result["buffer_name"]) == content
    unnamed = await python_client.ok("load_buffer", {"content": "c"})
    assert unnamed["logical_name"] is None
    assert unnamed["buffer_name"].endswith("_buf")
    empty = await python_client.ok("load_buffer", {"content": "d", "logical_name": ""})
    assert empty["logical_name"] == ""
    assert empty["buffer_name"].endswith("_buf")
    label = "A-z_0.9" + "x" * 57
    assert (await python_client.ok("load_buffer", {"content": "e", "logical_name": label}))[
        "buffer_name"
    ].endswith(f"_{label}")


async def test_load_buffer_refuses_bad_logical_names_before_tmux(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    before = shared.lines("list-buffers", "-F", "#{buffer_name}")
    labels = ("has space", "a;b", "#{session_name}", "$(x)", "x/y", "é", "x" * 65, "a\nb", "clip\n")
    mark = shared.mark()
    for label in labels:
        message = await python_client.error("load_buffer", {"content": "x", "logical_name": label})
        assert_names(message, "logical_name")
    message = await python_client.error("load_buffer", {"content": ""})
    assert_names(message, "content", "empty")
    shared.assert_nothing_sent_since(mark)
    assert shared.lines("list-buffers", "-F", "#{buffer_name}") == before


# --- defaults and sockets ---------------------------------------------------------------


async def test_without_a_target_the_first_session_and_its_current_window_are_used(
    tmux: TmuxServer, other_tmux: TmuxServer
) -> None:
    tmux.tmux("new-window", "-t", "main:")  # main: windows 0 and 1, 1 current
    tmux.tmux("new-session", "-d", "-s", "zz-later")
    main_windows = [row["id"] for row in windows_of(tmux, "main")]
    async with open_in_process(tmux.server_env(), "python") as client:
        result = await client.ok("rename_window", {"new_name": "picked"})
        assert result["window_id"] == main_windows[1]
        assert window_name(tmux, main_windows[1]) == "picked"
        result = await client.ok("select_window", {"direction": "previous"})
        assert result["window_id"] == main_windows[0] == current_window(tmux, "main")
        result = await client.ok("resize_window", {"width": 100})
        assert result["window_id"] == main_windows[0]
        result = await client.ok("rename_session", {"new_name": "first"})
        assert sorted(session_names(tmux).values()) == ["first", "zz-later"]
        # socket_name sends one call to another server, whose ids collide with these
        result = await client.ok(
            "rename_window",
            {"window_id": "@0", "new_name": "over-there", "socket_name": other_tmux.name},
        )
        assert window_name(other_tmux, "@0") == "over-there"
        assert window_name(tmux, "@0") != "over-there"
