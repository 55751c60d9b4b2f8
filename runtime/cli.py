"""The ``tmux-contract-mcp`` command."""

from __future__ import annotations

import argparse
import gc
import importlib
import logging
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from . import __version__
from .handlers.services import StartupRefused
from .handlers.tmux.transport.kinds import (
    TRANSPORT_ENV,
    TRANSPORT_KINDS,
    TRANSPORTS,
    UnknownTransport,
)
from .handlers.tmux.transport.ssh import SSH_ENV, BadSshTarget
from .profiles import (
    DEFAULT_PROFILE,
    PROFILES,
    ProfileUnavailable,
    create_handlers,
    load_profile,
    served_after_startup,
)
from .stopping import exiting_on_signals, until_stopped
from .toolsets import TOOLSETS_ENV, ToolsetConfigError

PROFILE_ENV = "TMUX_CONTRACT_MCP_PROFILE"


def environment_help() -> str:
    """The variables the profiles read, from their generated registries: each line once,
    naming the profiles when not every profile reads it."""
    readers: dict[str, list[str]] = {}
    for name in PROFILES:
        registry = importlib.import_module(f"{__package__}.generated.{name}.registry")
        for variable in registry.ENVIRONMENT:
            default = variable.default
            meaning = variable.meaning
            if variable.name == TOOLSETS_ENV:
                meaning += f" of {', '.join(registry.TOOLSETS)}"
                default = ",".join(registry.DEFAULT_TOOLSETS)
            text = f"{meaning} (default {default})" if default else meaning
            readers.setdefault(f"{variable.name}\t{text}", []).append(name)
    width = max(len(key.split("\t")[0]) for key in readers)
    lines = ["environment:"]
    for key, names in readers.items():
        variable, text = key.split("\t")
        if len(names) < len(PROFILES):
            text += f" [{', '.join(names)} profile{'s' if len(names) > 1 else ''}]"
        lines.append(f"  {variable:<{width}}  {text}")
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tmux-contract-mcp",
        description="A schema-first MCP server for tmux, served over stdio.",
        epilog=environment_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
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
    p.add_argument(
        "--ssh",
        metavar="[USER@]HOST[:PORT]",
        default=None,
        help=f"run tmux on HOST through one multiplexed ssh connection (default: ${SSH_ENV})",
    )
    p.add_argument("--list-tools", action="store_true", help="print the profile's tools and exit")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return p


@contextmanager
def loading_for_good() -> Iterator[None]:
    """Load what lives as long as the process with the cyclic collector off, then freeze it
    all out of the collector's sight.

    The SDK and the handlers are some hundred thousand objects: the collector would walk
    them again and again while they load, and once more at exit, for nothing (about a
    fifth of a start's CPU).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def main(argv: Sequence[str] | None = None) -> int:
    with exiting_on_signals():  # a stop signal still runs the exit hooks
        return run(argv)


def run(argv: Sequence[str] | None) -> int:
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
        if args.ssh is not None:
            environ[SSH_ENV] = args.ssh
        with loading_for_good():
            import anyio

            from .dispatch import ServedRuntime  # the SDK: loaded only to serve
            from .server import serve_stdio

            runtime = ServedRuntime(served)
            handlers = create_handlers(profile, environ, runtime)
        served = served_after_startup(profile, environ, handlers, runtime)
    except (
        ProfileUnavailable,
        ToolsetConfigError,
        UnknownTransport,
        BadSshTarget,
        StartupRefused,
    ) as exc:
        print(f"tmux-contract-mcp: {exc}", file=sys.stderr)
        return 2

    return anyio.run(until_stopped(serve_stdio), served, handlers)


if __name__ == "__main__":
    raise SystemExit(main())
