"""The contracts folder and one vendored tool of it, as codegen loads it."""

from __future__ import annotations

from pathlib import Path

from codegen.model import Tool, load_profile
from scripts.lab.client import ROOT

CONTRACTS = ROOT / "contracts"


def load_tool(path: Path) -> Tool:
    profile = load_profile(CONTRACTS, path.parent.name, ROOT)
    (tool,) = (tool for tool in profile.tools if tool.path == path)
    return tool
