"""select_pane in both profiles against a real 2x2 grid.

One tmux server for the module, and one server per profile reaching it, once here and
once through ssh (``shared_env``): the tests on the module's servers run both ways. Each
test splits a window of its own into the grid, so what one selects no other test reads.
"""

from __future__ import annotations

import pytest

from scripts.lab.client import Client, open_in_process
from scripts.lab.tmuxserver import TmuxServer

pytestmark = [pytest.mark.anyio, pytest.mark.reach("local", "ssh")]


# From each corner, the directions that have a pane drawn there, and that pane.
NEIGHBOURS = {
    ("top-left", "right"): "top-right",
    ("top-left", "down"): "bottom-left",
    ("top-right", "left"): "top-left",
    ("top-right", "down"): "bottom-right",
    ("bottom-left", "up"): "top-left",
    ("bottom-left", "right"): "bottom-right",
    ("bottom-right", "up"): "top-right",
    ("bottom-right", "left"): "bottom-left",
}


async def select(client: Client, pane: str, direction: str | None = None) -> str:
    """Select through the profile's own argument names; return the selected pane id."""
    if client.profile == "rust":
        args = {"pane": pane} | ({"direction": direction} if direction else {})
        result = await client.ok("select_pane", args)
        assert result["active"] is True
        return str(result["id"])
    args = {"pane_id": pane} | ({"direction": direction} if direction else {})
    result = await client.ok("select_pane", args)
    assert result["pane_active"] == "1"
    return str(result["pane_id"])


class Grid:
    """A window of its own in the module's server, split 2x2."""

    def __init__(self, tmux: TmuxServer) -> None:
        self.tmux = tmux
        self.window = tmux.new_window()
        self.corners = tmux.grid(self.window)

    def __getitem__(self, corner: str) -> str:
        return self.corners[corner]

    def active_pane(self) -> str:
        return self.tmux.active_pane(self.window)


@pytest.fixture
def grid(shared: TmuxServer) -> Grid:
    return Grid(shared)


@pytest.mark.parametrize("profile", ["python", "rust"])
async def test_select_pane_each_direction_selects_the_pane_drawn_there(
    grid: Grid, clients: dict[str, Client], profile: str
) -> None:
    for (start, direction), expected in NEIGHBOURS.items():
        chosen = await select(clients[profile], grid[start], direction)
        assert chosen == grid[expected], f"{direction} of {start}"
        assert grid.active_pane() == grid[expected]


@pytest.mark.parametrize("profile", ["python", "rust"])
async def test_select_pane_by_id_makes_it_active(
    grid: Grid, clients: dict[str, Client], profile: str
) -> None:
    for corner in ("bottom-right", "top-left", "bottom-left"):
        assert await select(clients[profile], grid[corner]) == grid[corner]
        assert grid.active_pane() == grid[corner]


@pytest.mark.parametrize("profile", ["python", "rust"])
async def test_select_pane_last_returns_to_the_previous_pane(
    grid: Grid, clients: dict[str, Client], profile: str
) -> None:
    client = clients[profile]
    await select(client, grid["top-left"])
    await select(client, grid["bottom-right"])
    assert await select(client, grid["bottom-right"], "last") == grid["top-left"]
    assert grid.active_pane() == grid["top-left"]


@pytest.mark.parametrize("profile", ["python", "rust"])
async def test_select_pane_next_and_previous_step_in_tmux_order_and_wrap(
    grid: Grid, clients: dict[str, Client], profile: str
) -> None:
    order = [
        line.split()[1]
        for line in sorted(
            grid.tmux.lines("list-panes", "-t", grid.window, "-F", "#{pane_index} #{pane_id}"),
            key=lambda line: int(line.split()[0]),
        )
    ]
    client = clients[profile]
    for i, pane in enumerate(order):
        assert await select(client, pane, "next") == order[(i + 1) % len(order)]
        assert await select(client, pane, "previous") == order[(i - 1) % len(order)]
    # The last pane's next is the first: the order wraps.
    assert await select(client, order[-1], "next") == order[0]


