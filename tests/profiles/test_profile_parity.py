"""Profile parity: for one tmux state, every profile reports the same panes, windows, sessions.

Each profile speaks its own shape (python: ``pane_id``, string sizes; swift:
``pane.id``, integers, refs). Readers below turn each answer into one neutral
view, and every view must equal what tmux itself lists. A profile gains the
comparisons by registering a reader for each listing, as ``@reader("panes",
"python")`` does.

Every call here reads, so the tmux state is made once for the module, and each
profile's server serves all of that profile's tests (pytest groups them). One
server at a time: a server does not count its own control client as attached,
but it would count another server's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, NamedTuple

import pytest

from scripts.lab.client import Client, open_in_process
from scripts.lab.tmuxserver import TmuxServer

pytestmark = pytest.mark.anyio

CORNERS = ("top-left", "top-right", "bottom-left", "bottom-right")
TAB = "\t"


class PaneView(NamedTuple):
    id: str
    window: str
    number: int  # pane_index (``index`` would shadow tuple.index)
    width: int
    height: int
    active: bool
    top: bool
    bottom: bool
    left: bool
    right: bool
    command: str
    path: str | None


class WindowView(NamedTuple):
    """One placement of a window in a session (a linked window has several)."""

    id: str
    name: str
    panes: int
    width: int
    height: int
    session: str
    number: int  # window_index
    active: bool


class SessionView(NamedTuple):
    id: str
    name: str
    windows: int
    attached: bool
    created: int  # epoch seconds


View = PaneView | WindowView | SessionView


@pytest.fixture(scope="module")
def state(shared: TmuxServer) -> State:
    """A 2x2 grid in main:0, a second session split in two, and a window linked into both."""
    tmux = shared
    grid = tmux.grid()
    tmux.tmux("new-session", "-d", "-s", "second", "-x", "160", "-y", "40")
    tmux.tmux("split-window", "-v", "-t", "second:0")
    tmux.tmux("new-window", "-d", "-t", "second:", "-n", "logs")
    tmux.tmux("link-window", "-d", "-s", "second:logs", "-t", "main:")
    tmux.settle("second:0")  # its split reads "tmux" until the new pane's program runs
    return State(tmux, grid)


class State:
    def __init__(self, tmux: TmuxServer, grid: dict[str, str]) -> None:
        self.tmux = tmux
        self.grid = grid

    def window_id(self, target: str) -> str:
        return self.tmux.tmux("display-message", "-p", "-t", target, "#{window_id}").strip()

    def scope(self, name: str) -> Scope:
        """The neutral scope a test names: everything, one session, or one window."""
        if name == "session":
            return Scope("session", "second")
        if name == "window":
            return Scope("window", self.window_id("main:0"))
        return Scope("all", "")


class Scope(NamedTuple):
    kind: str  # "all", "session" (a session name) or "window" (a window id)
    value: str


# --- what tmux itself says -------------------------------------------------------------------

PANE_FORMAT = TAB.join(
    (
        "#{pane_id}",
        "#{window_id}",
        "#{pane_index}",
        "#{pane_width}",
        "#{pane_height}",
        "#{pane_active}",
        "#{pane_at_top}",
        "#{pane_at_bottom}",
        "#{pane_at_left}",
        "#{pane_at_right}",
        "#{pane_current_command}",
        "#{pane_current_path}",
    )
)


def tmux_panes(tmux: TmuxServer, scope: Scope) -> list[PaneView]:
    flags = {"all": ("-a",), "session": ("-s", "-t", scope.value), "window": ("-t", scope.value)}
    found = set()
    for line in tmux.lines("list-panes", *flags[scope.kind], "-F", PANE_FORMAT):
        pane, window, index, width, height, active, top, bottom, left, right, command, path = (
            line.split(TAB)
        )
        found.add(
            PaneView(
                pane,
                window,
                int(index),
                int(width),
                int(height),
                active == "1",
                top == "1",
                bottom == "1",
                left == "1",
                right == "1",
                command,
                path,
            )
        )
    return sorted(found)  # a window linked into two sessions lists its panes twice


def tmux_windows(tmux: TmuxServer, scope: Scope) -> list[WindowView]:
    fields = (
        "#{window_id}",
        "#{window_name}",
        "#{window_panes}",
        "#{window_width}",
        "#{window_height}",
        "#{session_id}",
        "#{window_index}",
        "#{window_active}",
    )
    where = ("-a",) if scope.kind == "all" else ("-t", scope.value)
    views = []
    for line in tmux.lines("list-windows", *where, "-F", TAB.join(fields)):
        wid, name, panes, width, height, session, index, active = line.split(TAB)
        views.append(
            WindowView(
                wid, name, int(panes), int(width), int(height), session, int(index), active == "1"
            )
        )
    return sorted(views)


def tmux_sessions(tmux: TmuxServer, scope: Scope) -> list[SessionView]:
    # Attached means a real client: an MCP server's own control-mode client does not count.
    attached = {
        line.split(TAB)[1]
        for line in tmux.lines(
            "list-clients", "-F", f"#{{client_control_mode}}{TAB}#{{session_id}}"
        )
        if line.split(TAB)[0] != "1"
    }
    fields = "#{session_id}", "#{session_name}", "#{session_windows}", "#{session_created}"
    views = []
    for line in tmux.lines("list-sessions", "-F", TAB.join(fields)):
        sid, name, windows, created = line.split(TAB)
        views.append(SessionView(sid, name, int(windows), sid in attached, int(created)))
    return sorted(views)


TRUTH: dict[str, Callable[[TmuxServer, Scope], list[Any]]] = {
    "panes": tmux_panes,
    "windows": tmux_windows,
    "sessions": tmux_sessions,
}

# Which scopes each listing takes.
SCOPES = {
    "panes": ("all", "session", "window"),
    "windows": ("all", "session"),
    "sessions": ("all",),
}


# --- each profile's shapes, made neutral -----------------------------------------------------


def swift_pane(pane: dict[str, Any]) -> PaneView:
    return PaneView(
        pane["id"],
        pane["windowID"],
        pane["index"],
        pane["width"],
        pane["height"],
        pane["isActive"],
        pane["isAtTop"],
        pane["isAtBottom"],
        pane["isAtLeft"],
        pane["isAtRight"],
        pane["currentCommand"],
        pane["currentPath"],
    )


def python_pane(pane: dict[str, Any]) -> PaneView:
    return PaneView(
        pane["pane_id"],
        pane["window_id"],
        int(pane["pane_index"]),
        int(pane["pane_width"]),
        int(pane["pane_height"]),
        pane["pane_active"] == "1",
        pane["pane_at_top"],
        pane["pane_at_bottom"],
        pane["pane_at_left"],
        pane["pane_at_right"],
        pane["pane_current_command"],
        pane["pane_current_path"],
    )


# --- readers: one per (listing, profile) -----------------------------------------------------

Reader = Callable[[Client, State, Scope], Awaitable[list[Any]]]
READERS: dict[tuple[str, str], Reader] = {}


def reader(kind: str, profile: str) -> Callable[[Reader], Reader]:
    """Register how ``profile`` lists ``kind``; the parity tests pick it up."""

    def register(function: Reader) -> Reader:
        READERS[kind, profile] = function
        return function

    return register


@reader("panes", "swift")
async def swift_panes(client: Client, state: State, scope: Scope) -> list[PaneView]:
    arguments = {} if scope.kind == "all" else {scope.kind: scope.value}
    panes = (await client.ok("list_panes", arguments))["panes"]
    views = [swift_pane(pane) for pane in panes]
    assert len(set(views)) == len(views), "a pane listed twice"
    return sorted(views)


@reader("windows", "swift")
async def swift_windows(client: Client, state: State, scope: Scope) -> list[WindowView]:
    arguments = {} if scope.kind == "all" else {"session": scope.value}
    windows = (await client.ok("list_windows", arguments))["windows"]
    for window in windows:  # the target and both refs name this placement's window
        where = f"{window['sessionID']}:{window['index']}"
        assert state.window_id(window["target"]) == state.window_id(where) == window["id"]
        info = await client.ok("get_window_info", {"windowId": window["windowRef"]})
        assert info["window"]["id"] == window["id"]
        assert window["linkRef"] in {p["ref"] for p in info["placements"]}
    return sorted(
        WindowView(
            w["id"],
            w["name"],
            w["paneCount"],
            w["width"],
            w["height"],
            w["sessionID"],
            w["index"],
            w["isActive"],
        )
        for w in windows
    )


@reader("sessions", "swift")
async def swift_sessions(client: Client, state: State, scope: Scope) -> list[SessionView]:
    sessions = (await client.ok("list_sessions"))["sessions"]
    return sorted(
        SessionView(s["id"], s["name"], s["windowCount"], s["isAttached"], s["createdAt"])
        for s in sessions
    )


@reader("panes", "python")
async def python_panes(client: Client, state: State, scope: Scope) -> list[PaneView]:
    key = {"all": None, "session": "session_name", "window": "window_id"}[scope.kind]
    arguments = {} if key is None else {key: scope.value}
    panes = (await client.ok("list_panes", arguments))["result"]
    views = [python_pane(pane) for pane in panes]
    assert len(set(views)) == len(views), "a pane listed twice"
    return sorted(views)


@reader("windows", "python")
async def python_windows(client: Client, state: State, scope: Scope) -> list[WindowView]:
    arguments = {} if scope.kind == "all" else {"session_name": scope.value}
    windows = (await client.ok("list_windows", arguments))["result"]
    return sorted(
        WindowView(
            w["window_id"],
            w["window_name"],
            w["pane_count"],
            int(w["window_width"]),
            int(w["window_height"]),
            w["session_id"],
            int(w["window_index"]),
            w["window_active"] == "1",
        )
        for w in windows
    )


@reader("sessions", "python")
async def python_sessions(client: Client, state: State, scope: Scope) -> list[SessionView]:
    sessions = (await client.ok("list_sessions"))["result"]
    return sorted(
        SessionView(
            s["session_id"],
            s["session_name"],
            s["window_count"],
            int(s["session_attached"] or 0) > 0,
            int(s["session_created"]),
        )
        for s in sessions
    )


READING = sorted({profile for _, profile in READERS})
LISTINGS = sorted((kind, scope) for kind in SCOPES for scope in SCOPES[kind])


@pytest.fixture(scope="module", params=READING)
async def served(request: pytest.FixtureRequest, state: State) -> AsyncIterator[Client]:
    """The server of one profile that reads, for every test of that profile."""
    async with open_in_process(state.tmux.server_env(), request.param) as client:
        yield client


def test_every_profile_that_reads_registers_every_listing() -> None:
    assert READING and {(kind, p) for kind in SCOPES for p in READING} == set(READERS)


@pytest.mark.parametrize(("kind", "scope"), LISTINGS)
async def test_each_profile_lists_what_tmux_lists(
    state: State, served: Client, kind: str, scope: str
) -> None:
    where = state.scope(scope)
    listed = await READERS[kind, served.profile](served, state, where)
    expected = TRUTH[kind](state.tmux, where)
    assert listed == expected
    assert listed, "an empty listing proves nothing"


async def test_the_state_is_rich_enough_to_tell_listings_apart(state: State) -> None:
    """Guard the fixture: two sessions, a linked window, panes of different sizes."""
    everything = Scope("all", "")
    sessions = tmux_sessions(state.tmux, everything)
    windows = tmux_windows(state.tmux, everything)
    panes = tmux_panes(state.tmux, everything)
    assert [s.name for s in sessions] == ["main", "second"]
    assert len(windows) == 4 and len({w.id for w in windows}) == 3  # one window, two placements
    assert len(panes) == 4 + 2 + 1
    assert len({(p.width, p.height) for p in panes}) > 1
    assert tmux_panes(state.tmux, state.scope("session")) != panes
    assert tmux_panes(state.tmux, state.scope("window")) != panes


# --- find_pane_by_position: both profiles have it today -------------------------------------


async def python_find(client: Client, window: str) -> dict[str, PaneView]:
    return {
        corner: python_pane(
            await client.ok("find_pane_by_position", {"corner": corner, "window_id": window})
        )
        for corner in CORNERS
    }


async def swift_find(client: Client, window: str) -> dict[str, PaneView]:
    return {
        corner: swift_pane(
            (await client.ok("find_pane_by_position", {"corner": corner, "windowId": window}))[
                "pane"
            ]
        )
        for corner in CORNERS
    }


FINDERS = {"python": python_find, "swift": swift_find}


def test_every_profile_that_reads_finds_panes_by_position() -> None:
    assert sorted(FINDERS) == READING


@pytest.mark.parametrize("window", ["main:0", "second:0"])
async def test_find_pane_by_position_agrees_across_profiles_and_with_tmux(
    state: State, served: Client, window: str
) -> None:
    """Each profile finds what tmux draws in each corner: so the profiles agree."""
    window_id = state.window_id(window)
    corners = state.tmux.corners(window)
    panes = {p.id: p for p in tmux_panes(state.tmux, Scope("window", window_id))}
    expected = {corner: panes[corners[corner]] for corner in CORNERS}
    if window == "main:0":
        assert corners == state.grid
        assert len({pane.id for pane in expected.values()}) == 4
    found = await FINDERS[served.profile](served, window_id)
    assert found == expected
    for corner, pane in expected.items():
        vertical, horizontal = corner.split("-")
        assert getattr(pane, vertical) and getattr(pane, horizontal), corner
        assert pane.window == window_id
