"""Extract the vendored contracts from the seed documents in contracts/upstream/.

The seed documents are the source of truth for the tools they describe; this
script is the only way their contracts reach contracts/<profile>/. A test runs
it again and compares, so a hand edit of a vendored contract is caught.

Run as ``python -m codegen.vendor [--out DIR]``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegen.contract_file import METADATA_KEY, write_contract
from codegen.skeleton import strip_docs

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM = ROOT / "contracts" / "upstream"

_DECODER = json.JSONDecoder()
_NON_SPACE = re.compile(r"\S")


@dataclass(frozen=True)
class Vendored:
    """One contract to extract: which seed(s), which profile, which toolset.

    ``skeleton`` names an interface skeleton in contracts/upstream/ that also
    describes the tool: its ``meta`` becomes the contract's ``_meta`` (the seeds
    carry none), and everything both documents state must agree. ``cut_to_served``
    are JSON pointers to lists of tool names in it that the runtime cuts down to
    the tools served (a batch's nested authority).
    """

    profile: str
    tool: str
    toolset: str
    sources: tuple[str, ...]
    skeleton: str | None = None
    cut_to_served: tuple[str, ...] = ()


# The batch's nested authority in the family's capability record: the tools it may call.
NESTED_AUTHORITY = "/_meta/com.git-pull.libtmux-mcp~1capability/nestedAuthority"

# What the seeds fix. Toolsets follow each family's own grouping.
VENDORED: tuple[Vendored, ...] = (
    Vendored(
        "rust",
        "select_pane",
        "manage",
        ("000_bf8c68d719f0db61.txt", "001_60ccaf28378a7ec3.txt"),
        skeleton="rust-profile-skeleton.json",
    ),
    Vendored(
        "swift",
        "call_read_tools_batch",
        "inspect",
        ("002_01fc082bec1ea19d.txt",),
        skeleton="swift-profile-skeleton.json",
        cut_to_served=(NESTED_AUTHORITY,),
    ),
    Vendored("python", "select_pane", "manage", ("003_94e15889dca86bdb.txt",)),
    Vendored("python", "find_pane_by_position", "inspect", ("004_db5d5c6ba6c575fd.txt",)),
)


class SeedFormatError(ValueError):
    """A seed document does not have the shape this extractor expects."""


def json_values(text: str) -> Iterator[tuple[Any, int, int]]:
    """Yield every top-level JSON object in ``text`` with its span, in order."""
    pos = 0
    while True:
        brace = text.find("{", pos)
        if brace < 0:
            return
        try:
            value, end = _DECODER.raw_decode(text, brace)
        except json.JSONDecodeError:
            pos = brace + 1
            continue
        yield value, brace, end
        pos = end


def json_after(text: str, marker: str) -> Any:
    """The first JSON value that follows the line ``marker``."""
    match = re.search(rf"^{re.escape(marker)}\s*$", text, re.MULTILINE)
    if match is None:
        raise SeedFormatError(f"no line {marker!r} in the seed")
    for value, _, _ in json_values(text[match.end() :]):
        return value
    raise SeedFormatError(f"no JSON after {marker!r}")


def quoted_summary(text: str) -> str:
    """The ``> `` line of a reference page: the contract's description."""
    for line in text.splitlines():
        if line.startswith("> "):
            return line[2:].strip()
    raise SeedFormatError("no '> ' summary line")


def parse_raw_contract(text: str) -> dict[str, Any]:
    """Seed form 'raw contract': name, then input, output, annotations as JSON."""
    name, _, rest = text.partition("\n")
    values = [value for value, _, _ in json_values(rest)]
    if len(values) != 3:
        raise SeedFormatError(f"expected 3 JSON blocks, found {len(values)}")
    input_schema, output_schema, annotations = values
    return {
        "name": name.strip(),
        "inputSchema": input_schema,
        "outputSchema": output_schema,
        "annotations": annotations,
    }


def parse_markdown_page(text: str) -> dict[str, Any]:
    """Seed form 'reference page' with fenced JSON (the rust and swift sites)."""
    heading = re.search(r"^# (\S+)\s*$", text, re.MULTILINE)
    if heading is None:
        raise SeedFormatError("no '# tool' heading")
    annotations = json_after(text, "Tool annotations")
    contract: dict[str, Any] = {"name": heading.group(1)}
    if "title" in annotations:
        contract["title"] = annotations["title"]
    contract["description"] = quoted_summary(text)
    if re.search(r"^Input schema\s*$", text, re.MULTILINE):
        contract["inputSchema"] = json_after(text, "Input schema")
        contract["outputSchema"] = json_after(text, "Output schema")
    contract["annotations"] = annotations
    return contract


def parse_python_page(text: str) -> dict[str, Any]:
    """Seed form 'Python MCP reference' (the python site's rendered page)."""
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "tool MCPstable")
    except StopIteration as exc:
        raise SeedFormatError("no 'tool MCPstable' line") from exc
    body = [line.strip() for line in lines[start + 1 :]]
    body = [line for line in body if line]
    name = body[0].strip("`")
    paragraphs: list[str] = []
    for line in body[1:]:
        if line.startswith("MCP request method:"):
            break
        paragraphs.append(line)
    if not paragraphs:
        raise SeedFormatError("no summary after the tool name")

    annotations: dict[str, bool] = {}
    in_annotations = False
    for line in body:
        if line == "Annotations#":
            in_annotations = True
            continue
        if in_annotations:
            key, sep, value = line.partition(":")
            if not sep:
                break
            if value.strip() not in ("true", "false"):
                raise SeedFormatError(f"annotation {key!r} is not a boolean")
            annotations[key.strip()] = value.strip() == "true"
    if not annotations:
        raise SeedFormatError("no annotations")

    return {
        "name": name,
        "description": "\n\n".join(paragraphs),
        "inputSchema": json_after(text, "Input schema"),
        "outputSchema": json_after(text, "Output schema"),
        "annotations": annotations,
    }


