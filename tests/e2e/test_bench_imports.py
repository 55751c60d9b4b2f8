"""What the bench says the installed command imports beyond the SDK (the -X importtime parser
and its tables: tests/scripts/test_bench_imports.py)."""

from __future__ import annotations

import sys

from scripts.bench.imports import baseline_tree, extras, modules, server_tree
from scripts.lab.client import COMMAND
from scripts.lab.tmuxserver import TmuxServer


def test_the_installed_server_imports_its_own_package_beyond_the_sdk(tmux: TmuxServer) -> None:
    argv = [sys.executable, "-X", "importtime", COMMAND, "--profile", "python"]
    roots = server_tree(argv, tmux.server_env())
    baseline = {m.name for m in modules(baseline_tree(sys.executable))}
    names = {e.name for e in extras(roots, baseline)}
    assert "tmux_contract_mcp.cli" in names
    assert "mcp.server.lowlevel" not in names
