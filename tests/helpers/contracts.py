"""The contracts folder and one vendored tool of it, as codegen loads it; a toolset's tools."""

from __future__ import annotations

from pathlib import Path

from codegen.model import Tool, load_profile
from scripts.lab.client import ROOT
from tmux_contract_mcp.profiles import load_profile as load_served_profile

CONTRACTS = ROOT / "contracts"


def profile_of(path: Path) -> str:
    """The profile a tool contract belongs to: contracts/<profile>/[<authored folder>/]<tool>.json."""
    return path.relative_to(CONTRACTS).parts[0]


def load_tool(path: Path) -> Tool:
    profile = load_profile(CONTRACTS, profile_of(path), ROOT)
    (tool,) = (tool for tool in profile.tools if tool.path == path)
    return tool


def tools_in_toolset(toolset: str, profile: str = "python") -> set[str]:
    """The tools of ``profile`` in ``toolset`` (each contract's metadata says which)."""
    return {name for name, each in load_served_profile(profile).catalog.items() if each == toolset}
