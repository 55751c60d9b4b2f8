"""With no socket setting, the server uses the tmux it runs inside, else tmux's default socket."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scripts.lab.client import open_in_process
from scripts.lab.tmuxserver import TmuxServer

pytestmark = pytest.mark.anyio


@pytest.fixture
def default_tmux(tmux: TmuxServer) -> Iterator[TmuxServer]:
    """A server on the socket named 'default' in ``tmux``'s private TMUX_TMPDIR."""
    server = TmuxServer(tmux.tmpdir, "default", env=dict(tmux.env), owns_tmpdir=False)
    server.tmux("-f", "/dev/null", "new-session", "-d", "-s", "on-default")
    try:
        yield server
    finally:
        server.kill()


async def session_names(env: dict[str, str]) -> list[str]:
    async with open_in_process(env, "python") as client:
        listed = await client.ok("list_sessions")
    return [row["session_name"] for row in listed["result"]]


async def test_without_socket_settings_the_default_socket_is_used(
    tmux: TmuxServer, default_tmux: TmuxServer
) -> None:
    assert await session_names(dict(tmux.env)) == ["on-default"]


async def test_inside_tmux_the_server_it_runs_in_is_used(
    tmux: TmuxServer, default_tmux: TmuxServer
) -> None:
    inside = {**tmux.env, "TMUX": f"{tmux.socket_path},1,0"}
    assert await session_names(inside) == ["main"]
    # A socket setting still wins over TMUX.
    assert await session_names({**inside, "LIBTMUX_SOCKET": "default"}) == ["on-default"]
