"""The profile tables (README and docs/profiles.md), the profile pages' tool lists and the
configuration table (docs/configuration.md) say what the code serves."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from codegen.skeleton import load_skeleton, skeleton_path
from scripts.lab.client import ROOT
from tests.helpers.readme import body, section, table_rows
from tmux_contract_mcp.profiles import PROFILES, load_profile

SOURCES = ROOT


def toolset_counts(profile: str) -> Counter[str]:
    return Counter(tool.entry.toolset for tool in load_profile(profile).tools.values())


def tools_of(profile: str, toolset: str | None = None) -> set[str]:
    tools = load_profile(profile).tools.values()
    return {t.entry.name for t in tools if toolset is None or t.entry.toolset == toolset}


def named(text: str) -> set[str]:
    return set(re.findall(r"`([a-z_]+)`", text))


PROFILE_TABLES = {
    "README.md": lambda: section("Which profile"),
    "docs/profiles.md": lambda: body("docs/profiles.md"),
}


@pytest.mark.parametrize("where", PROFILE_TABLES)
def test_the_profile_table_has_one_row_per_profile(where: str) -> None:
    rows = table_rows(PROFILE_TABLES[where]())
    assert [re.findall(r"`(\w+)`", row[0])[0] for row in rows] == list(PROFILES)


@pytest.mark.parametrize("where", PROFILE_TABLES)
@pytest.mark.parametrize("profile", PROFILES)
def test_the_profile_table_counts_the_tools_each_profile_serves(profile: str, where: str) -> None:
    row = next(r for r in table_rows(PROFILE_TABLES[where]()) if f"`{profile}`" in r[0])
    match = re.fullmatch(r"(\d+) tools?: (.*)", row[-1])
    assert match, f"the last cell of {profile}'s row does not start with 'N tools:': {row[-1]!r}"
    assert int(match.group(1)) == len(tools_of(profile))
    counts = {
        name: int(n)
        for n, name in re.findall(r"(\d+) (inspect|manage|execute|teardown|agents)", match.group(2))
    }
    assert counts == dict(toolset_counts(profile))
    assert named(match.group(2)) <= tools_of(profile)


@pytest.mark.parametrize("toolset", ["inspect", "manage", "execute", "teardown"])
def test_the_python_section_names_every_tool_of_each_toolset(toolset: str) -> None:
    text = " ".join(body("docs/profile-python.md").split())
    match = re.search(rf"The (\d+) {toolset} tools[^:]*: (.*?)\.(?: |$)", text)
    assert match, f"no list of the {toolset} tools"
    assert int(match.group(1)) == len(tools_of("python", toolset))
    assert named(match.group(2)) == tools_of("python", toolset)
    # The libtmux-mcp surface: every tool but the opt-in agents toolset's (docs/agents.md).
    surface = tools_of("python") - tools_of("python", "agents")
    assert f"All {len(surface)} of its tools are served" in text


@pytest.mark.parametrize("toolset", ["inspect", "manage", "execute", "teardown"])
@pytest.mark.parametrize("profile", ["rust", "swift"])
def test_the_family_sections_name_every_tool_of_each_toolset(profile: str, toolset: str) -> None:
    text = " ".join(body(f"docs/profile-{profile}.md").split())
    match = re.search(rf"Its (\d+) {toolset} tools are (.*?)\. ", text)
    assert match, f"no list of the {profile} {toolset} tools"
    assert int(match.group(1)) == len(tools_of(profile, toolset))
    assert named(match.group(2)) == tools_of(profile, toolset)


@pytest.mark.parametrize("profile", ["rust", "swift"])
def test_the_family_sections_say_the_whole_skeleton_is_served(profile: str) -> None:
    text = " ".join(body(f"docs/profile-{profile}.md").split())
    skeleton = load_skeleton(skeleton_path(profile))
    assert set(skeleton) == tools_of(profile)
    assert f"All {len(skeleton)} of the family's tools are served" in text


def test_the_detailed_configuration_table_is_one_unbroken_table() -> None:
    blocks = re.split(r"\n\s*\n", section("In detail", name="docs/configuration.md").strip())
    tables = [block for block in blocks if block.lstrip().startswith("|")]
    assert len(tables) == 1, "a paragraph splits the configuration table"
    assert all(line.startswith("|") for line in tables[0].splitlines())
    assert not any(
        line.startswith("|")
        for block in blocks
        if block is not tables[0]
        for line in block.splitlines()
    )


def test_every_variable_in_the_configuration_table_is_read_by_the_code() -> None:
    code = "\n".join(
        path.read_text(encoding="utf-8")
        for folder in ("runtime", "handlers")
        for path in (SOURCES / folder).rglob("*.py")
    )
    settings = [row[0] for row in table_rows(body("docs/configuration.md"))]
    variables = {v for cell in settings for v in re.findall(r"`([A-Z][A-Z0-9_]+)`", cell)}
    assert variables, "no variables found in the table"
    for variable in sorted(variables):
        assert f'"{variable}"' in code, (
            f"{variable} is in docs/configuration.md but no code reads it"
        )
    options = {o for cell in settings for o in re.findall(r"`(--[a-z-]+)`", cell)}
    for option in sorted(options):
        assert f'"{option}"' in code, (
            f"{option} is in docs/configuration.md but the CLI has no such option"
        )


@pytest.mark.parametrize("profile", PROFILES)
def test_every_variable_a_profile_description_lists_is_read_by_the_code(profile: str) -> None:
    code = "\n".join(
        path.read_text(encoding="utf-8")
        for folder in ("runtime", "handlers")
        for path in (SOURCES / folder).rglob("*.py")
    )
    variables = [variable.name for variable in load_profile(profile).environment]
    assert variables
    for variable in variables:
        assert f'"{variable}"' in code, f"{profile} lists {variable}, but no code reads it"
