"""Compare a profile's advertised tools with its family's interface skeleton.

The skeleton (contracts/upstream/<profile>-profile-skeleton.json unless
``--skeleton`` names another) records each tool of the family as its server
lists it, descriptions removed. Every tool this server advertises is compared
with it: toolset, title, annotations, input and output schema (descriptions
and schema titles removed on our side too) and ``_meta``. Prints every
difference as a JSON pointer with both values, then the skeleton's tools not
served yet; over tools/list, the resources, resource templates and prompts
are compared with the skeleton's lists too. Exits 1 when a served tool differs
or is not in the skeleton, or one of those lists differs.

By default the tools are read with ``tools/list`` from the installed command,
every toolset on, through the MCP client; ``--static`` reads
generated/<profile>/tools.json instead. Run with
``make compare-skeleton PROFILE=swift``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from codegen.skeleton import (
    Comparison,
    compare,
    differences,
    load_skeleton,
    shown,
    skeleton_path,
)
from scripts.lab.client import COMMAND

ROOT = Path(__file__).resolve().parent.parent


def catalog(profile: str) -> tuple[dict[str, str], tuple[str, ...]]:
    """Every tool of the profile with its toolset, and all the profile's toolsets."""
    from tmux_contract_mcp.profiles import load_profile

    loaded = load_profile(profile)
    return dict(loaded.catalog), loaded.toolsets.names


def static_tools(profile: str) -> list[dict[str, Any]]:
    """The tools as generated/<profile>/tools.json advertises them."""
    listing = json.loads((ROOT / "generated" / profile / "tools.json").read_text("utf-8"))
    return [dict(tool) for tool in listing["tools"]]


async def listed_tools(profile: str, toolsets: Sequence[str]) -> list[dict[str, Any]]:
    """``tools/list`` of the installed command with every toolset on, as JSON."""
    return (await listed(profile, toolsets))["tools"]


async def listed(profile: str, toolsets: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """What the installed command lists with every toolset on, as JSON, under the
    skeleton's keys: ``tools``, ``resources``, ``resourceTemplates``, ``prompts``.

    It runs in a private, empty TMUX_TMPDIR: listing needs no tmux server, and
    nothing here may reach one.
    """
    with tempfile.TemporaryDirectory(prefix="tcm-skeleton-") as tmpdir:
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": os.environ.get("HOME", "/"),
            "TMUX_TMPDIR": tmpdir,
            "LIBTMUX_TOOLSETS": ",".join(toolsets),
        }
        params = StdioServerParameters(command=COMMAND, args=["--profile", profile], env=env)
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write) as session,
        ):
            initialized = await session.initialize()
            tools: list[Any] = list((await session.list_tools()).tools)
            resources: list[Any] = []
            templates: list[Any] = []
            prompts: list[Any] = []
            if initialized.capabilities.resources is not None:
                resources = list((await session.list_resources()).resources)
                templates = list((await session.list_resource_templates()).resource_templates)
            if initialized.capabilities.prompts is not None:
                prompts = list((await session.list_prompts()).prompts)
    return {
        key: [item.model_dump(mode="json", by_alias=True, exclude_none=True) for item in items]
        for key, items in (
            ("tools", tools),
            ("resources", resources),
            ("resourceTemplates", templates),
            ("prompts", prompts),
        )
    }


def surface_differences(
    listing: dict[str, list[dict[str, Any]]], skeleton: dict[str, Any]
) -> list[str]:
    """Where the resources, resource templates and prompts differ from the skeleton's lists
    (which leave their descriptions out); a skeleton without such a list fixes nothing."""
    found = []
    for key in ("resources", "resourceTemplates", "prompts"):
        if key not in skeleton:
            continue
        described = (
            {name: value for name, value in item.items() if name != "description"}
            for item in listing.get(key, [])
        )
        ours = sorted(described, key=lambda item: str(item["name"]))
        theirs = sorted(skeleton[key], key=lambda item: str(item["name"]))
        found += [
            f"{key}{where}: ours {shown(a)}, skeleton {shown(b)}"
            for where, a, b in differences(ours, theirs)
        ]
    return found


def report(profile: str, source: str, skeleton: Path, comparison: Comparison) -> str:
    """The comparison as a reader wants it: what differs first, then what is missing."""
    served = len(comparison.equal) + len({d.tool for d in comparison.differences})
    lines = [
        f"{profile} profile ({source}) against {display(skeleton)}:",
        f"  {served} served tools in the skeleton, {len(comparison.equal)} equal to it, "
        f"{len(comparison.differences)} differences",
    ]
    if comparison.differences:
        lines.append("differences:")
        lines += [f"  {difference}" for difference in comparison.differences]
    if comparison.extra:
        lines.append(f"served but not in the skeleton ({len(comparison.extra)}):")
        lines.append("  " + ", ".join(comparison.extra))
    lines.append(f"in the skeleton, not served yet ({len(comparison.unserved)}):")
    lines.append("  " + (", ".join(comparison.unserved) or "none"))
    return "\n".join(lines)


def display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="swift", help="the profile to compare")
    parser.add_argument(
        "--skeleton",
        type=Path,
        default=None,
        help="the skeleton file (default contracts/upstream/<profile>-profile-skeleton.json)",
    )
    parser.add_argument(
        "--static",
        action="store_true",
        help="read generated/<profile>/tools.json instead of the installed command's tools/list",
    )
    args = parser.parse_args(argv)
    skeleton = args.skeleton or skeleton_path(args.profile)
    if not skeleton.is_file():
        print(f"compare-skeleton: no skeleton at {skeleton}", file=sys.stderr)
        return 2
    toolsets, names = catalog(args.profile)
    surface: list[str] = []
    if args.static:
        tools, source = static_tools(args.profile), f"generated/{args.profile}/tools.json"
    else:
        listing = anyio.run(listed, args.profile, names)
        tools, source = listing["tools"], "tools/list, every toolset on"
        surface = surface_differences(listing, json.loads(skeleton.read_text("utf-8")))
    comparison = compare(tools, toolsets, load_skeleton(skeleton))
    print(report(args.profile, source, skeleton, comparison))
    if surface:
        print("resources, resource templates and prompts:")
        print("\n".join(f"  {line}" for line in surface))
    return 0 if comparison.served_match and not surface else 1


if __name__ == "__main__":
    raise SystemExit(main())
