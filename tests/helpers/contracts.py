"""The contracts folder and one vendored tool of it, as codegen loads it; a toolset's tools."""

from __future__ import annotations

import json
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


def every_toolset(profile: str) -> str:
    """``LIBTMUX_TOOLSETS`` naming every toolset of ``profile``, opt-in ones included."""
    description = json.loads((CONTRACTS / f"{profile}-profile.json").read_text(encoding="utf-8"))
    return ",".join(str(each["name"]) for each in description["toolsets"])


def tools_in_toolset(toolset: str, profile: str = "python") -> set[str]:
    """The tools of ``profile`` in ``toolset`` (each contract's metadata says which)."""
    return {name for name, each in load_served_profile(profile).catalog.items() if each == toolset}
