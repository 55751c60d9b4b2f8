"""What a stdio server imports beyond ``mcp.server.lowlevel``, and what each import costs.

    python -m scripts.bench.imports [--profile P] [--top N]

Runs the installed command's script under ``python -X importtime`` (this Python ignores
``PYTHONIMPORTTIME``) as a client starts it (initialize, then tools/list, then its input closes), and the bare
``python -c 'import mcp.server.lowlevel'`` the same way. Every module the server imported
that the bare import did not is "beyond the SDK": its own time (self) is what a cold start
pays for it. Two tables: per top-level package, and the modules whose own and beyond-the-SDK
imports cost the most (``beyond``: its self time and that of every module beyond the SDK
it imported in turn), with who imported it, so the imports to cut stand out.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from scripts.bench.rpc import RawClient
from scripts.bench.servers import OURS

LINE = re.compile(r"^import time:\s+(\d+)\s+\|\s+(\d+)\s+\|( +)(\S+)\s*$")
BASELINE = "mcp.server.lowlevel"


@dataclass
class Module:
    """One line of ``-X importtime``: a module, its own and cumulative microseconds, and the
    modules it imported (the lines just before it, one level deeper)."""

    name: str
    self_us: int
    cumulative_us: int
    level: int
    parent: Module | None = None
    children: list[Module] = field(default_factory=list)

    def walk(self) -> Iterable[Module]:
        yield self
        for child in self.children:
            yield from child.walk()


def parse(text: str) -> list[Module]:
    """The import tree of an ``-X importtime`` stderr (other lines ignored): the top-level
    imports, in order, each with the modules it imported under it.

    Python prints a module once its import is done, after the modules it imported, which
    are indented two spaces more: ``import time: self | cumulative |   name``."""
    waiting: dict[int, list[Module]] = defaultdict(list)  # by level: not yet claimed
    for line in text.splitlines():
        match = LINE.match(line)
        if match is None:
            continue
        self_us, cumulative, indent, name = match.groups()
        level = (len(indent) - 1) // 2
        module = Module(name, int(self_us), int(cumulative), level)
        module.children = waiting.pop(level + 1, [])
        for child in module.children:
            child.parent = module
        waiting[level].append(module)
    return waiting.get(0, [])


def modules(roots: Iterable[Module]) -> list[Module]:
    return [module for root in roots for module in root.walk()]


def beyond_us(module: Module, baseline: set[str]) -> int:
    """The self time of ``module`` (if beyond the baseline) and of every module beyond the
    baseline that it imported, directly or not."""
    return sum(m.self_us for m in module.walk() if m.name not in baseline)


@dataclass(frozen=True)
class Extra:
    name: str
    beyond_us: int
    self_us: int
    cumulative_us: int
    parent: str


def extras(roots: Sequence[Module], baseline: set[str]) -> list[Extra]:
    """Every module beyond the baseline, costliest first (by ``beyond_us``)."""
    found = [
        Extra(
            m.name,
            beyond_us(m, baseline),
            m.self_us,
            m.cumulative_us,
            m.parent.name if m.parent is not None else "(at run time)",
        )
        for m in modules(roots)
        if m.name not in baseline
    ]
    return sorted(found, key=lambda e: (-e.beyond_us, e.name))


OWN = "tmux_contract_mcp"


def package_of(name: str) -> str:
    """A module's top-level package; the server's own by its first two levels (runtime
    modules, generated, handlers), so its parts are told apart."""
    parts = name.split(".")
    return ".".join(parts[:2]) if parts[0] == OWN else parts[0]


def by_package(roots: Sequence[Module], baseline: set[str]) -> list[tuple[str, int, int]]:
    """Per package (``package_of``): the modules beyond the baseline and their summed self
    time, costliest first."""
    count: dict[str, int] = defaultdict(int)
    spent: dict[str, int] = defaultdict(int)
    for module in modules(roots):
        if module.name in baseline:
            continue
        package = package_of(module.name)
        count[package] += 1
        spent[package] += module.self_us
    return sorted(((p, count[p], spent[p]) for p in count), key=lambda r: (-r[2], r[0]))


# --- running ---------------------------------------------------------------------------------


def baseline_tree(python: str) -> list[Module]:
    done = subprocess.run(
        [python, "-X", "importtime", "-c", f"import {BASELINE}"],
        capture_output=True,
        text=True,
        check=True,
    )
    return parse(done.stderr)


def server_tree(argv: Sequence[str], env: Mapping[str, str]) -> list[Module]:
    """The import tree of a server started as ``argv``, up to its tools/list answer (and its
    exit once its input closes)."""
    with tempfile.TemporaryFile("w+b") as err:
        client = RawClient(argv, env, None, err)
        try:
            client.initialize(120)
            client.list_tools(120)
        finally:
            client.close()
        err.seek(0)
        return parse(err.read().decode(errors="replace"))


def ms(us: int) -> str:
    return f"{us / 1000:.1f}"


def report(server: Sequence[Module], base: Sequence[Module], top: int = 25) -> str:
    baseline = {m.name for m in modules(base)}
    total_base = sum(m.self_us for m in modules(base))
    total = sum(m.self_us for m in modules(server))
    beyond = sum(m.self_us for m in modules(server) if m.name not in baseline)
    count = sum(1 for m in modules(server) if m.name not in baseline)
    lines = [
        f"imports of the stdio server up to tools/list (-X importtime, self times summed): "
        f"{ms(total)} ms in {len(modules(server))} modules; `import {BASELINE}` alone: "
        f"{ms(total_base)} ms in {len(baseline)} modules; beyond it: {ms(beyond)} ms "
        f"in {count} modules",
        "",
        "| package (beyond the SDK's import) | modules | self ms |",
        "|---|---|---|",
        *(f"| {p} | {n} | {ms(us)} |" for p, n, us in by_package(server, baseline)[:top]),
        "",
        "| module (beyond the SDK's import) | beyond ms | self ms | cumulative ms | imported by |",
        "|---|---|---|---|---|",
        *(
            f"| {e.name} | {ms(e.beyond_us)} | {ms(e.self_us)} | {ms(e.cumulative_us)} "
            f"| {e.parent} |"
            for e in extras(server, baseline)[:top]
        ),
    ]
    return "\n".join(lines)


def imports_report(profile: str = "python", top: int = 25) -> str:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/root")}
    server = server_tree([sys.executable, "-X", "importtime", OURS, "--profile", profile], env)
    base = baseline_tree(sys.executable)
    return f"profile {profile}: " + report(server, base, top)


def main(argv: Sequence[str] | None = None) -> None:
    doc = __doc__ or ""
    parser = argparse.ArgumentParser(
        prog="python -m scripts.bench.imports", description=doc.splitlines()[0]
    )
    parser.add_argument("--profile", default="python")
    parser.add_argument("--top", type=int, default=25, help="rows per table (25)")
    args = parser.parse_args(argv)
    print(imports_report(args.profile, args.top))


if __name__ == "__main__":
    main()
