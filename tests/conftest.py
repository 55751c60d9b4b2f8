from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.tmuxenv import TmuxServer


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """Module scope, so module-scoped async fixtures (a shared MCP client) can use it."""
    return "asyncio"


@pytest.fixture
def tmux() -> Iterator[TmuxServer]:
    server = TmuxServer.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture(scope="module")
def shared() -> Iterator[TmuxServer]:
    """One tmux server for a whole module, for tests that each make their own panes."""
    server = TmuxServer.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def other_tmux(tmux: TmuxServer) -> Iterator[TmuxServer]:
    """A second server in the same TMUX_TMPDIR: its ids collide with the first one's."""
    server = TmuxServer.start(beside=tmux)
    try:
        yield server
    finally:
        server.kill()
