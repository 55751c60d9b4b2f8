"""The table of every setting in docs/configuration.md, made from the command line's argparse
and the profile descriptions (``contracts/*-profile.json``, through the generated registries).

``python -m scripts.config_table`` rewrites the table between its two marker lines;
``--check`` exits 1, saying so, when the page's table is not what this makes.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from pathlib import Path

from tmux_contract_mcp.cli import parser
from tmux_contract_mcp.handlers.tmux.transport.ssh import SSH_CONFIG_ENV
from tmux_contract_mcp.listener import (
    DEFAULT_IDLE_SECONDS,
    DEFAULT_MAX_SESSIONS,
    IDLE_ENV,
    MAX_SESSIONS_ENV,
)
from tmux_contract_mcp.live import DEFAULT_INTERVAL_MS, UPDATE_INTERVAL_ENV
from tmux_contract_mcp.profiles import PROFILES

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "configuration.md"
BEGIN = "<!-- the table below is written by `python -m scripts.config_table`: do not edit -->"
END = "<!-- end of the generated table -->"

RUNTIME_VARIABLES = (
    (SSH_CONFIG_ENV, "with --ssh: the ssh configuration file, passed to ssh as -F", "your own"),
    (MAX_SESSIONS_ENV, "with --http: handshake sessions open at once", str(DEFAULT_MAX_SESSIONS)),
    (IDLE_ENV, "with --http: seconds a session may stay idle", f"{DEFAULT_IDLE_SECONDS:g}"),
    (UPDATE_INTERVAL_ENV, "milliseconds between two updates of one subscribed URI",
     str(DEFAULT_INTERVAL_MS)),
)  # fmt: skip
"""The variables the runtime reads that neither a profile nor an option's help names."""

SKIPPED = {"help", "help_all", "version"}


def cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def option_rows(p: argparse.ArgumentParser) -> list[tuple[str, str, str, str]]:
    """One row per option: its flags and the variable its help names, every profile."""
    rows = []
    for action in p._actions:
        if action.dest in SKIPPED or not action.option_strings:
            continue
        text = action.help or ""
        variables = re.findall(r"\$([A-Z][A-Z0-9_]+)", text)
        text = re.sub(r"\s*\(default: \$[A-Z0-9_]+(?: or ([^)]*))?\)", "", text)
        found = re.search(r"\(default: \$[A-Z0-9_]+(?: or ([^)]*))?\)", action.help or "")
        default = found[1] if found and found[1] else ""
        if action.choices:
            text += f" ({', '.join(map(str, action.choices))})"
        names = [f"`{flag}`" for flag in action.option_strings]
        names += [f"`{variable}`" for variable in variables]
        rows.append((", ".join(names), "all", default, text))
    return rows


def variable_rows() -> list[tuple[str, str, str, str]]:
    """One row per variable and description: the profiles that read it that way."""
    readers: dict[tuple[str, str, str], list[str]] = {}
    for name in PROFILES:
        registry = importlib.import_module(f"tmux_contract_mcp.generated.{name}.registry")
        for variable in registry.ENVIRONMENT:
            default = variable.default or ""
            if variable.name == "LIBTMUX_TOOLSETS":
                default = ",".join(registry.DEFAULT_TOOLSETS)
            readers.setdefault((variable.name, default, variable.meaning), []).append(name)
    rows = []
    for (variable, default, meaning), names in readers.items():
        who = "all" if len(names) == len(PROFILES) else ", ".join(names)
        rows.append((f"`{variable}`", who, default, meaning))
    rows += [(f"`{name}`", "all", default, meaning) for name, meaning, default in RUNTIME_VARIABLES]
    return rows


def table() -> str:
    lines = ["| setting | profiles | default | meaning |", "|---|---|---|---|"]
    for row in [*option_rows(parser()), *variable_rows()]:
        lines.append("| " + " | ".join(cell(part) for part in row) + " |")
    return "\n".join(lines)


def rewritten(text: str) -> str:
    """``text`` with the table between the markers made anew."""
    head, begin, rest = text.partition(BEGIN + "\n")
    _, end, tail = rest.partition(END)
    assert begin and end, f"{PAGE.name} lacks the marker lines"
    return f"{head}{BEGIN}\n{table()}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    check = "--check" in (sys.argv[1:] if argv is None else argv)
    text = PAGE.read_text(encoding="utf-8")
    if check:
        if rewritten(text) != text:
            print(f"{PAGE} is out of date: run python -m scripts.config_table", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(rewritten(text), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
