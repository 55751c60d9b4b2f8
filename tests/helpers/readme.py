"""The README and the pages under docs/, read by the tests that hold them to the code."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from scripts.lab.client import ROOT

DOC_PAGES = ("README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")))
"""Every page a reader is sent to: the README and each page of docs/."""


@cache
def doc_text(name: str = "README.md") -> str:
    """A page's text, by its path from the repository's root."""
    return (ROOT / name).read_text(encoding="utf-8")


README = doc_text()


def body(name: str) -> str:
    """A page's text under its title (its first line, a ``# `` heading)."""
    title, _, rest = doc_text(name).partition("\n")
    assert title.startswith("# "), f"{name} does not start with a '# ' title"
    return rest


def section(title: str, level: str = "##", name: str = "README.md") -> str:
    """The text under a heading of page ``name``, up to the next heading of the same or a
    higher level."""
    match = re.search(
        rf"^{level} {re.escape(title)}\n(.*?)(?=^#{{1,{len(level)}}} |\Z)",
        doc_text(name),
        re.M | re.S,
    )
    assert match, f"no '{level} {title}' section in {name}"
    return match.group(1)


def flat(text: str) -> str:
    """``text`` with every run of whitespace one space: a sentence, wherever it wraps."""
    return " ".join(text.split())


def table_rows(text: str) -> list[list[str]]:
    """The cells of each body row of the first table in ``text``."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]


def code_blocks(text: str, language: str = "") -> list[str]:
    """The bodies of the fenced code blocks of ``text`` in ``language`` (``""``: none given)."""
    return re.findall(rf"^```{re.escape(language)}\n(.*?)^```$", text, re.M | re.S)


def slug(heading: str) -> str:
    """The anchor the forge makes of a heading: lower case, punctuation dropped, spaces
    to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def prose(text: str) -> str:
    """``text`` without its fenced code blocks."""
    return re.sub(r"^```.*?^```$", "", text, flags=re.M | re.S)


def anchors(text: str) -> set[str]:
    """The anchors of a page's headings, a repeated one numbered as the forge does."""
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#{1,6} (.+)$", prose(text), re.M):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links_in(text: str) -> list[str]:
    """The targets of a page's Markdown links outside code (``[text](target)``)."""
    return re.findall(r"\]\(([^)\s]+)\)", re.sub(r"`[^`\n]*`", "", prose(text)))


def dead_links(file: Path) -> list[str]:
    """The links of page ``file`` to a file that does not exist or to a heading its page
    does not have; web addresses are not checked."""
    dead = []
    for target in links_in(file.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (file.parent / path) if path else file
        missing = not linked.exists()
        if not missing and anchor:
            missing = linked.is_dir() or anchor not in anchors(linked.read_text("utf-8"))
        if missing:
            dead.append(target)
    return dead


NORMALISED = (
    (re.compile(r"/tmp/tcm-[^/\s]+/"), "/tmp/tcm-…/"),
    (re.compile(r'"session_created":"\d+"'), '"session_created":"…"'),
    (re.compile(r"/dev/pts/\d+"), "/dev/pts/…"),
    (re.compile(r'"elapsed_seconds":[\d.]+'), '"elapsed_seconds":…'),
)
"""What differs between two runs of the demo: its private directory, times, terminals."""


def normalised(line: str) -> str:
    for pattern, same in NORMALISED:
        line = pattern.sub(same, line)
    return line


def transcript_disagreements(shown: str, printed: str) -> list[str]:
    """Each paragraph of ``shown`` (a transcript cut from the demo's output) that is not
    consecutive lines of ``printed``, in order; a shown line ending in ``…`` stands for
    any printed line it starts. Empty when they agree."""
    out = [normalised(line) for line in printed.splitlines()]
    wrong = []
    at = 0
    for paragraph in shown.strip("\n").split("\n\n"):
        rows = [normalised(line) for line in paragraph.splitlines()]

        def fits(start: int, rows: list[str] = rows) -> bool:
            if start + len(rows) > len(out):
                return False
            return all(
                out[start + i].startswith(row[:-1]) if row.endswith("…") else out[start + i] == row
                for i, row in enumerate(rows)
            )

        start = next((i for i in range(at, len(out)) if fits(i)), None)
        if start is None:
            wrong.append(paragraph)
        else:
            at = start + len(rows)
    return wrong
