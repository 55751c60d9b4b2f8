"""Id shapes are checked whole: nothing before or after the id gets through."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tmux_contract_mcp.errors import InvalidArgument
from tmux_contract_mcp.handlers.tmux.objects.targets import (
    check_pane_id,
    check_session_id,
    check_window_id,
    check_window_index,
)

CHECKS: list[tuple[Callable[[str], str], str]] = [
    (check_pane_id, "%1"),
    (check_window_id, "@1"),
    (check_session_id, "$1"),
    (check_window_index, "1"),
]


@pytest.mark.parametrize(("check", "good"), CHECKS)
def test_an_id_passes_alone_and_fails_with_anything_around_it(
    check: Callable[[str], str], good: str
) -> None:
    assert check(good) == good
    for bad in (f"{good}\n", f" {good}", f"{good} ", f"{good};", f"{good}x", good[:-1] + "-1"):
        with pytest.raises(InvalidArgument):
            check(bad)
