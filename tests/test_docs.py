"""The README and docs/ as a reader meets them: short, linked without a dead end, with the
picture of a call's path on both the README and the architecture page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scripts.lab.client import ROOT
from tests.helpers.readme import (
    DOC_PAGES,
    README,
    code_blocks,
    dead_links,
    doc_text,
    links_in,
    section,
    transcript_disagreements,
)
from tmux_contract_mcp.handlers.tmux.transport.version import MINIMUM_TEXT


@pytest.mark.parametrize("name", DOC_PAGES)
def test_every_link_between_the_pages_reaches_a_file_and_its_heading(name: str) -> None:
    assert dead_links(ROOT / name) == []


def test_a_link_to_a_missing_page_or_heading_is_dead(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other\n\n## A part\n", encoding="utf-8")
    (tmp_path / "page.md").write_text(
        "# Page\n\n## Here\n\n[fine](other.md#a-part) [gone](missing.md) "
        "[no part](other.md#b-part) [self](#here) [not self](#there) [web](https://x.org/y)\n"
        "`[in code](missing.md)`\n",
        encoding="utf-8",
    )
    assert dead_links(tmp_path / "page.md") == ["missing.md", "other.md#b-part", "#there"]


def test_the_readme_is_read_in_five_minutes() -> None:
    assert len(README.splitlines()) <= 250


def test_the_readme_keeps_the_issues_order() -> None:
    headings = re.findall(r"^## (.+)$", README, re.M)
    assert headings == [
        "Install",
        "Add it to a client",
        "Which profile",
        "Two commands",
        "Read more",
    ]
    assert README.index("```\n# ") < README.index("## Install")  # the transcript comes first


def test_the_readme_links_every_page_of_docs() -> None:
    linked = {target.partition("#")[0] for target in links_in(README)}
    assert {name for name in DOC_PAGES if name != "README.md"} <= linked


def test_the_readme_install_names_pipx_uv_tool_and_uvx() -> None:
    (block,) = code_blocks(section("Install"), "sh")
    for command in ("pipx install ", "uv tool install ", "uvx --from git+"):
        assert command in block, command


def flowchart_edges(block: str) -> set[tuple[str, str]]:
    """The edges of a Mermaid flowchart (``a --> b``, ``a -.->|"label"| b``), as node ids."""
    edge = re.compile(r'\s*(\w+)\s+-\.?->(?:\|"[^"|]*"\|)?\s+(\w+)\s*')
    return {(m[1], m[2]) for line in block.splitlines() if (m := edge.fullmatch(line))}


def test_the_readme_and_the_architecture_page_draw_the_same_path_of_a_call() -> None:
    (picture,) = code_blocks(README, "mermaid")
    assert picture in code_blocks(doc_text("docs/architecture.md"), "mermaid")
    assert picture.startswith("flowchart ")
    assert flowchart_edges(picture) == {
        ("client", "server"),
        ("server", "control"),
        ("control", "tmux"),
        ("server", "ssh"),
        ("ssh", "rcontrol"),
        ("rcontrol", "rtmux"),
    }


def test_a_transcript_agrees_with_the_output_it_was_cut_from_and_no_other() -> None:
    printed = (
        "a private tmux server on /tmp/tcm-abc/tmux-0/x, session main, one pane\n\n"
        "# run\n→ run_command {}\n"
        '← {"exit_status":0,"elapsed_seconds":0.019,"output":["42"],"more":1}\n\n'
        "# read\n→ capture_pane {}\n← one\ntwo\n"
    )
    elapsed = '← {"exit_status":0,"elapsed_seconds":0.5,"output":["42"],…'
    assert transcript_disagreements(f"# run\n→ run_command {{}}\n{elapsed}\n", printed) == []
    assert transcript_disagreements("# read\n→ capture_pane {}\n← one\ntwo", printed) == []
    wrong = '# run\n→ run_command {}\n← {"exit_status":1,…'
    assert transcript_disagreements(wrong, printed) == [wrong]
    backwards = "# read\n→ capture_pane {}\n\n# run\n→ run_command {}"
    assert transcript_disagreements(backwards, printed) == ["# run\n→ run_command {}"]


def test_the_readme_names_the_python_and_tmux_it_needs() -> None:
    requires = re.search(r'^requires-python = ">=(\d+\.\d+)"', doc_text("pyproject.toml"), re.M)
    assert requires is not None
    text = " ".join(section("Install").split())
    assert f"It needs Python {requires[1]} or newer and tmux {MINIMUM_TEXT} or newer" in text
