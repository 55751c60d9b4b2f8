"""The command a user installs carries nothing made for the benchmark.

The benchmark once reached a read-caching stub through ``--transport memo``;
it now injects its own stub from ``scripts/bench`` (see test_bench_stub.py),
so the shipped command offers the real transports only and refuses any other.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from scripts.lab.client import COMMAND, ROOT
from tmux_contract_mcp import cli
from tmux_contract_mcp.handlers.tmux.transport import kinds
from tmux_contract_mcp.profiles import PROFILES

SHIPPED_ROOTS = ("runtime", "generated", "handlers")


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [COMMAND, *args],
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.e2e
def test_help_offers_the_real_transports_and_nothing_for_benchmarks() -> None:
    done = run("--help")
    assert done.returncode == 0
    assert "--transport {control,subprocess}" in " ".join(done.stdout.split())
    for word in ("memo", "bench", "stub"):
        assert word not in done.stdout.lower()


def test_the_command_line_reads_the_cores_one_list_of_transports() -> None:
    option = next(a for a in cli.parser()._actions if "--transport" in a.option_strings)
    assert option.choices is kinds.TRANSPORTS
    assert kinds.TRANSPORTS == ("control", "subprocess")


@pytest.mark.e2e
@pytest.mark.parametrize("profile", PROFILES)
def test_memo_in_the_environment_stops_startup_with_one_line(profile: str) -> None:
    done = run("--profile", profile, env={"TMUX_CONTRACT_MCP_TRANSPORT": "memo"})
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "tmux-contract-mcp: TMUX_CONTRACT_MCP_TRANSPORT='memo' is not a transport; "
        "choose one of control, subprocess"
    ]


@pytest.mark.e2e
def test_memo_on_the_command_line_is_refused() -> None:
    done = run("--profile", "python", "--transport", "memo")
    assert done.returncode != 0
    assert "invalid choice: 'memo'" in done.stderr


def test_no_shipped_module_is_a_benchmark_stub() -> None:
    shipped = [path for root in SHIPPED_ROOTS for path in (ROOT / root).rglob("*.py")]
    assert any(
        path.relative_to(ROOT).as_posix() == "handlers/tmux/objects/server.py" for path in shipped
    )  # the walk sees the tmux core
    assert [path for path in shipped if path.stem == "memo"] == []
    probe = (
        "import importlib.util as u; "
        "print(u.find_spec('tmux_contract_mcp.handlers.tmux.transport.memo') is None)"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", probe], cwd="/", capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "True", done.stderr
