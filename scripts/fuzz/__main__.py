"""``make fuzz`` and ``make fuzz-compare``: fuzz every tool of the chosen servers, each on a
private tmux server of its own, and print what broke and the Markdown table.

Exits 1 when any of our profiles has a finding (the peer's findings are only reported).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

import anyio

from scripts.fuzz.engine import Report, fuzz
from scripts.fuzz.report import findings, summary, table
from scripts.fuzz.targets import Target, named
from scripts.lab.client import ROOT
from scripts.lab.sshd import SshServer
from tmux_contract_mcp.generated import PROFILES

OUT = ROOT / "build" / "fuzz"


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m scripts.fuzz", description=__doc__)
    parser.add_argument("--examples", type=int, default=100, help="calls per tool (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="the seed of every draw (default 0)")
    parser.add_argument(
        "--profiles",
        default=",".join(PROFILES),
        help=f"our profiles to fuzz, comma-separated (default {','.join(PROFILES)})",
    )
    parser.add_argument(
        "--compare",
        action="store_true",
        help="fuzz libtmux-mcp too (installed into build/bench/peer-venv on first use)",
    )
    parser.add_argument("--tools", default="", help="only these tools, comma-separated")
    parser.add_argument(
        "--transport",
        default="control",
        choices=("control", "subprocess"),
        help="how our server reaches tmux (default control)",
    )
    parser.add_argument(
        "--ssh",
        action="store_true",
        help="start our servers with --ssh through a private sshd on 127.0.0.1 (ours only)",
    )
    parser.add_argument(
        "--hang", type=float, default=15.0, help="seconds without an answer that make a hang"
    )
    parser.add_argument("--out", type=Path, default=OUT, help=f"where to write (default {OUT})")
    return parser.parse_args(argv)


async def main(options: argparse.Namespace) -> int:
    sshd = SshServer.start() if options.ssh else None
    try:
        return await fuzz_all(options, sshd)
    finally:
        if sshd is not None:
            sshd.kill()


async def fuzz_all(options: argparse.Namespace, sshd: SshServer | None) -> int:
    targets: list[Target] = [named("peer")] if options.compare else []
    targets += [
        named(profile, options.transport, sshd)
        for profile in options.profiles.split(",")
        if profile
    ]
    wanted = {name for name in options.tools.split(",") if name}
    reports: list[Report] = []
    for target in targets:
        print(f"fuzzing {target.label}: {options.examples} calls per tool, seed {options.seed}")
        report = await fuzz(
            target,
            options.examples,
            options.seed,
            options.hang,
            only=lambda name: not wanted or name in wanted,
            progress=lambda line: print(f"  {line}", flush=True),
        )
        reports.append(report)
        print(summary(report))
        print("\n".join(findings(report)))
    options.out.mkdir(parents=True, exist_ok=True)
    text = table(reports)
    (options.out / "table.md").write_text(text + "\n")
    (options.out / "findings.json").write_text(
        json.dumps([asdict(r) for r in reports], indent=1, ensure_ascii=False, default=str)
    )
    print()
    print("\n".join(summary(r) for r in reports))
    print()
    print(text)
    print(
        f"\n(table in {options.out / 'table.md'}, every finding in {options.out / 'findings.json'})"
    )
    ours = [r for r in reports if r.label.startswith("ours/")]
    return 1 if any(r.findings for r in ours) else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main, parse(sys.argv[1:])))
