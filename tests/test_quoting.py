"""Control-mode quoting: each class of character, the refusals, and real tmux reading it back."""

from __future__ import annotations

import os
import subprocess

import pytest

from scripts.lab.tmuxserver import TMUX, TmuxServer
from tmux_contract_mcp.handlers.tmux.transport.control import ControlClient
from tmux_contract_mcp.handlers.tmux.transport.quoting import (
    command_line,
    quote_argument,
    unescape_output,
)
from tmux_contract_mcp.handlers.tmux.transport.sockets import Socket

PARSER_SPECIAL = '\\"$~'  # special inside tmux's double quotes (``~`` at a token's start)
PLAIN = "".join(c for c in map(chr, range(0x20, 0x7F)) if c not in PARSER_SPECIAL)


def inner(arg: str) -> str:
    quoted = quote_argument(arg)
    assert quoted.startswith('"') and quoted.endswith('"')
    return quoted[1:-1]


def test_plain_printable_ascii_is_written_as_it_is() -> None:
    assert len(PLAIN) == 0x7F - 0x20 - len(PARSER_SPECIAL)
    for char in PLAIN:
        assert inner(char) == char
    assert quote_argument("plain-word") == '"plain-word"'
    assert quote_argument("#{session_name} ; 'x' {}") == "\"#{session_name} ; 'x' {}\""


def test_what_the_parser_would_interpret_gets_a_backslash() -> None:
    for char in PARSER_SPECIAL:
        assert inner(char) == "\\" + char
    assert quote_argument('~ $HOME "x" \\') == '"\\~ \\$HOME \\"x\\" \\\\"'


def test_control_bytes_and_delete_are_written_in_octal() -> None:
    for byte in [*range(0x01, 0x20), 0x7F]:
        assert inner(chr(byte)) == f"\\{byte:03o}"
    assert quote_argument("a\nb\tc\x7f") == '"a\\012b\\011c\\177"'


def test_non_ascii_is_written_byte_by_byte_in_octal() -> None:
    assert quote_argument("é") == '"\\303\\251"'
    assert inner("🙂") == "".join(f"\\{b:03o}" for b in "🙂".encode())


def test_a_surrogate_escaped_byte_is_written_as_that_byte() -> None:
    assert quote_argument("\udcff") == '"\\377"'  # as a non-UTF-8 byte arrives in argv


def test_the_empty_argument_is_an_empty_quoted_string() -> None:
    assert quote_argument("") == '""'


def test_nul_is_refused_as_argv_would_refuse_it() -> None:
    with pytest.raises(ValueError, match="null byte"):
        quote_argument("a\0b")
    with pytest.raises(ValueError, match="null byte"):
        command_line(["set-option", "-g", "@x", "\0"])


def test_a_command_needs_a_name() -> None:
    with pytest.raises(ValueError, match="needs a name"):
        command_line([])


def test_every_byte_but_nul_makes_one_printable_ascii_line() -> None:
    every = "".join(map(chr, range(1, 0x80))) + bytes(range(0x80, 0x100)).decode(
        "utf-8", "surrogateescape"
    )
    line = command_line(["set-option", "-g", "@x", every])
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    body = line[:-1].decode("ascii")
    assert body.isprintable()
    assert body.startswith('"set-option" "-g" "@x" "')


def test_unescape_output_restores_the_bytes() -> None:
    assert unescape_output("a\\134b\\033c\\015\\012") == b"a\\b\x1bc\r\n"
    assert unescape_output("é\udcff") == b"\xc3\xa9\xff"
    assert unescape_output("\\9 \\12 plain") == b"\\9 \\12 plain"  # not three octal digits


def test_unescape_output_inverts_octal_escaping_of_every_byte() -> None:
    data = bytes(range(256))
    escaped = "".join(f"\\{b:03o}" for b in data)
    assert unescape_output(escaped) == data


# Strings that would mean something else unquoted: formats, variables, home
# directories, a second command, a comment, quotes, escapes and guard lookalikes.
NASTY = [
    "".join(map(chr, range(1, 0x80))),  # every ASCII character but NUL
    "a ; kill-server",
    "{ kill-server }",
    "#{session_name} #(true) $(true) `true`",
    "$HOME ${HOME} ~ ~/x ~root",
    "# not a comment",
    "'\"'\"\\\\\\",
    "x\n%end 1 2 1\n%begin 1 2 1\ny",
    "é ✓ 日本語 🙂",
    "",
]


def stored(tmux: TmuxServer, option: str) -> bytes:
    """The option's value as ``tmux show-options`` prints it, byte for byte."""
    done = subprocess.run(
        [TMUX, "-L", tmux.name, "show-options", "-gv", option],
        capture_output=True,
        env={**os.environ, **tmux.env},
        timeout=20,
        check=True,
    )
    return done.stdout


@pytest.mark.anyio
async def test_a_real_control_client_reads_each_nasty_string_back_literally(
    tmux: TmuxServer,
) -> None:
    socket = Socket(tmux.socket_path, f"socket {tmux.socket_path}")
    client = await ControlClient.start(socket, TMUX, "$0", environ={**os.environ, **tmux.env})
    try:
        for index, value in enumerate(NASTY):
            await client.run(["set-option", "-g", f"@q{index}", value])
            shown = await client.run(["show-options", "-gv", f"@q{index}"])
            assert "\n".join(shown) == value, repr(value)
            # tmux itself, asked by a plain process, agrees on what was stored
            assert stored(tmux, f"@q{index}") == value.encode() + b"\n", repr(value)
    finally:
        await client.aclose()
    assert tmux.lines("list-sessions", "-F", "#{session_name}") == ["main"]
