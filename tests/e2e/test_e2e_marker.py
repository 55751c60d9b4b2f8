"""`pytest -m "not e2e"` leaves out every test that starts the server: the conftest sees
each start of the command and fails a test that is not marked e2e."""

from __future__ import annotations

import sys

import pytest

from scripts.lab.client import COMMAND, ROOT
from tests.plugin import SERVER_COMMAND, starts_the_server

pytest_plugins = ["pytester"]


def test_the_guard_watches_the_command_the_tests_start() -> None:
    assert SERVER_COMMAND == COMMAND


@pytest.mark.parametrize(
    "argv",
    [
        [COMMAND, "--list-tools"],
        ["/elsewhere/bin/tmux-contract-mcp"],
        [sys.executable, "-m", "tmux_contract_mcp", "--version"],
        ["tmux", "new-window", f"exec {COMMAND} <in.fifo >out.fifo"],
        COMMAND,
    ],
)
def test_a_start_of_the_server_is_recognised(argv: list[str] | str) -> None:
    assert starts_the_server(argv)


@pytest.mark.parametrize(
    "argv",
    [["tmux", "-L", "x", "list-panes"], [sys.executable, "-c", "print(1)"], "true"],
)
def test_other_processes_are_not_taken_for_the_server(argv: list[str] | str) -> None:
    assert not starts_the_server(argv)


def test_an_unmarked_test_that_starts_the_server_fails(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makeconftest("from tests.plugin import *  # noqa: F403\n")
    pytester.makepyfile(
        f"""
        import asyncio, subprocess
        import pytest

        COMMAND = {COMMAND!r}

        def test_unmarked():
            subprocess.run([COMMAND, "--version"], check=True, capture_output=True)

        def test_unmarked_through_asyncio():
            async def start():
                process = await asyncio.create_subprocess_exec(
                    COMMAND, "--version", stdout=subprocess.DEVNULL
                )
                await process.wait()
            asyncio.run(start())

        @pytest.mark.e2e
        def test_marked():
            subprocess.run([COMMAND, "--version"], check=True, capture_output=True)

        def test_another_process():
            subprocess.run(["true"], check=True)
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-W", "ignore")
    result.assert_outcomes(passed=4, errors=2)
    result.stdout.fnmatch_lines(["*test_unmarked*starts the server but is not marked e2e*"])
