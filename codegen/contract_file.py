"""How a contract file is written and read.

A contract file is the tool object exactly as advertised (name, title,
description, inputSchema, outputSchema, annotations, _meta) plus this
project's own metadata under ``METADATA_KEY``, which is never advertised.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

METADATA_KEY = "x-tmux-contract-mcp"


def dumps_contract(contract: dict[str, Any]) -> str:
    """The canonical text of a contract file (key order as given)."""
    return json.dumps(contract, indent=2, ensure_ascii=False) + "\n"


def write_contract(path: Path, contract: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps_contract(contract), encoding="utf-8")


def read_contract(path: Path) -> dict[str, Any]:
    value = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(value, dict):
        raise ValueError(f"{path}: a contract is a JSON object")
    return value


def advertised(contract: dict[str, Any]) -> dict[str, Any]:
    """The contract as it goes on the wire: everything but the metadata."""
    return {key: value for key, value in contract.items() if key != METADATA_KEY}
