"""Every generated model of an object builds its validator at its first use, not at import
(generated/base.py): a fresh interpreter that imports every model module of every profile has
built none of them, and one use builds that model's. (The few root models of list results
are built at import, as pydantic's RootModel is.) What a model decides is the same either way
(test_one_verdict)."""

from __future__ import annotations

import subprocess
import sys

from scripts.lab.client import ROOT
from tmux_contract_mcp.profiles import PROFILES

COUNT_BUILT = """
import importlib, pkgutil, sys
from tmux_contract_mcp.generated.base import Model
import tmux_contract_mcp.generated.{profile}.models as package
models = []
for info in pkgutil.iter_modules(package.__path__):
    module = importlib.import_module(package.__name__ + "." + info.name)
    models += [v for v in vars(module).values()
               if isinstance(v, type) and issubclass(v, Model) and v.__module__ == module.__name__]
built = [m.__name__ for m in models if m.__pydantic_complete__]
print(len(models), len(built), *built[:5])
"""


def _count(profile: str) -> tuple[int, int]:
    done = subprocess.run(
        [sys.executable, "-c", COUNT_BUILT.format(profile=profile)],
        capture_output=True, text=True, cwd=ROOT, check=True, timeout=60,
    )  # fmt: skip
    models, built, *_ = done.stdout.split()
    return int(models), int(built)


def test_importing_every_generated_model_builds_no_validator() -> None:
    for profile in PROFILES:
        models, built = _count(profile)
        assert models > 20, f"{profile}: only {models} models found"
        assert built == 0, f"{profile}: {built} of {models} models built at import"


def test_a_generated_model_is_built_at_its_first_use() -> None:
    from tmux_contract_mcp.generated.python.models.list_panes import ListPanesInput

    assert ListPanesInput.model_validate({"session_name": "a"}).session_name == "a"
    assert ListPanesInput.__pydantic_complete__
