"""The ``tmux-contract-mcp`` command."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from . import __version__
from .profiles import DEFAULT_PROFILE, PROFILES, ProfileUnavailable, create_handlers, load_profile
from .toolsets import ToolsetConfigError

PROFILE_ENV = "TMUX_CONTRACT_MCP_PROFILE"
TRANSPORT_ENV = "TMUX_CONTRACT_MCP_TRANSPORT"
TRANSPORTS = ("control", "subprocess", "memo")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tmux-contract-mcp",
        description="A schema-first MCP server for tmux, served over stdio.",
        epilog=(
            "tmux is chosen by LIBTMUX_SOCKET (-L name), LIBTMUX_SOCKET_PATH (-S path) "
            "and LIBTMUX_TMUX_BIN. Tools shown: LIBTMUX_TOOLSETS (default "
            "inspect,manage,execute), plus LIBTMUX_TOOLS, minus LIBTMUX_EXCLUDE_TOOLS."
        ),
    )
    p.add_argument(
        "--profile",
        choices=PROFILES,
        default=None,
        help=f"contract family to serve (default: ${PROFILE_ENV} or {DEFAULT_PROFILE})",
    )
    p.add_argument(
        "--transport",
        choices=TRANSPORTS,
        default=None,
        help=(
            f"how tmux is reached: one long-lived control-mode client per server, or one "
            f"process per command; memo answers repeated reads from memory and is only "
            f"for benchmarks (default: ${TRANSPORT_ENV} or control)"
        ),
    )
    p.add_argument("--list-tools", action="store_true", help="print the profile's tools and exit")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    name = args.profile or os.environ.get(PROFILE_ENV) or DEFAULT_PROFILE
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="tmux-contract-mcp: %(message)s"
    )
    for handler in logging.getLogger().handlers:  # stderr stays at warnings, whatever a
        handler.setLevel(logging.WARNING)  # client asks to receive (logging/setLevel)
    try:
        profile = load_profile(name)
        served = profile.shown(os.environ)
        if args.list_tools:
            width = max((len(n) for n in served.tools), default=0)
            for tool in served.tools.values():
                print(f"{tool.entry.name:<{width}}  {tool.entry.toolset}")
            return 0
        transport = args.transport or os.environ.get(TRANSPORT_ENV) or TRANSPORTS[0]
        if transport not in TRANSPORTS:
            print(
                f"tmux-contract-mcp: {TRANSPORT_ENV}={transport!r} is not a transport; "
                f"choose one of {', '.join(TRANSPORTS)}",
                file=sys.stderr,
            )
            return 2
        handlers = create_handlers(profile, {**os.environ, TRANSPORT_ENV: transport})
    except (ProfileUnavailable, ToolsetConfigError) as exc:
        print(f"tmux-contract-mcp: {exc}", file=sys.stderr)
        return 2

    import anyio

    from .server import serve_stdio

    anyio.run(serve_stdio, served, handlers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
