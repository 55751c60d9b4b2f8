"""Where the HTTP listener binds and whom it answers, decided and refused at startup.

The listener refuses by default: it binds a loopback address unless told otherwise, a
non-loopback address needs ``--allow-remote`` and then either TLS (``--tls-cert``,
``--tls-key``) or the explicit ``--insecure-remote-behind-proxy``, and it answers only
requests whose ``Host`` names the address it is bound to (or a name ``--allow-host``
adds) and whose ``Origin``, when a browser sends one, is its own or one
``--allow-origin`` adds. A browser page on another site, or one that rebinds a DNS
name to 127.0.0.1, is thereby refused before the token is even looked at.
"""

from __future__ import annotations

import ipaddress
import math
import shlex
import socket
import ssl
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .tokens import TOKEN_ENV, Token

HTTP_ENV = "TMUX_CONTRACT_MCP_HTTP"
MAX_SESSIONS_ENV = "TMUX_CONTRACT_MCP_HTTP_MAX_SESSIONS"
IDLE_ENV = "TMUX_CONTRACT_MCP_HTTP_IDLE_SECONDS"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_MAX_SESSIONS = 64
"""Handshake sessions open at once; one more is answered 503 until one ends or expires."""
DEFAULT_IDLE_SECONDS = 1800.0
"""A handshake session with no request in flight and no open stream this long is ended."""
PATH = "/mcp"


class ListenerRefused(Exception):
    """A listener setting the server will not start with: one line saying why."""


