"""docs/remote.md, held to the code: its configuration is one the server starts with, its
rules and tables are the ones runtime/config.py and the profiles' effects have. The
behaviour it describes is proven by tests/runtime/test_scope.py (scope, audit log,
resources), tests/runtime/test_config.py (checks at startup) and
tests/profiles/python/test_python_hosts.py (hosts, list_servers, connections)."""

from __future__ import annotations

import re
from pathlib import Path

from scripts.lab.client import ROOT
from tmux_contract_mcp.config import (
    DEFAULT_KEEP,
    DEFAULT_MAX_BYTES,
    DEFAULT_TEXT_BYTES,
    SECTIONS,
    check_config,
    load_config,
)
from tmux_contract_mcp.profiles import load_profile

DOC = (ROOT / "docs" / "remote.md").read_text(encoding="utf-8")


def example(tmp_path: Path) -> str:
    toml = re.search(r"```toml\n(.*?)```", DOC, re.S)
    assert toml is not None
    path = tmp_path / "example.toml"
    audit_dir = tmp_path / "state"
    audit_dir.mkdir()
    path.write_text(toml.group(1).replace("~/.local/state/tmux-contract-mcp", str(audit_dir)))
    return str(path)


def test_the_example_names_three_hosts_and_a_scope_the_server_starts_with(
    tmp_path: Path,
) -> None:
    path = example(tmp_path)
    config = load_config(path)
    assert sorted(config.hosts) == ["build", "db", "web"]
    assert config.scope.active and config.scope.allow == ("agent-*",)
    assert config.scope.protect == ("agent-prod",)
    assert config.audit is not None
    assert check_config(path) == []


def test_the_scope_table_lists_every_key_of_scope() -> None:
    rows = re.findall(r"^\| `([a-z_]+)` \|", DOC, re.M)
    assert sorted(rows) == sorted(SECTIONS["scope"])


def test_the_unscopable_tools_named_are_the_profiles_own() -> None:
    paragraph = DOC[DOC.index("Some tools have an effect") :].split("\n\n")[0]
    named = set(re.findall(r"`([a-z_]+)`", paragraph))
    python, rust, swift = (load_profile(name).effects for name in ("python", "rust", "swift"))
    assert python is not None and rust is not None and swift is not None
    tools = {rule["tool"] for effects in (python, rust, swift) for rule in effects["unscopable"]}
    assert tools <= named
    assert "socket_argument" not in rust and "socket_argument" not in swift  # one server each


def test_the_audit_defaults_are_the_code_s() -> None:
    assert f"`text_bytes`, {DEFAULT_TEXT_BYTES} by default" in DOC.replace("\n", " ")
    assert DEFAULT_MAX_BYTES == 1024 * 1024 and "(1 MiB by default)" in DOC
    assert "(3 by default)" in DOC and DEFAULT_KEEP == 3
