"""The contracts folder and one vendored tool of it, as codegen loads it; a toolset's tools."""

from __future__ import annotations

from pathlib import Path

from codegen.model import Tool, load_profile
from scripts.lab.client import ROOT
from tmux_contract_mcp.profiles import load_profile as load_served_profile

CONTRACTS = ROOT / "contracts"


def load_tool(path: Path) -> Tool:
    profile = load_profile(CONTRACTS, path.parent.name, ROOT)
    (tool,) = (tool for tool in profile.tools if tool.path == path)
    return tool


def tools_in_toolset(toolset: str, profile: str = "python") -> set[str]:
    """The tools of ``profile`` in ``toolset`` (each contract's metadata says which)."""
    return {name for name, each in load_served_profile(profile).catalog.items() if each == toolset}
