"""The official MCP conformance suite against ``--http`` on every profile, on both eras
(``docs/conformance.md``): every scenario it lists runs, and every one the doc does not set
aside passes. The suite cannot send the token, so a loopback forwarder adds it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scripts.lab import conformance
from scripts.lab.httpserver import HttpServer
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.conformance import not_judged
from tests.helpers.forwarder import forwarding
from tmux_contract_mcp.profiles import PROFILES

pytestmark = pytest.mark.timeout(900)  # the first run installs the suite

EVERY = tuple(str(profile) for profile in PROFILES)
SET_ASIDE = not_judged(EVERY)


@pytest.fixture(scope="module")
def listed() -> dict[str, list[str]]:
    """The server scenarios the suite's own listing names, by era."""
    return {era: conformance.scenarios(era) for era in conformance.ERAS}


@pytest.fixture(scope="module", params=EVERY)
def runs(request: pytest.FixtureRequest, shared: TmuxServer) -> Iterator[list[conformance.Run]]:
    profile = str(request.param)
    with HttpServer.running(shared.server_env(), profile) as server, forwarding(server) as url:
        yield [conformance.run(url, era) for era in conformance.ERAS]


def test_the_docs_set_aside_only_scenarios_and_checks_the_suite_has(
    listed: dict[str, list[str]],
) -> None:
    every = {scenario for scenarios in listed.values() for scenario in scenarios}
    assert SET_ASIDE
    for row in SET_ASIDE:
        assert row.scenario in every, f"docs/conformance.md names {row.scenario}, not in the suite"
        assert row.profiles <= set(EVERY), row


def test_every_scenario_the_suite_lists_runs_and_each_judged_one_passes(
    runs: list[conformance.Run], listed: dict[str, list[str]], request: pytest.FixtureRequest
) -> None:
    profile = request.node.callspec.params["runs"]
    skipped = {row.scenario for row in SET_ASIDE if row.check is None and profile in row.profiles}
    aside = {
        (row.scenario, row.check)
        for row in SET_ASIDE
        if row.check is not None and profile in row.profiles
    }
    for run in runs:
        print(f"\n{profile} --spec-version {run.spec_version}\n{run.summary}")
        assert sorted(run.checks) == sorted(listed[run.spec_version])
        judged = [scenario for scenario in run.checks if scenario not in skipped]
        assert judged
        for scenario in judged:
            failures = [
                check for check in run.failures(scenario) if (scenario, check.id) not in aside
            ]
            assert not failures, (profile, run.spec_version, failures)
            for warning in run.warnings(scenario):
                print(f"WARNING {scenario} {warning.id}: {warning.message}")
        print(
            f"judged: {len(judged)} scenarios, every one passed; not judged: "
            f"{len(run.checks) - len(judged)} (docs/conformance.md)"
        )


def test_a_row_limited_to_some_profiles_passes_on_the_others(
    runs: list[conformance.Run], request: pytest.FixtureRequest
) -> None:
    profile = request.node.callspec.params["runs"]
    limited = [row for row in SET_ASIDE if profile not in row.profiles]
    for run in runs:
        for row in limited:
            if row.scenario not in run.checks:
                continue  # not a scenario of this era
            failing = {check.id for check in run.failures(row.scenario)}
            assert (row.check not in failing) if row.check else not failing, (profile, row)
