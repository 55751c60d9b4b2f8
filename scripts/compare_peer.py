"""Compare this server's tools/list with libtmux-mcp 0.1.0a22's, tool by tool.

Both run over stdio against one private tmux server, with every toolset on.
For each tool the peer serves, the comparison covers what a client relies
on: the name, argument names, each argument's JSON types, the required list,
and the output field names. Descriptions are this project's own and are not
compared. Run with ``make compare-peer``; the peer is installed into
build/bench/peer-venv on first use (shared with ``make bench``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from scripts.bench.peer import ensure_peer
from scripts.bench.servers import OURS, OUT
from tests.tmuxenv import TmuxServer

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
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            listed = await session.list_tools()
    return {tool.name: tool for tool in listed.tools}


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
    args = parser.parse_args(argv)
    peer_script = ensure_peer(Path(args.peer_venv))
    tmux = TmuxServer.start()
    try:
        env = {**tmux.server_env(), "LIBTMUX_TOOLSETS": ALL_TOOLSETS}
        logs = OUT / "logs"
        peer = await tools_of(
            StdioServerParameters(command=str(peer_script), env=env), logs / "compare-peer.log"
        )
        ours = await tools_of(
            StdioServerParameters(command=OURS, args=["--profile", "python"], env=env),
            logs / "compare-ours.log",
        )
    finally:
        tmux.kill()
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
    return 1 if problems else 0


def main(argv: Sequence[str] | None = None) -> None:
    sys.exit(anyio.run(run, argv))


if __name__ == "__main__":
    main()
