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
from .config import CONFIG_ENV, Config, ConfigRefused, config_path, load_config
from .guard import LOCAL, Guard
from .handlers.services import StartupRefused
from .handlers.tmux.transport.kinds import (
    TRANSPORT_ENV,
    TRANSPORT_KINDS,
    TRANSPORTS,
    UnknownTransport,
)
from .handlers.tmux.transport.ssh import SSH_ENV, BadSshTarget
from .listener import (
    DEFAULT_IDLE_SECONDS,
    DEFAULT_MAX_SESSIONS,
    HTTP_ENV,
    IDLE_ENV,
    MAX_SESSIONS_ENV,
    Bound,
    ListenerRefused,
    announcement,
    bind,
    listener_from,
)
from .profiles import (
    DEFAULT_PROFILE,
    PROFILES,
    Profile,
    ProfileUnavailable,
    create_handlers,
    load_profile,
    served_after_startup,
)
from .short_help import ShortHelp, screen
from .stopping import exiting_on_signals, until_stopped
from .tokens import TOKEN_ENV, TokenRefused, obtain_token
from .toolsets import TOOLSETS_ENV, ToolsetConfigError

PROFILE_ENV = "TMUX_CONTRACT_MCP_PROFILE"
STARTUP_REFUSALS = (
    ProfileUnavailable,
    ToolsetConfigError,
    UnknownTransport,
    BadSshTarget,
    StartupRefused,
    ListenerRefused,
    TokenRefused,
    ConfigRefused,
)
"""What stops startup with one line on stderr (exit status 2)."""


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
        description=(
            "A schema-first MCP server for tmux, served over stdio, or over Streamable HTTP "
            "with --http."
        ),
        epilog=environment_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        add_help=False,  # --help is one screen (short_help); --help-all is argparse's
    )
    brief = screen(PROFILES, DEFAULT_PROFILE, TRANSPORTS)
    p.add_argument("-h", "--help", action=ShortHelp, text=brief, help="one screen of help")
    p.add_argument("--help-all", action="help", help="show this help message and exit")
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
    p.add_argument(
        "--config",
        metavar="FILE",
        default=None,
        help=f"a TOML file naming ssh hosts, a scope and an audit log (default: ${CONFIG_ENV}; "
        "see docs/remote.md)",
    )
    p.add_argument("--list-tools", action="store_true", help="print the profile's tools and exit")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    add_http_arguments(p)
    return p


