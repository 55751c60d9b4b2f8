"""The HTTP listener refuses by default, at the HTTP level: plain requests (httpx2) and raw
sockets against the installed command, and the tmux command log to prove that no refused
request reached tmux.

Each case is one line of the issue: no token, a wrong token, the token in the query, a
foreign Origin, a foreign Host, a body over the limit, headers or a body sent too slowly,
malformed JSON (the same -32700/-32600 as stdio, line for line), a non-loopback address
without the flags. The crowd of clients, the killed client and the stop live in
tests/e2e/test_http_sessions.py.
"""

from __future__ import annotations

import os
import socket
import ssl
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from scripts.lab.client import COMMAND
from scripts.lab.httpserver import HttpServer, open_http_client, raw_client
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.http import INITIALIZE, JSON_HEADERS, PING, authorized
from tests.helpers.rawwire import CASES, INVALID, PARSE, RawWire
from tmux_contract_mcp.http import MAX_CONNECTIONS
from tmux_contract_mcp.http_protocol import HEADER_SECONDS
from tmux_contract_mcp.stdio import LINE_LIMIT

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def server(shared: TmuxServer) -> Iterator[HttpServer]:
    with HttpServer.running(shared.server_env(), "python") as running:
        yield running


@pytest.fixture
async def web(server: HttpServer) -> AsyncIterator[httpx2.AsyncClient]:
    async with raw_client(server) as client:
        yield client


def error_of(response: httpx2.Response) -> dict[str, Any]:
    body = response.json()
    assert body["jsonrpc"] == "2.0" and "error" in body, body
    return dict(body)


async def initialize(web: httpx2.AsyncClient, server: HttpServer) -> httpx2.Response:
    return await web.post("/mcp", json=INITIALIZE, headers=authorized(server))


# --- the token -------------------------------------------------------------------------


async def test_a_request_without_the_token_is_401_with_a_bearer_challenge(
    web: httpx2.AsyncClient, server: HttpServer, shared: TmuxServer
) -> None:
    mark = shared.mark()
    for method in ("POST", "GET", "DELETE"):
        response = await web.request(method, "/mcp", json=INITIALIZE, headers=JSON_HEADERS)
        assert response.status_code == 401, method
        assert response.headers["www-authenticate"] == 'Bearer realm="tmux-contract-mcp"'
        assert "Authorization: Bearer" in error_of(response)["error"]["message"]
    shared.assert_nothing_sent_since(mark, "requests without the token")


async def test_a_wrong_token_is_401_invalid_token_and_reaches_nothing(
    web: httpx2.AsyncClient, server: HttpServer, shared: TmuxServer
) -> None:
    mark = shared.mark()
    near = server.token[:-1] + ("A" if server.token[-1] != "A" else "B")
    for wrong in (near, server.token + "x", server.token[:8], "x", f"Basic {server.token}"):
        header = wrong if wrong.startswith("Basic") else f"Bearer {wrong}"
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "list_sessions"},
        }
        response = await web.post(
            "/mcp", json=call, headers={**JSON_HEADERS, "Authorization": header}
        )
        assert response.status_code == 401, wrong
        challenge = response.headers["www-authenticate"]
        assert challenge.startswith('Bearer realm="tmux-contract-mcp"')
        if not wrong.startswith("Basic"):
            assert 'error="invalid_token"' in challenge
    twice = [("Authorization", f"Bearer {server.token}"), ("Authorization", "Bearer other")]
    response = await web.post("/mcp", json=PING, headers=[*JSON_HEADERS.items(), *twice])
    assert response.status_code == 401  # two Authorization headers: neither is taken
    shared.assert_nothing_sent_since(mark, "requests with a wrong token")


async def test_the_scheme_is_read_in_any_case(web: httpx2.AsyncClient, server: HttpServer) -> None:
    headers = {**JSON_HEADERS, "Authorization": f"bearer {server.token}"}
    response = await web.post("/mcp", json=INITIALIZE, headers=headers)
    assert response.status_code == 200, response.text


