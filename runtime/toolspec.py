"""The shape of one registry entry; generated registries are lists of these."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ToolEntry:
    name: str
    toolset: str
    method: str
    models_module: str
    input_model: str
    output_model: str
    contract: str
    tags: tuple[str, ...] = ()  # e.g. "self-bounded": waits on its own clock
