"""The command line: --list-tools, --version, --help, the profile from the environment, and the
one-line refusals at startup (what tools/list answers: tests/runtime/test_tools_list.py)."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from codegen.contract_file import METADATA_KEY
from scripts.lab.client import COMMAND, ROOT, contracts
from tests.helpers.contracts import every_toolset
from tmux_contract_mcp.cli import parser
from tmux_contract_mcp.generated import PROFILES
from tmux_contract_mcp.profiles import (
    load_profile,
)
from tmux_contract_mcp.short_help import SCREEN_LINES

SERVED = PROFILES
EVERY_TOOLSET = "inspect,manage,execute,teardown"  # teardown is hidden by default


def run_cli(*args: str, toolsets: str = EVERY_TOOLSET) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LIBTMUX_TOOLSETS": toolsets}
    return subprocess.run([COMMAND, *args], capture_output=True, text=True, timeout=30, env=env)


@pytest.mark.parametrize("profile", SERVED)
def test_list_tools_prints_every_tool_with_its_toolset(profile: str) -> None:
    done = run_cli("--profile", profile, "--list-tools", toolsets=every_toolset(profile))
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()]
    expected = {
        name: contract[METADATA_KEY]["toolset"] for name, contract in contracts(profile).items()
    }
    assert dict((name, toolset) for name, toolset in rows) == expected


def test_profile_comes_from_the_environment_when_not_given() -> None:
    import os

    env = {**os.environ, "TMUX_CONTRACT_MCP_PROFILE": "rust"}
    done = subprocess.run(
        [COMMAND, "--list-tools"], capture_output=True, text=True, timeout=30, env=env
    )
    named = subprocess.run(
        [COMMAND, "--profile", "rust", "--list-tools"],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "TMUX_CONTRACT_MCP_PROFILE": "python"},
    )
    assert ["select_pane", "manage"] in [line.split() for line in done.stdout.splitlines()]
    assert done.stdout == named.stdout


def test_version_and_help_exit_cleanly() -> None:
    version = run_cli("--version")
    assert version.returncode == 0 and version.stdout.startswith("tmux-contract-mcp ")
    help_text = run_cli("--help")
    assert help_text.returncode == 0
    for word in ("--profile", "--list-tools", "--help-all", "doctor"):
        assert word in help_text.stdout
    every = run_cli("--help-all")
    assert every.returncode == 0
    for word in ("--profile", "--list-tools", "LIBTMUX_SOCKET", "--token-file"):
        assert word in every.stdout


def test_help_fits_one_screen_and_points_at_doctor_and_the_docs() -> None:
    lines = run_cli("--help").stdout.splitlines()
    assert len(lines) <= SCREEN_LINES
    assert all(len(line) <= 88 for line in lines)
    text = "\n".join(lines)
    assert "tmux-contract-mcp doctor [--profile P]" in text
    assert "docs/configuration.md" in text and "docs/troubleshooting.md" in text
    for page in re.findall(r"docs/[a-z-]+\.md", text):
        assert (ROOT / page).exists(), page
    named = set(re.findall(r"(?<![\w-])(--[a-z-]+)", text))
    taken = {option for action in parser()._actions for option in action.option_strings}
    assert named <= taken, named - taken


def test_help_lists_every_variable_each_profile_reads_with_its_default() -> None:
    lines = run_cli("--help-all").stdout.split("environment:\n", 1)[1].splitlines()
    # A variable profiles describe differently has one line per description.
    described: dict[str, list[str]] = {}
    for line in lines:
        described.setdefault(line.split()[0], []).append(" ".join(line.split()[1:]))

    def line_of(variable: str, meaning: str) -> str:
        (text,) = (
            text
            for text in described[variable]
            if text.startswith(meaning) and text[len(meaning) :][:1] in ("", " ")
        )
        return text

    for name in SERVED:
        profile = load_profile(name)
        for variable in profile.environment:
            text = line_of(variable.name, variable.meaning)
            if variable.default is not None:
                assert f"(default {variable.default})" in text
            if len(described[variable.name]) > 1:  # the line says whose it is
                assert re.search(rf"\[(\w+, )*{name}(, \w+)* profiles?\]$", text), text
        (toolsets,) = (
            entry.meaning for entry in profile.environment if entry.name == "LIBTMUX_TOOLSETS"
        )
        text = line_of("LIBTMUX_TOOLSETS", toolsets)
        assert f"(default {','.join(profile.toolsets.default)})" in text
        assert ", ".join(profile.toolsets.names) in text
    assert described["LIBTMUX_MCP_WAIT_MAX_SECONDS"][0].endswith("[python profile]")


@pytest.mark.parametrize(
    ("args", "env"),
    [(["--transport", "bogus"], {}), ([], {"TMUX_CONTRACT_MCP_TRANSPORT": "bogus"})],
)
def test_an_unknown_transport_stops_startup_with_one_line(
    args: list[str], env: dict[str, str]
) -> None:
    done = subprocess.run(
        [COMMAND, "--profile", "swift", *args],
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **env},
    )
    assert done.returncode == 2
    assert "bogus" in done.stderr
    assert done.stderr.strip().splitlines()[-1].count("bogus") == 1


def test_an_unknown_profile_is_refused() -> None:
    done = run_cli("--profile", "perl")
    assert done.returncode != 0
    assert "perl" in done.stderr