async def test_a_token_in_the_query_string_is_refused(
    web: httpx2.AsyncClient, server: HttpServer, shared: TmuxServer
) -> None:
    mark = shared.mark()
    for query in (f"access_token={server.token}", f"token={server.token}", "x=1"):
        alone = await web.post(f"/mcp?{query}", json=INITIALIZE, headers=JSON_HEADERS)
        assert alone.status_code == 400, query
        assert "never in the URL" in error_of(alone)["error"]["message"]
        with_it = await web.post(f"/mcp?{query}", json=INITIALIZE, headers=authorized(server))
        assert with_it.status_code == 400, query
    shared.assert_nothing_sent_since(mark, "requests with a query string")


# --- Origin and Host -----------------------------------------------------------------------


async def test_a_foreign_origin_is_403_even_with_the_token(
    web: httpx2.AsyncClient, server: HttpServer, shared: TmuxServer
) -> None:
    mark = shared.mark()
    for origin in (
        "http://evil.example",
        "null",
        f"http://127.0.0.1:{server.port + 1}",
        "https://localhost",
    ):
        response = await web.post(
            "/mcp", json=INITIALIZE, headers=authorized(server, Origin=origin)
        )
        assert response.status_code == 403, origin
    shared.assert_nothing_sent_since(mark, "requests from a foreign Origin")
    for own in (f"http://127.0.0.1:{server.port}", f"http://localhost:{server.port}"):
        response = await web.post("/mcp", json=INITIALIZE, headers=authorized(server, Origin=own))
        assert response.status_code == 200, own


async def test_a_foreign_host_is_421_even_with_the_token(
    web: httpx2.AsyncClient, server: HttpServer, shared: TmuxServer
) -> None:
    """What DNS rebinding looks like: the right address, someone else's name."""
    mark = shared.mark()
    for host in (
        "evil.example",
        f"evil.example:{server.port}",
        f"127.0.0.1:{server.port + 1}",
        "127.0.0.1",
    ):
        response = await web.post("/mcp", json=INITIALIZE, headers=authorized(server, Host=host))
        assert response.status_code == 421, host
    shared.assert_nothing_sent_since(mark, "requests for a foreign Host")
    response = await web.post(
        "/mcp", json=INITIALIZE, headers=authorized(server, Host=f"localhost:{server.port}")
    )
    assert response.status_code == 200


async def test_only_mcp_is_served(web: httpx2.AsyncClient, server: HttpServer) -> None:
    for path in ("/", "/mcp/", "/.well-known/oauth-protected-resource", "/sse"):
        response = await web.get(path, headers=authorized(server))
        assert response.status_code == 404, path
        assert "/mcp" in error_of(response)["error"]["message"]


# --- bounded sizes and times -------------------------------------------------------------


