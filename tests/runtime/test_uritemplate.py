"""URI templates: which URIs a resource template matches and the variables it reads from them."""

from __future__ import annotations

import re

import pytest

from tmux_contract_mcp.uritemplate import BadUri, UriTemplate

PANE = UriTemplate.parse("tmux://panes/{pane_id}/content{?socket_name}")
SESSION = UriTemplate.parse("tmux://sessions/{session_name}{?socket_name}")
PANE_ID = re.compile(r"%[0-9]+")


def pane_ids_only(name: str, value: str) -> bool:
    return name != "pane_id" or PANE_ID.fullmatch(value) is not None


@pytest.mark.parametrize(
    ("uri", "pane_id"),
    [
        ("tmux://panes/%3/content", "%3"),  # not an escape at all: read as written
        ("tmux://panes/%12/content", "%12"),  # an escape of byte 0x12, which no pane id is
        ("tmux://panes/%41/content", "%41"),  # an escape of "A", which no pane id is
        ("tmux://panes/%2512/content", "%12"),  # "%" escaped as RFC 3986 has it
        ("tmux://panes/%253/content", "%3"),
    ],
)
def test_a_pane_id_is_read_bare_or_percent_encoded(uri: str, pane_id: str) -> None:
    assert PANE.match(uri, pane_ids_only) == {"pane_id": pane_id}


def test_query_variables_are_decoded_and_optional() -> None:
    assert SESSION.match("tmux://sessions/main") == {"session_name": "main"}
    assert SESSION.match("tmux://sessions/work%20space?socket_name=a%20b") == {
        "session_name": "work space",
        "socket_name": "a b",
    }


@pytest.mark.parametrize(
    "uri",
    [
        "tmux://sessions/main/windows",  # a path variable never spans a "/"
        "tmux://sessions/",
        "tmux://session/main",
        "tmux://sessions/main#frag",
    ],
)
def test_a_uri_of_another_shape_does_not_match(uri: str) -> None:
    assert SESSION.match(uri) is None


@pytest.mark.parametrize(
    ("uri", "field"),
    [
        ("tmux://sessions/main?colour=red", "colour"),
        ("tmux://sessions/main?socket_name=a&socket_name=b", "socket_name"),
    ],
)
def test_an_undeclared_or_repeated_query_parameter_is_refused_by_name(uri: str, field: str) -> None:
    with pytest.raises(BadUri) as caught:
        SESSION.match(uri)
    assert caught.value.field == field
    assert f"`{field}`" in caught.value.message


def test_names_lists_path_then_query_variables() -> None:
    window = UriTemplate.parse(
        "tmux://sessions/{session_name}/windows/{window_index}{?socket_name}"
    )
    assert window.names == ("session_name", "window_index", "socket_name")
    assert window.match("tmux://sessions/a/windows/2") == {
        "session_name": "a",
        "window_index": "2",
    }
