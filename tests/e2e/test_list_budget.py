"""What a client reads first stays within its budget: the bytes of the tools/list answer line
as the installed command writes it (the rest of the budget rules: tests/codegen/test_list_budget.py)."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from scripts.lab.client import COMMAND
from scripts.lab.tmuxserver import TmuxServer
from scripts.lab.wiresize import raw_server

EVERY_TOOLSET = "inspect,manage,execute,teardown"


KB = 1000


class Budget(NamedTuple):
    test_id: str
    profile: str
    toolsets: str | None  # None: the profile's default
    most: int  # bytes of the raw tools/list answer


BUDGETS = (
    Budget("python-every-toolset", "python", EVERY_TOOLSET, 110 * KB),
    Budget("python-default", "python", None, 95 * KB),
    # The opt-in agents toolset adds its four tools (about 5.3 KB) to every other toolset.
    Budget("python-every-toolset-and-agents", "python", EVERY_TOOLSET + ",agents", 110 * KB),
    Budget("rust-every-toolset", "rust", EVERY_TOOLSET, 80 * KB),
    Budget("swift-every-toolset", "swift", EVERY_TOOLSET, 70 * KB),
)


@pytest.mark.parametrize("budget", BUDGETS, ids=[b.test_id for b in BUDGETS])
def test_tools_list_stays_within_its_budget(tmux: TmuxServer, budget: Budget) -> None:
    extra = {"LIBTMUX_TOOLSETS": budget.toolsets} if budget.toolsets else {}
    with raw_server([COMMAND, "--profile", budget.profile], tmux.server_env(**extra)) as peer:
        line = peer.request("tools/list")
    assert '"tools":[' in line.replace(" ", "")
    assert len(line.encode()) <= budget.most, (
        f"{budget.profile} tools/list is {len(line.encode())} bytes, over {budget.most}"
    )
