"""Where the HTTP listener binds and whom it answers, read from its settings (no server)."""

from __future__ import annotations

import pytest

from tmux_contract_mcp.listener import ListenerRefused, listener_from, parse_address


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("8765", ("127.0.0.1", 8765)),
        ("0", ("127.0.0.1", 0)),
        ("localhost:8765", ("127.0.0.1", 8765)),
        ("127.0.0.2:1", ("127.0.0.2", 1)),
        ("[::1]:8765", ("::1", 8765)),
        ("0.0.0.0:80", ("0.0.0.0", 80)),
    ],
)
def test_an_address_is_read_as_an_ip_and_a_port(given: str, expected: tuple[str, int]) -> None:
    assert parse_address(given) == expected


@pytest.mark.parametrize(
    "given", ["", "x", "65536", "-1", "host:80", "::1:80", "[::1]80", "1.2.3:8"]
)
def test_an_address_it_cannot_read_is_refused(given: str) -> None:
    with pytest.raises(ListenerRefused):
        parse_address(given)


def test_a_loopback_listener_answers_its_address_and_localhost() -> None:
    listener = listener_from("8765", {})
    assert not listener.remote
    assert listener.allowed_hosts(8765) == ("127.0.0.1:8765", "localhost:8765")
    assert "http://localhost:8765" in listener.allowed_origins(8765)
    assert listener.url(8765) == "http://127.0.0.1:8765/mcp"


def test_ipv6_is_written_in_brackets() -> None:
    listener = listener_from("[::1]:9", {})
    assert listener.allowed_hosts(9)[0] == "[::1]:9"
    assert listener.url(9) == "http://[::1]:9/mcp"


def test_named_hosts_and_origins_are_answered_too() -> None:
    listener = listener_from(
        "0.0.0.0:8443",
        {},
        allow_remote=True,
        behind_proxy=True,
        allow_hosts=["tmux.example", "tmux.example:443"],
        allow_origins=["https://app.example"],
    )
    hosts = listener.allowed_hosts(8443)
    assert "tmux.example" in hosts and "tmux.example:8443" in hosts and "tmux.example:443" in hosts
    assert "localhost:8443" not in hosts  # not a loopback address
    assert "https://tmux.example" in listener.allowed_origins(8443)
    assert "https://app.example" in listener.allowed_origins(8443)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("TMUX_CONTRACT_MCP_HTTP_MAX_SESSIONS", "0"),
        ("TMUX_CONTRACT_MCP_HTTP_MAX_SESSIONS", "1.5"),
        ("TMUX_CONTRACT_MCP_HTTP_IDLE_SECONDS", "-3"),
        ("TMUX_CONTRACT_MCP_HTTP_IDLE_SECONDS", "nan"),
        ("TMUX_CONTRACT_MCP_HTTP_IDLE_SECONDS", "soon"),
    ],
)
def test_a_bound_that_is_not_a_positive_number_is_refused(name: str, value: str) -> None:
    with pytest.raises(ListenerRefused, match=name):
        listener_from("8765", {name: value})


def test_the_bounds_are_read_from_their_variables() -> None:
    listener = listener_from(
        "8765",
        {"TMUX_CONTRACT_MCP_HTTP_MAX_SESSIONS": "3", "TMUX_CONTRACT_MCP_HTTP_IDLE_SECONDS": "2.5"},
    )
    assert (listener.max_sessions, listener.idle_seconds) == (3, 2.5)
