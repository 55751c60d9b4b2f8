from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.tmuxenv import TmuxServer


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def tmux() -> Iterator[TmuxServer]:
    server = TmuxServer.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def other_tmux() -> Iterator[TmuxServer]:
    """A second, unrelated server: ids on it collide with the first one's."""
    server = TmuxServer.start()
    try:
        yield server
    finally:
        server.kill()
