"""Our resource templates and prompts against libtmux-mcp 0.1.0a22's.

The peer's lists live in tests/profiles/python/peer/libtmux_mcp_surface.json, so this test
needs no peer installed. That file was written by the comparison script from
the installed package (names, titles, MIME types, prompt arguments and the
JSON keys each template answers with; none of its descriptions):

    make compare-peer COMPARE_ARGS='--write-surface tests/profiles/python/peer/libtmux_mcp_surface.json'

which runs libtmux-mcp from build/bench/peer-venv over stdio against a private
tmux server and reads each JSON template with that server's ids.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scripts.compare_peer import compare_surface, shapes, surface
from scripts.lab.client import open_in_process
from scripts.lab.tmuxserver import TmuxServer

SNAPSHOT = Path(__file__).resolve().parent / "peer" / "libtmux_mcp_surface.json"


@pytest.mark.anyio
async def test_resource_templates_and_prompts_match_libtmux_mcp(tmux: TmuxServer) -> None:
    peer = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert peer["package"] == "libtmux-mcp 0.1.0a22"
    async with open_in_process(tmux.server_env(), "python") as client:
        ours = await surface(client.session)
        ours["shapes"] = await shapes(client.session, ours["resourceTemplates"])
    assert compare_surface(peer, ours) == []
    for key in ("resourceTemplates", "resources", "prompts", "shapes"):
        assert ours[key] == peer[key], key


def test_compare_surface_reports_what_a_client_would_notice() -> None:
    peer = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    ours = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    ours["resourceTemplates"].pop()
    ours["prompts"][0]["arguments"][0]["required"] = False
    template = next(iter(ours["shapes"]))
    ours["shapes"][template] = ours["shapes"][template][1:]
    problems = "\n".join(compare_surface(peer, ours))
    assert f"{peer['resourceTemplates'][-1]['uriTemplate']}: not served by ours" in problems
    assert f"prompt {peer['prompts'][0]['name']}: arguments differ" in problems
    assert f"{template}: JSON keys differ" in problems