def add_http_arguments(p: argparse.ArgumentParser) -> None:
    http = p.add_argument_group(
        "Streamable HTTP",
        "Every request must carry Authorization: Bearer <token>; whoever holds the token\n"
        "can do what this user can do in tmux.\n"
        f"${MAX_SESSIONS_ENV} caps the sessions open at once (default\n"
        f"{DEFAULT_MAX_SESSIONS}); ${IDLE_ENV} ends a session idle that many seconds\n"
        f"(default {DEFAULT_IDLE_SECONDS:g}).",
    )
    http.add_argument(
        "--http",
        metavar="[HOST:]PORT",
        default=None,
        help=f"serve MCP at http://HOST:PORT/mcp instead of stdio; HOST defaults to 127.0.0.1, "
        f"PORT 0 picks a free port (default: ${HTTP_ENV})",
    )
    http.add_argument(
        "--token-file",
        metavar="PATH",
        default=None,
        help=f"read the token from PATH (mode 600); else ${TOKEN_ENV} holds it; with neither, "
        "a new token is written to a file only you can read, and its path printed",
    )
    http.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a HOST that is not a loopback address; then give --tls-cert and --tls-key, "
        "or --insecure-remote-behind-proxy",
    )
    http.add_argument(
        "--tls-cert", metavar="PATH", default=None, help="serve HTTPS with this certificate"
    )
    http.add_argument(
        "--tls-key", metavar="PATH", default=None, help="the certificate's private key"
    )
    http.add_argument(
        "--insecure-remote-behind-proxy",
        action="store_true",
        help="with --allow-remote, serve plain HTTP: only behind a proxy that terminates TLS",
    )
    http.add_argument(
        "--allow-host",
        metavar="NAME[:PORT]",
        action="append",
        default=[],
        help="answer requests with this Host header too (repeatable; default: the bound address)",
    )
    http.add_argument(
        "--allow-origin",
        metavar="ORIGIN",
        action="append",
        default=[],
        help="answer browser requests from this Origin too (repeatable; default: none but our own)",
    )


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
    given = list(sys.argv[1:] if argv is None else argv)
    if given[:1] == ["doctor"]:
        from .doctor import main as doctor

        return doctor(given[1:])
    args = parser().parse_args(given)
    name = args.profile or os.environ.get(PROFILE_ENV) or DEFAULT_PROFILE
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="tmux-contract-mcp: %(message)s"
    )
    for handler in logging.getLogger().handlers:  # stderr stays at warnings, whatever a
        handler.setLevel(logging.WARNING)  # client asks to receive (logging/setLevel)
    try:
        profile = load_profile(name)
        config = load_config(config_path(args.config, os.environ))
        served = profile.shown(os.environ)
        if args.list_tools:
            listing = Guard.listing(config, profile)
            served = listing.serve(served) if listing is not None else served
            width = max((len(n) for n in served.tools), default=0)
            for tool in served.tools.values():
                print(f"{tool.entry.name:<{width}}  {tool.entry.toolset}")
            return 0
        environ = dict(os.environ)
        if args.transport:
            environ[TRANSPORT_ENV] = args.transport
        if args.ssh is not None:
            environ[SSH_ENV] = args.ssh
        guard = Guard.of(config, profile, environ.get(SSH_ENV) or LOCAL)
        bound = listening(args, environ)
    except STARTUP_REFUSALS as exc:
        print(f"tmux-contract-mcp: {exc}", file=sys.stderr)
        return 2
    try:
        return serve(profile, served, environ, bound, config, guard)
    finally:
        if guard is not None:
            guard.close()
        if bound is not None:
            bound.sock.close()
            bound.token.forget()


def listening(args: argparse.Namespace, environ: dict[str, str]) -> Bound | None:
    """The HTTP listener, bound with its token, when ``--http`` (or its variable) asks for
    one: before the handlers start anything, so a refusal leaves nothing behind."""
    address = args.http if args.http is not None else environ.get(HTTP_ENV) or None
    if address is None:
        return None
    listener = listener_from(
        address,
        environ,
        allow_remote=args.allow_remote,
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        behind_proxy=args.insecure_remote_behind_proxy,
        allow_hosts=args.allow_host,
        allow_origins=args.allow_origin,
    )
    sock = bind(listener)
    try:
        token = obtain_token(environ, args.token_file, int(sock.getsockname()[1]))
    except TokenRefused:
        sock.close()
        raise
    return Bound(listener, sock, token)


def serve(
    profile: Profile,
    served: Profile,
    environ: dict[str, str],
    bound: Bound | None,
    config: Config,
    guard: Guard | None,
) -> int:
    try:
        with loading_for_good():
            import anyio

            from .dispatch import ServedRuntime  # the SDK: loaded only to serve

            runtime = ServedRuntime(served, config.hosts_for_handlers())
            handlers = create_handlers(profile, environ, runtime)
        served = served_after_startup(profile, environ, handlers, runtime)
        if guard is not None:  # the configuration file's scope and audit log
            served = guard.serve(served)
            runtime.show(served)
    except STARTUP_REFUSALS as exc:
        print(f"tmux-contract-mcp: {exc}", file=sys.stderr)
        return 2
    if bound is None:
        from .server import serve_stdio

        return anyio.run(until_stopped(serve_stdio), served, handlers)
    with loading_for_good():
        from .http import serve_http

    def announce() -> None:
        for line in announcement(bound):
            print(f"tmux-contract-mcp: {line}", file=sys.stderr, flush=True)

    return anyio.run(until_stopped(serve_http, announce), served, handlers, bound)


if __name__ == "__main__":
    raise SystemExit(main())