async def test_python_select_pane_direction_in_a_window_uses_its_active_pane(
    tmux: TmuxServer,
) -> None:
    # A server of its own: with no window named, the first session's active window is used.
    grid = tmux.grid()
    window_id = tmux.tmux("display-message", "-p", "-t", "main:0", "#{window_id}").strip()
    tmux.tmux("select-pane", "-t", grid["top-left"])
    async with open_in_process(tmux.server_env()) as client:
        by_id = await client.ok("select_pane", {"window_id": window_id, "direction": "right"})
        assert by_id["pane_id"] == grid["top-right"]
        by_index = await client.ok(
            "select_pane", {"session_name": "main", "window_index": "0", "direction": "down"}
        )
        assert by_index["pane_id"] == grid["bottom-right"]
        default = await client.ok("select_pane", {"direction": "left"})
        assert default["pane_id"] == grid["bottom-left"]
    assert tmux.active_pane() == grid["bottom-left"]


async def test_python_select_pane_fills_every_field_from_tmux(
    grid: Grid, python_client: Client
) -> None:
    fmt = (
        "#{pane_index}|#{pane_current_command}|#{pane_current_path}|#{pane_pid}|#{pane_title}|"
        "#{pane_width}|#{pane_height}|#{pane_tty}|#{pane_left}|#{pane_top}|#{pane_right}|"
        "#{pane_bottom}|#{window_id}|#{session_id}"
    )
    result = await python_client.ok("select_pane", {"pane_id": grid["bottom-right"]})
    fields = grid.tmux.tmux("display-message", "-p", "-t", grid["bottom-right"], fmt)
    (index, command, path, pid, title, width, height, tty, left, top, right, bottom, wid, sid) = (
        fields.strip().split("|")
    )
    assert result == {
        "pane_id": grid["bottom-right"],
        "pane_index": index,
        "pane_active": "1",
        "pane_current_command": command,
        "pane_current_path": path,
        "pane_pid": pid,
        "pane_title": title,
        "pane_width": width,
        "pane_height": height,
        "pane_tty": tty,
        "pane_left": int(left),
        "pane_top": int(top),
        "pane_right": int(right),
        "pane_bottom": int(bottom),
        "pane_at_top": False,
        "pane_at_bottom": True,
        "pane_at_left": False,
        "pane_at_right": True,
        "window_id": wid,
        "session_id": sid,
        "is_caller": None,
    }


@pytest.mark.parametrize("profile", ["python", "rust"])
async def test_select_pane_with_a_null_direction_selects_the_pane_itself(
    grid: Grid, clients: dict[str, Client], profile: str
) -> None:
    key = "pane" if profile == "rust" else "pane_id"
    await clients[profile].ok("select_pane", {key: grid["bottom-left"], "direction": None})
    assert grid.active_pane() == grid["bottom-left"]


async def test_python_select_pane_with_neither_pane_id_nor_direction_is_refused_running_nothing(
    grid: Grid, python_client: Client
) -> None:
    tmux = grid.tmux
    tmux.tmux("select-pane", "-t", grid["bottom-right"])
    window_id = tmux.tmux("display-message", "-p", "-t", grid.window, "#{window_id}").strip()
    session, index = grid.window.split(":")
    before = tmux.state()
    mark = tmux.mark()
    assert (await python_client.ok("list_panes"))["result"]  # the log sees this server's commands
    assert tmux.sent_since(mark)
    for arguments in (
        {},
        {"direction": None, "pane_id": None},
        {"window_id": window_id},
        {"session_name": session, "window_index": index},
    ):
        mark = tmux.mark()
        message = await python_client.error("select_pane", arguments)
        assert "`pane_id`" in message and "`direction`" in message, arguments
        assert "neither was given" in message and "Nothing was run" in message
        tmux.assert_nothing_sent_since(mark, arguments)
    assert tmux.state() == before
    assert grid.active_pane() == grid["bottom-right"]