async def test_a_body_over_the_limit_is_413_naming_the_limit(
    web: httpx2.AsyncClient, server: HttpServer, shared: TmuxServer
) -> None:
    mark = shared.mark()
    head = b'{"jsonrpc": "2.0", "id": 77, "method": "ping", "params": {"pad": "'
    body = head + b"x" * (LINE_LIMIT - len(head)) + b'"}}'
    declared = await web.post("/mcp", content=body, headers=authorized(server))
    assert declared.status_code == 413
    error = error_of(declared)["error"]
    assert error["code"] == INVALID and str(LINE_LIMIT) in error["message"]

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted as it arrives
        yield body[: LINE_LIMIT // 2]
        yield body[LINE_LIMIT // 2 :]

    streamed = await web.post("/mcp", content=chunks(), headers=authorized(server))
    assert streamed.status_code == 413
    answer = error_of(streamed)
    assert answer["id"] == 77 and str(LINE_LIMIT) in answer["error"]["message"]
    shared.assert_nothing_sent_since(mark, "bodies over the limit")
    assert (await initialize(web, server)).status_code == 200  # and it serves on


def connect(server: HttpServer) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def read_all(sock: socket.socket) -> bytes:
    """Everything until the server closes the connection."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_headers_sent_too_slowly_get_408_and_the_connection_closes(server: HttpServer) -> None:
    with connect(server) as sock:
        started = time.monotonic()
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and then nothing more
        answer = read_all(sock)
        took = time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 408 ")
    assert HEADER_SECONDS - 0.5 <= took <= HEADER_SECONDS + 5, took
    with connect(server) as idle:  # a connection that never says anything
        assert read_all(idle).startswith(b"HTTP/1.1 408 ")


def test_a_body_that_stops_coming_gets_408_and_the_connection_closes(server: HttpServer) -> None:
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {server.host}\r\nAuthorization: Bearer {server.token}\r\n"
        "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    )
    with connect(server) as sock:
        started = time.monotonic()
        sock.sendall(head.encode() + b'{"jsonrpc": "2.0"')  # 83 bytes short, for ever
        answer = read_all(sock)
        took = time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 408 ")
    assert b"paused longer than 10 s" in answer
    assert 9 <= took <= 20, took


def test_a_slow_connection_does_not_hold_up_others(server: HttpServer) -> None:
    with connect(server) as slow:
        slow.sendall(b"POST /mcp HTTP/1.1\r\n")
        started = time.monotonic()
        with httpx2.Client(base_url=server.url.rsplit("/", 1)[0], timeout=10) as quick:
            response = quick.post("/mcp", json=INITIALIZE, headers=authorized(server))
        assert response.status_code == 200
        assert time.monotonic() - started < 2


# --- malformed JSON: stdio's answers ---------------------------------------------------------

REFUSED = {
    name: line
    for name, (line, expected, _) in CASES.items()
    if len(expected) == 1 and expected[0][1] in (PARSE, INVALID)
}


@pytest.fixture(scope="module")
def stdio_wire(shared: TmuxServer) -> Iterator[RawWire]:
    wire = RawWire(shared)
    wire.initialize()
    try:
        yield wire
    finally:
        wire.close()


@pytest.mark.parametrize("case", list(REFUSED))
async def test_a_malformed_body_gets_the_answer_stdio_gives_that_line(
    case: str, stdio_wire: RawWire, web: httpx2.AsyncClient, server: HttpServer
) -> None:
    line = REFUSED[case]
    (over_stdio,) = stdio_wire.answers_to(line, 1)
    response = await web.post("/mcp", content=line, headers=authorized(server))
    assert response.status_code == 400
    assert response.json() == over_stdio


# --- where it may listen ----------------------------------------------------------------


def start(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The command with ``args``, expected to stop at startup."""
    return subprocess.run(
        [COMMAND, *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "TMUX_CONTRACT_MCP_TOKEN": "t" * 32, **(env or {})},
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--http", "0.0.0.0:0"), "not a loopback address"),
        (("--http", "[::]:0"), "not a loopback address"),
        (("--http", "0.0.0.0:0", "--allow-remote"), "without TLS"),
        (("--http", "127.0.0.1:0", "--tls-cert", "/nonexistent"), "go together"),
        (("--http", "127.0.0.1:0", "--insecure-remote-behind-proxy"), "non-loopback"),
        (("--http", "example.com:8080"), "not an IP address"),
        (("--http", "127.0.0.1:99999"), "0 to 65535"),
        (("--http", "127.0.0.1:0", "--allow-origin", "evil.example"), "scheme://host"),
    ],
)
def test_a_listener_it_will_not_start_is_refused_at_startup_in_one_line(
    args: tuple[str, ...], says: str
) -> None:
    done = start(*args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("tmux-contract-mcp: ") and says in lines[0], lines[0]


def test_the_variable_asks_for_http_as_the_flag_does() -> None:
    done = start(env={"TMUX_CONTRACT_MCP_HTTP": "0.0.0.0:0"})
    assert done.returncode == 2 and "not a loopback address" in done.stderr


def test_a_port_in_use_is_refused_at_startup_in_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = start("--http", f"127.0.0.1:{port}")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"tmux-contract-mcp: cannot listen on 127.0.0.1:{port}: Address already in use"
    ]


async def test_a_remote_address_behind_a_proxy_answers_only_the_names_it_is_given(
    shared: TmuxServer,
) -> None:
    args = ("--allow-remote", "--insecure-remote-behind-proxy", "--allow-host", "tmux.example")
    with HttpServer.running(shared.server_env(), "python", *args, address="0.0.0.0:0") as remote:
        assert remote.url.startswith("http://0.0.0.0:")
        async with httpx2.AsyncClient(base_url=f"http://127.0.0.1:{remote.port}") as web:
            named = authorized(remote, Host="tmux.example")
            assert (await web.post("/mcp", json=INITIALIZE, headers=named)).status_code == 200
            other = authorized(remote, Host=f"127.0.0.1:{remote.port}")
            assert (await web.post("/mcp", json=INITIALIZE, headers=other)).status_code == 421


def self_signed(folder: Path) -> tuple[Path, Path]:
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


async def test_tls_serves_https_and_the_sdk_client_works_through_it(
    shared: TmuxServer, tmp_path: Path
) -> None:
    cert, key = self_signed(tmp_path)
    args = ("--tls-cert", str(cert), "--tls-key", str(key))
    with HttpServer.running(shared.server_env(), "python", *args) as secure:
        assert secure.url.startswith("https://127.0.0.1:")
        context = ssl.create_default_context(cafile=str(cert))
        async with httpx2.AsyncClient(verify=context) as web:
            response = await web.post(secure.url, json=INITIALIZE, headers=authorized(secure))
        assert response.status_code == 200
        with pytest.raises(httpx2.TransportError):  # plain HTTP to a TLS port is no request
            async with httpx2.AsyncClient() as plain:
                await plain.post(secure.url.replace("https", "http"), json=PING)
        bad = tmp_path / "bad.pem"
        bad.write_text("not a certificate\n")
    done = start("--http", "127.0.0.1:0", "--tls-cert", str(bad), "--tls-key", str(key))
    assert done.returncode == 2 and "cannot use --tls-cert" in done.stderr


# --- the token's sources -------------------------------------------------------------------


def test_a_made_token_is_in_a_new_private_file_whose_path_alone_is_printed(
    shared: TmuxServer, tmp_path: Path
) -> None:
    env = {**shared.server_env(), "XDG_RUNTIME_DIR": str(tmp_path)}
    server = HttpServer.start(env, "python", token=None)
    try:
        (path,) = (tmp_path / "tmux-contract-mcp").iterdir()
        assert path.stat().st_mode & 0o777 == 0o600
        assert (tmp_path / "tmux-contract-mcp").stat().st_mode & 0o777 == 0o700
        assert len(server.token) >= 40
        said = server.stderr()
        assert str(path) in said and server.token not in said
        claude = next(line for line in said.splitlines() if "claude mcp add" in line)
        assert f"--transport http tmux {server.url} --header" in claude
        assert f"$(cat {path})" in claude
    finally:
        assert server.stop() == 143
    assert not path.exists()  # the token dies with the process


def test_a_token_file_others_may_read_stops_startup(tmp_path: Path) -> None:
    loose = tmp_path / "loose.token"
    loose.write_text("x" * 32 + "\n")
    loose.chmod(0o644)
    done = start(
        "--http", "127.0.0.1:0", "--token-file", str(loose), env={"TMUX_CONTRACT_MCP_TOKEN": ""}
    )
    assert done.returncode == 2
    assert "may be read or written by others" in done.stderr


async def test_a_token_file_is_read_and_used(shared: TmuxServer, tmp_path: Path) -> None:
    given = tmp_path / "given.token"
    given.write_text("a-token-of-some-length-1234\n")
    given.chmod(0o600)
    server = HttpServer.start(shared.server_env(), "python", "--token-file", str(given), token=None)
    try:
        assert server.token == "a-token-of-some-length-1234"
        async with open_http_client(server, "python") as client:
            await client.ok("list_sessions")
    finally:
        server.stop()
    assert given.exists()  # a file it was given stays


@pytest.mark.parametrize(
    ("token", "says"),
    [("tiny7", "shorter than 16"), ("has a space in it ok", "visible ASCII")],
)
def test_a_token_the_server_will_not_serve_with_stops_startup(token: str, says: str) -> None:
    done = start("--http", "127.0.0.1:0", env={"TMUX_CONTRACT_MCP_TOKEN": token})
    assert done.returncode == 2 and says in done.stderr
    assert token not in done.stderr


def test_past_the_connection_limit_a_request_gets_503_and_then_it_serves_on(
    server: HttpServer,
) -> None:
    """Connections that say nothing fill the limit until the header deadline closes them."""
    idle = [connect(server) for _ in range(MAX_CONNECTIONS)]
    try:
        with httpx2.Client(timeout=10) as web:
            crowded = web.post(server.url, json=INITIALIZE, headers=authorized(server))
    finally:
        for sock in idle:
            sock.close()
    assert crowded.status_code == 503
    deadline = time.monotonic() + 10
    while True:
        with httpx2.Client(timeout=10) as web:
            response = web.post(server.url, json=INITIALIZE, headers=authorized(server))
        if response.status_code == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.1)  # closed connections leave the count as the server notices
    assert response.status_code == 200
