"""Compare this server's tools, resource templates and prompts with libtmux-mcp 0.1.0a22's.

Both run over stdio against one private tmux server, with every toolset on.
For each tool the peer serves, the comparison covers what a client relies
on: the name, argument names, each argument's JSON types, the required list,
and the output field names. For resources: each URI template, its name,
title and MIME type, and the fixed resources; for prompts: each name and its
arguments with their required flags. Descriptions are this project's own and
are not compared. Run with ``make compare-peer``; the peer is installed into
build/bench/peer-venv on first use (shared with ``make bench``).
``--write-surface PATH`` also writes the peer's resource and prompt lists
(names, titles, MIME types, arguments; no descriptions) as JSON: the committed
snapshot the tests compare with was written that way.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from scripts.bench.peer import PEER_PACKAGE, PEER_VERSION, ensure_peer
from scripts.bench.servers import OURS, OUT
from scripts.lab.tmuxserver import TmuxServer

ALL_TOOLSETS = "inspect,manage,execute,teardown"


def types_of(schema: Any) -> list[str]:
    """The JSON types a schema admits, flattened over anyOf/oneOf, sorted."""
    if not isinstance(schema, dict):
        return []
    found: set[str] = set()
    kind = schema.get("type")
    if isinstance(kind, str):
        found.add(kind)
    elif isinstance(kind, list):
        found.update(str(k) for k in kind)
    for key in ("anyOf", "oneOf"):
        for branch in schema.get(key, []):
            found.update(types_of(branch))
    if "const" in schema or "enum" in schema:
        found.add("enum" if not found else "")
    return sorted(f for f in found if f)


def shape(tool: types.Tool) -> dict[str, Any]:
    """What a client depends on in one tool's definition."""
    schema = tool.input_schema or {}
    props = schema.get("properties", {})
    out = (tool.output_schema or {}).get("properties", {})
    return {
        "arguments": {name: types_of(sub) for name, sub in sorted(props.items())},
        "required": sorted(schema.get("required", [])),
        "output": sorted(out),
    }


async def tools_of(params: StdioServerParameters, log: Path) -> dict[str, types.Tool]:
    tools, _ = await lists_of(params, log)
    return tools


async def lists_of(
    params: StdioServerParameters, log: Path
) -> tuple[dict[str, types.Tool], dict[str, Any]]:
    """A server's tools, and its resources and prompts as ``surface`` describes them."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            listed = await session.list_tools()
            found = await surface(session)
            found["shapes"] = await shapes(session, found["resourceTemplates"])
    return {tool.name: tool for tool in listed.tools}, found


# Real values for the templates' variables on the private tmux server both servers share.
FILL = {"session_name": "main", "window_index": "0", "pane_id": "%0"}


def key_paths(value: Any, prefix: str = "") -> list[str]:
    """The keys of a JSON value, nested rows included: ``windows[].window_id``."""
    if isinstance(value, list):
        return key_paths(value[0], f"{prefix}[].") if value else [f"{prefix}[]"]
    if not isinstance(value, dict):
        return []
    paths = []
    for key, item in value.items():
        paths.append(f"{prefix}{key}")
        if isinstance(item, list) and item and isinstance(item[0], dict):
            paths.extend(key_paths(item, f"{prefix}{key}"))
    return sorted(paths)


async def shapes(session: ClientSession, templates: list[dict[str, Any]]) -> dict[str, Any]:
    """Each JSON template read with real ids (``FILL``): the keys of what it answers."""
    found: dict[str, Any] = {}
    for template in templates:
        if template["mimeType"] != "application/json":
            continue
        uri = re.sub(r"\{\?[^}]*\}", "", template["uriTemplate"])
        uri = re.sub(r"\{(\w+)\}", lambda m: FILL[m.group(1)], uri)
        result = await session.read_resource(uri)
        content = result.contents[0]
        text = content.text if isinstance(content, types.TextResourceContents) else "null"
        found[template["uriTemplate"]] = key_paths(json.loads(text))
    return found


async def surface(session: ClientSession) -> dict[str, Any]:
    """What a client relies on in a server's resources and prompts (descriptions left out)."""
    result = session.initialize_result
    capabilities = result.capabilities if result is not None else None
    templates: list[types.ResourceTemplate] = []
    fixed: list[types.Resource] = []
    prompts: list[types.Prompt] = []
    if capabilities is not None and capabilities.resources is not None:
        templates = (await session.list_resource_templates()).resource_templates
        fixed = (await session.list_resources()).resources
    if capabilities is not None and capabilities.prompts is not None:
        prompts = (await session.list_prompts()).prompts
    return {
        "resourceTemplates": sorted(
            (
                {
                    "uriTemplate": t.uri_template,
                    "name": t.name,
                    "title": t.title,
                    "mimeType": t.mime_type,
                }
                for t in templates
            ),
            key=lambda t: str(t["uriTemplate"]),
        ),
        "resources": sorted(
            ({"uri": r.uri, "name": r.name, "mimeType": r.mime_type} for r in fixed),
            key=lambda r: str(r["uri"]),
        ),
        "prompts": sorted(
            (
                {
                    "name": p.name,
                    "arguments": [
                        {"name": a.name, "required": bool(a.required)} for a in p.arguments or []
                    ],
                }
                for p in prompts
            ),
            key=lambda p: str(p["name"]),
        ),
    }