@dataclass(frozen=True)
class Listener:
    """The listener as asked for; ``port`` 0 means any free port, known once bound."""

    host: str
    port: int
    remote: bool = False
    tls: tuple[str, str] | None = None
    behind_proxy: bool = False
    extra_hosts: tuple[str, ...] = ()
    extra_origins: tuple[str, ...] = ()
    max_sessions: int = DEFAULT_MAX_SESSIONS
    idle_seconds: float = DEFAULT_IDLE_SECONDS

    @property
    def scheme(self) -> str:
        return "https" if self.tls else "http"

    def authority(self, port: int) -> str:
        """``host:port`` as a URL writes it (an IPv6 address in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{port}"

    def url(self, port: int) -> str:
        return f"{self.scheme}://{self.authority(port)}{PATH}"

    def allowed_hosts(self, port: int) -> tuple[str, ...]:
        """The ``Host`` values answered: the bound address, ``localhost`` when that address is
        a loopback one, and each ``--allow-host`` (as given, and with the port)."""
        hosts = [self.authority(port)]
        if not self.remote:
            hosts.append(f"localhost:{port}")
        for name in self.extra_hosts:
            hosts += [name] if ":" in name.rsplit("]", 1)[-1] else [name, f"{name}:{port}"]
        return tuple(dict.fromkeys(hosts))

    def allowed_origins(self, port: int) -> tuple[str, ...]:
        """The ``Origin`` values answered: this listener's own (each allowed host, over http
        and https) and each ``--allow-origin``."""
        own = [
            f"{scheme}://{host}"
            for host in self.allowed_hosts(port)
            for scheme in ("http", "https")
        ]
        return tuple(dict.fromkeys([*own, *self.extra_origins]))


def is_loopback(host: str) -> bool:
    return ipaddress.ip_address(host).is_loopback


def parse_address(text: str) -> tuple[str, int]:
    """``[HOST:]PORT`` as (an IP address, a port); ``localhost`` is 127.0.0.1, an IPv6
    address goes in brackets (``[::1]:8765``)."""
    host, port_text = DEFAULT_HOST, text
    if text.startswith("["):
        inside, bracket, rest = text[1:].partition("]")
        if not bracket or not rest.startswith(":"):
            raise ListenerRefused(f"--http {text!r}: write an IPv6 address as [ADDRESS]:PORT")
        host, port_text = inside, rest[1:]
    elif ":" in text:
        host, _, port_text = text.rpartition(":")
        if ":" in host:
            raise ListenerRefused(f"--http {text!r}: write an IPv6 address as [ADDRESS]:PORT")
    if host == "localhost":
        host = DEFAULT_HOST
    try:
        host = str(ipaddress.ip_address(host))
    except ValueError:
        raise ListenerRefused(
            f"--http {text!r}: {host!r} is not an IP address (give one, or localhost)"
        ) from None
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ListenerRefused(f"--http {text!r}: the port must be a number from 0 to 65535")
    return host, int(port_text)


def positive(environ: Mapping[str, str], name: str, default: float, whole: bool) -> float:
    text = environ.get(name)
    if text is None or text == "":
        return default
    try:
        value = int(text) if whole else float(text)
    except ValueError:
        value = 0
    if not (math.isfinite(value) and value > 0):
        kind = "a whole number" if whole else "a number of seconds"
        raise ListenerRefused(f"{name}={text!r} must be {kind} greater than 0")
    return value


def check_tls(cert: str, key: str) -> None:
    """Load the certificate and key once at startup, so a bad pair stops it in one line."""
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        raise ListenerRefused(f"cannot use --tls-cert {cert} with --tls-key {key}: {exc}") from None


def listener_from(
    address: str,
    environ: Mapping[str, str],
    *,
    allow_remote: bool = False,
    tls_cert: str | None = None,
    tls_key: str | None = None,
    behind_proxy: bool = False,
    allow_hosts: Sequence[str] = (),
    allow_origins: Sequence[str] = (),
) -> Listener:
    """The listener ``--http ADDRESS`` and its companions ask for, or the one line that
    says why the server will not listen so."""
    host, port = parse_address(address)
    remote = not is_loopback(host)
    if (tls_cert is None) != (tls_key is None):
        raise ListenerRefused("--tls-cert and --tls-key go together: give both")
    tls = (tls_cert, tls_key) if tls_cert is not None and tls_key is not None else None
    if tls is not None:
        check_tls(*tls)
    where = f"{host}:{port}" if ":" not in host else f"[{host}]:{port}"
    if remote and not allow_remote:
        raise ListenerRefused(
            f"refusing to listen on {where}, which is not a loopback address: whoever reaches "
            "it with the token drives your tmux; add --allow-remote, with --tls-cert and "
            "--tls-key (or --insecure-remote-behind-proxy)"
        )
    if remote and tls is None and not behind_proxy:
        raise ListenerRefused(
            f"refusing to listen on {where} without TLS: the token would cross the network "
            "in clear; give --tls-cert and --tls-key, or --insecure-remote-behind-proxy when "
            "a proxy on this machine terminates TLS"
        )
    if behind_proxy and tls is not None:
        raise ListenerRefused("--insecure-remote-behind-proxy is for serving without TLS: drop it")
    if behind_proxy and not remote:
        raise ListenerRefused(
            "--insecure-remote-behind-proxy is for a non-loopback address with --allow-remote"
        )
    for name in allow_hosts:
        if not name or any(char.isspace() or char in "/?#@" for char in name):
            raise ListenerRefused(f"--allow-host {name!r}: give a host name, optionally with :PORT")
    for origin in allow_origins:
        scheme, sep, rest = origin.partition("://")
        if scheme not in ("http", "https") or not sep or not rest or "/" in rest:
            raise ListenerRefused(
                f"--allow-origin {origin!r}: give an origin, scheme://host[:port], no path"
            )
    return Listener(
        host,
        port,
        remote=remote,
        tls=tls,
        behind_proxy=behind_proxy,
        extra_hosts=tuple(allow_hosts),
        extra_origins=tuple(allow_origins),
        max_sessions=int(positive(environ, MAX_SESSIONS_ENV, DEFAULT_MAX_SESSIONS, whole=True)),
        idle_seconds=positive(environ, IDLE_ENV, DEFAULT_IDLE_SECONDS, whole=False),
    )


@dataclass(frozen=True)
class Bound:
    """A listener with its socket bound and listening, and the token it asks for."""

    listener: Listener
    sock: socket.socket
    token: Token

    @property
    def port(self) -> int:
        return int(self.sock.getsockname()[1])

    @property
    def url(self) -> str:
        return self.listener.url(self.port)


def bind(listener: Listener) -> socket.socket:
    """The listening socket, bound before anything else starts, so a port in use stops
    startup in one line and ``--http HOST:0`` knows its port before it says where it is."""
    family = socket.AF_INET6 if ":" in listener.host else socket.AF_INET
    # IPPROTO_TCP named, not left 0: asyncio sets TCP_NODELAY only on the connections of a
    # socket that says it is TCP, and without it every answer waits 40 ms for an ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((listener.host, listener.port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        where = listener.authority(listener.port)
        raise ListenerRefused(f"cannot listen on {where}: {exc.strerror or exc}") from None
    return sock


def announcement(bound: Bound) -> list[str]:
    """What the server says on stderr once it listens: where, where the token is (never the
    token itself), and a client configuration ready to paste."""
    token = bound.token
    if token.file is None:
        where = f"the token is the value of {TOKEN_ENV}"
        header = f"Authorization: Bearer ${TOKEN_ENV}"
    else:
        where = f"the token is in {token.file}" + (
            " (readable by you only; removed when the server stops)" if token.made else ""
        )
        header = f"Authorization: Bearer $(cat {shlex.quote(str(token.file))})"
    return [
        f"serving MCP over Streamable HTTP at {bound.url}",
        where,
        f'Claude Code: claude mcp add --transport http tmux {bound.url} --header "{header}"',
    ]
