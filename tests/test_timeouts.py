"""A test that runs past its timeout fails alone, and the run goes on: pytest-timeout's signal
method (pyproject.toml), with async tests cancelled inside their event loop (tests/conftest.py).
"""

from __future__ import annotations

import pytest

from scripts.lab.client import ROOT
from tests.helpers.readme import doc_text, flat

pytest_plugins = ["pytester"]


def test_every_test_has_a_timeout_by_the_signal_method(pytestconfig: pytest.Config) -> None:
    timeout = float(pytestconfig.getini("timeout"))
    assert timeout == 120
    assert pytestconfig.getini("timeout_method") == "signal"
    text = flat(doc_text("docs/development.md"))
    assert f"A test that runs past {timeout:g} s, or past the longer limit it is marked" in text
    assert "fails with its stack trace and the run goes on (pytest-timeout)" in text


HUNG_MODULE = """
import time

import anyio
import pytest

@pytest.fixture(scope="module")
async def shared():
    # A module's async fixture, as the shared MCP clients are: torn down after a hang too.
    yield "up"
    print("TORN DOWN")

@pytest.mark.anyio
async def test_hung_async(shared):
    await anyio.sleep(1000)

@pytest.mark.anyio
async def test_async_after_the_hang(shared):
    assert shared == "up"

@pytest.mark.timeout(2)
def test_hung_sync():
    time.sleep(1000)

@pytest.mark.anyio
@pytest.mark.timeout(30)
async def test_own_timeout_is_its_own():
    with pytest.raises(TimeoutError):
        with anyio.fail_after(0.1):
            await anyio.sleep(1000)
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2", "--dist", "loadfile"]], ids=["one", "xdist"])
def test_a_hung_test_fails_alone_and_the_module_goes_on(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: list[str]
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makeconftest("from tests.plugin import *  # noqa: F403\n")
    pytester.makepyfile(test_hang=HUNG_MODULE)
    timeouts = ["-o", "timeout=4", "-o", "timeout_method=signal"]
    # --tb=native: a quick report, made within the time left after the async test's cancellation
    options = ["-p", "no:cacheprovider", "--tb=native", "-s", *timeouts, *workers]
    result = pytester.runpytest_subprocess(*options, timeout=60)
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*Failed: Timeout (>4s) from pytest-timeout: cancelled where it awaited",
            "*Failed: Timeout (>2.0s) from pytest-timeout.",
        ],
        consecutive=False,
    )
    assert "await anyio.sleep(1000)" in result.stdout.str()  # where it hung
    if not workers:  # xdist keeps a worker's output
        assert "TORN DOWN" in result.stdout.str()
