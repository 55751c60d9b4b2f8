"""The ``tmux-contract-mcp`` command."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from . import __version__
from .dispatch import ServedRuntime
from .handlers.tmux.core import TRANSPORT_ENV, TRANSPORT_KINDS, TRANSPORTS, UnknownTransport
from .profiles import DEFAULT_PROFILE, PROFILES, ProfileUnavailable, create_handlers, load_profile
from .toolsets import ToolsetConfigError

PROFILE_ENV = "TMUX_CONTRACT_MCP_PROFILE"


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
            "how tmux is reached: "
            + "; ".join(f"{name}: {what}" for name, (_, what) in TRANSPORT_KINDS.items())
            + f" (default: ${TRANSPORT_ENV} or {TRANSPORTS[0]})"
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
        environ = dict(os.environ)
        if args.transport:
            environ[TRANSPORT_ENV] = args.transport
        handlers = create_handlers(profile, environ, ServedRuntime(served))
    except (ProfileUnavailable, ToolsetConfigError, UnknownTransport) as exc:
        print(f"tmux-contract-mcp: {exc}", file=sys.stderr)
        return 2

    import anyio

    from .server import serve_stdio

    anyio.run(serve_stdio, served, handlers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
