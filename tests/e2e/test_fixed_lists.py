"""Over the installed command's pipes, every answer to a list is the SDK's first one, on both
eras (the in-process half is tests/runtime/test_fixed_lists.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from scripts.lab.client import COMMAND
from scripts.lab.tmuxserver import TmuxServer
from scripts.lab.wiresize import raw_server

MODERN = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def result_of(line: str) -> Any:
    return json.loads(line)["result"]


@pytest.mark.parametrize("profile", ["python", "rust", "swift"])
def test_every_answer_to_a_list_is_the_sdks_first_on_both_eras(
    tmux: TmuxServer, profile: str
) -> None:
    with raw_server([COMMAND, "--profile", profile], tmux.server_env()) as peer:
        for method in ("tools/list", "resources/list", "prompts/list"):
            first = peer.request(method)
            if "error" in json.loads(first):
                continue  # the profile serves no such list
            assert result_of(peer.request(method)) == result_of(first)
    with raw_server([COMMAND, "--profile", profile], tmux.server_env(), handshake=False) as peer:
        first = peer.request("tools/list", {"_meta": ENVELOPE})
        again = peer.request("tools/list", {"_meta": ENVELOPE})
        assert result_of(again) == result_of(first)
        assert result_of(first)["tools"]
