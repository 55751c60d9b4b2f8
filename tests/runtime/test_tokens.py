"""The bearer token: its sources, its file, its check (no server)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tmux_contract_mcp.tokens import (
    TokenRefused,
    bearer,
    make_token,
    obtain_token,
    private_folder,
    token_folder,
)


def test_the_header_is_read_in_any_case_and_other_schemes_are_not() -> None:
    assert bearer(b"Bearer abc") == b"abc"
    assert bearer(b"bearer   abc ") == b"abc"
    assert bearer(b"BEARER abc") == b"abc"
    assert bearer(b"Basic abc") is None
    assert bearer(b"abc") is None


def test_the_check_admits_the_token_alone() -> None:
    token = obtain_token({"TMUX_CONTRACT_MCP_TOKEN": "x" * 20}, None, 0)
    assert token.admits(b"x" * 20)
    assert not token.admits(b"x" * 19) and not token.admits(b"x" * 21) and not token.admits(b"")


def test_a_made_token_goes_to_the_runtime_directory_and_is_forgotten(tmp_path: Path) -> None:
    token = make_token({"XDG_RUNTIME_DIR": str(tmp_path)}, 8765)
    assert token.made and token.file is not None
    assert token.file.parent == tmp_path / "tmux-contract-mcp"
    assert token.file.name.startswith("http-8765-")
    assert token.file.read_text().strip().encode() == token.secret
    assert token.file.stat().st_mode & 0o777 == 0o600
    token.forget()
    assert not token.file.exists()


def test_without_a_runtime_directory_a_private_folder_in_tmp_is_used() -> None:
    folder = token_folder({})
    assert folder.name == f"tmux-contract-mcp-{os.getuid()}"


def test_a_folder_open_to_others_is_refused(tmp_path: Path) -> None:
    open_folder = tmp_path / "open"
    open_folder.mkdir(mode=0o777)
    open_folder.chmod(0o777)
    with pytest.raises(TokenRefused, match="open to others"):
        private_folder(open_folder)
    link = tmp_path / "link"
    link.symlink_to(tmp_path)
    with pytest.raises(TokenRefused, match="not a folder"):
        private_folder(link)


def test_the_variable_and_a_file_together_are_refused(tmp_path: Path) -> None:
    with pytest.raises(TokenRefused, match="give one"):
        obtain_token({"TMUX_CONTRACT_MCP_TOKEN": "x" * 20}, str(tmp_path / "f"), 0)


def test_a_token_file_that_cannot_be_read_is_refused_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "missing.token"
    with pytest.raises(TokenRefused, match=str(missing)):
        obtain_token({}, str(missing), 0)