def compare_surface(peer: dict[str, Any], ours: dict[str, Any]) -> list[str]:
    """Differences in resources and prompts a client would notice (ours may serve more)."""
    lines = []
    for kind, key in (("resourceTemplates", "uriTemplate"), ("resources", "uri")):
        mine = {item[key]: item for item in ours[kind]}
        for item in peer[kind]:
            other = mine.get(item[key])
            if other is None:
                lines.append(f"{kind} {item[key]}: not served by ours")
            elif other != item:
                lines.append(f"{kind} {item[key]}: differ\n  peer: {item}\n  ours: {other}")
    for template, keys in peer.get("shapes", {}).items():
        if template in ours.get("shapes", {}) and ours["shapes"][template] != keys:
            missing = sorted(set(keys) - set(ours["shapes"][template]))
            extra = sorted(set(ours["shapes"][template]) - set(keys))
            lines.append(
                f"{template}: JSON keys differ\n  only peer: {missing}\n  only ours: {extra}"
            )
    mine = {prompt["name"]: prompt for prompt in ours["prompts"]}
    for prompt in peer["prompts"]:
        other = mine.get(prompt["name"])
        if other is None:
            lines.append(f"prompt {prompt['name']}: not served by ours")
        elif other["arguments"] != prompt["arguments"]:
            lines.append(
                f"prompt {prompt['name']}: arguments differ\n"
                f"  peer: {prompt['arguments']}\n  ours: {other['arguments']}"
            )
    return lines


SKELETON = (
    Path(__file__).resolve().parent.parent / "contracts/upstream/python-profile-skeleton.json"
)


def toolsets() -> dict[str, str]:
    """The peer's toolset of each tool, from its vendored interface skeleton."""
    tools = json.loads(SKELETON.read_text())["tools"]
    return {tool["name"]: tool["toolset"] for tool in tools}


def compare(peer: dict[str, types.Tool], ours: dict[str, types.Tool]) -> list[str]:
    """Differences a client would notice; an output schema only the peer lacks is not one."""
    lines = []
    for name in sorted(peer):
        if name not in ours:
            lines.append(f"{name}: not served by ours")
            continue
        a, b = shape(peer[name]), shape(ours[name])
        for part in ("arguments", "required", "output"):
            if part == "output" and not a[part]:
                continue
            if a[part] != b[part]:
                lines.append(f"{name}: {part} differ\n  peer: {a[part]}\n  ours: {b[part]}")
    return lines


async def run(argv: Sequence[str] | None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--peer-venv", default=str(OUT / "peer-venv"))
    parser.add_argument(
        "--toolsets", default=ALL_TOOLSETS, help="compare the peer's tools of these toolsets"
    )
    parser.add_argument(
        "--write-surface",
        type=Path,
        default=None,
        metavar="PATH",
        help="also write the peer's resource and prompt lists (no descriptions) to PATH",
    )
    args = parser.parse_args(argv)
    peer_script = ensure_peer(Path(args.peer_venv))
    tmux = TmuxServer.start()
    try:
        env = {**tmux.server_env(), "LIBTMUX_TOOLSETS": ALL_TOOLSETS}
        logs = OUT / "logs"
        peer, peer_surface = await lists_of(
            StdioServerParameters(command=str(peer_script), env=env), logs / "compare-peer.log"
        )
        ours, our_surface = await lists_of(
            StdioServerParameters(command=OURS, args=["--profile", "python"], env=env),
            logs / "compare-ours.log",
        )
    finally:
        tmux.kill()
    if args.write_surface is not None:
        snapshot = {"package": f"{PEER_PACKAGE} {PEER_VERSION}", **peer_surface}
        args.write_surface.write_text(json.dumps(snapshot, indent=2) + "\n", encoding="utf-8")
    wanted = set(args.toolsets.split(","))
    peer = {name: tool for name, tool in peer.items() if toolsets().get(name) in wanted}
    problems = compare(peer, ours)
    served = sorted(set(peer) & set(ours))
    print(
        f"{args.toolsets}: the peer serves {len(peer)} tools, ours {len(ours)}; "
        f"{len(served)} compared"
    )
    for line in problems:
        print(line)
    if not problems:
        print("no differences in names, argument names and types, required lists, output fields")
    surface_problems = compare_surface(peer_surface, our_surface)
    print(
        f"resources: the peer serves {len(peer_surface['resourceTemplates'])} templates and "
        f"{len(peer_surface['prompts'])} prompts, ours {len(our_surface['resourceTemplates'])} "
        f"and {len(our_surface['prompts'])}"
    )
    for line in surface_problems:
        print(line)
    if not surface_problems:
        print(
            "no differences in resource templates (URI, name, title, MIME type, JSON keys) or "
            "prompts (names, arguments, required flags)"
        )
    return 1 if problems or surface_problems else 0


def main(argv: Sequence[str] | None = None) -> None:
    sys.exit(anyio.run(run, argv))


if __name__ == "__main__":
    main()
