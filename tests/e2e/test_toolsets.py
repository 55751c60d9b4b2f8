"""LIBTMUX_TOOLSETS as the command sees it: what --list-tools prints, startup refused over an
unknown name (the selection itself: tests/runtime/test_toolsets.py)."""

from __future__ import annotations

import itertools
import os
import subprocess

import pytest

from scripts.lab.client import COMMAND
from tests.helpers.contracts import tools_in_toolset as names_in
from tmux_contract_mcp.profiles import load_profile

TOOLSETS = load_profile("python").toolsets  # from contracts/python-profile.json


def list_tools(**environ: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("LIBTMUX_")}
    return subprocess.run(
        [COMMAND, "--profile", "python", "--list-tools"],
        capture_output=True,
        text=True,
        timeout=30,
        env={**env, **environ},
    )


def test_list_tools_shows_the_chosen_toolsets() -> None:
    done = list_tools(LIBTMUX_TOOLSETS="inspect", LIBTMUX_EXCLUDE_TOOLS="wait_for_text")
    assert done.returncode == 0, done.stderr
    listed = {line.split()[0]: line.split()[1] for line in done.stdout.splitlines()}
    assert set(listed) == names_in("inspect") - {"wait_for_text"}
    assert set(listed.values()) == {"inspect"}


def test_an_unknown_name_stops_startup_with_one_line() -> None:
    done = list_tools(LIBTMUX_TOOLSETS="inspect,everything")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "LIBTMUX_TOOLSETS" in lines[0] and "everything" in lines[0]


COMBINATIONS = [
    ",".join(chosen)
    for size in range(len(TOOLSETS.names) + 1)
    for chosen in itertools.combinations(TOOLSETS.names, size)
]


@pytest.mark.parametrize("toolsets", COMBINATIONS, ids=lambda value: value or "none")
def test_every_combination_of_toolsets_lists_exactly_their_tools(toolsets: str) -> None:
    done = list_tools(LIBTMUX_TOOLSETS=toolsets)
    assert done.returncode == 0, done.stderr
    listed = {line.split()[0] for line in done.stdout.splitlines()}
    wanted = set().union(*(names_in(name) for name in toolsets.split(",") if name))
    assert listed == wanted