def parse_seed(text: str) -> dict[str, Any]:
    """Pick the parser by the seed's form."""
    if "tool MCPstable" in text:
        return parse_python_page(text)
    if re.search(r"^# \S+\s*$", text, re.MULTILINE):
        return parse_markdown_page(text)
    return parse_raw_contract(text)


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Combine one contract described by several seeds; they must agree."""
    merged: dict[str, Any] = {}
    for part in parts:
        for key, value in part.items():
            if key in merged and merged[key] != value:
                raise SeedFormatError(f"the seeds disagree on {key!r}")
            merged.setdefault(key, value)
    return merged


ORDER = ("name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta")
# What a skeleton states about a tool that a seed states too: they must agree (the
# skeleton without the descriptions and titles it leaves out of schemas).
SHARED_WITH_SKELETON = ("title", "inputSchema", "outputSchema", "annotations")


def skeleton_meta(entry: Vendored, merged: dict[str, Any], upstream: Path) -> dict[str, Any]:
    """The tool's ``_meta`` as ``entry.skeleton`` records it, once the skeleton and the
    seeds are found to agree on everything both state (its toolset included)."""
    assert entry.skeleton is not None
    document = json.loads((upstream / entry.skeleton).read_text(encoding="utf-8"))
    found = [tool for tool in document["tools"] if tool["name"] == entry.tool]
    if len(found) != 1:
        raise SeedFormatError(f"{entry.skeleton} has {len(found)} tools named {entry.tool!r}")
    (reference,) = found
    if reference.get("toolset") != entry.toolset:
        raise SeedFormatError(
            f"{entry.skeleton} puts {entry.tool!r} in {reference.get('toolset')!r}, "
            f"not {entry.toolset!r}"
        )
    for key in SHARED_WITH_SKELETON:
        ours = merged.get(key)
        if key.endswith("Schema"):
            ours = strip_docs(ours)
        if key in reference and reference[key] != ours:
            raise SeedFormatError(f"{entry.skeleton} and {entry.sources} disagree on {key!r}")
    if "meta" not in reference:
        raise SeedFormatError(f"{entry.skeleton} records no meta for {entry.tool!r}")
    return dict(reference["meta"])


def extract(entry: Vendored, upstream: Path = UPSTREAM) -> dict[str, Any]:
    """The contract file for one vendored tool, metadata included."""
    parts = [
        parse_seed((upstream / source).read_text(encoding="utf-8")) for source in entry.sources
    ]
    merged = merge(parts)
    if merged["name"] != entry.tool:
        raise SeedFormatError(f"{entry.sources} describe {merged['name']!r}, not {entry.tool!r}")
    missing = {"name", "description", "inputSchema", "outputSchema", "annotations"} - merged.keys()
    if missing:
        raise SeedFormatError(f"{entry.tool}: the seeds give no {sorted(missing)}")
    if entry.skeleton is not None:
        merged["_meta"] = skeleton_meta(entry, merged, upstream)
    contract = {key: merged[key] for key in ORDER if key in merged}
    contract[METADATA_KEY] = {
        "toolset": entry.toolset,
        "source": [
            f"contracts/upstream/{source}"
            for source in (*entry.sources, *((entry.skeleton,) if entry.skeleton else ()))
        ],
    }
    if entry.cut_to_served:
        contract[METADATA_KEY]["cut_to_served"] = list(entry.cut_to_served)
    return contract


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "contracts", help="contracts root")
    args = parser.parse_args(argv)
    for entry in VENDORED:
        path = args.out / entry.profile / f"{entry.tool}.json"
        write_contract(path, extract(entry))
        print(f"vendored {path.relative_to(args.out)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
