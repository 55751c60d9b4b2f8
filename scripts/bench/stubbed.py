"""The installed ``tmux-contract-mcp``, started with its tmux transport swapped from outside.

    python -m scripts.bench.stubbed --record DIR [server options]
    python -m scripts.bench.stubbed --replay DIR [server options]

``--record`` passes every tmux command to the real transport the options choose
and writes each answer to ``DIR/<pid>.jsonl``; ``--replay`` answers every command
from the files in DIR, so no tmux process runs and no control client attaches.
Everything else is the shipped server, unchanged: this module only replaces the
tmux core's transport factory (``transport.kinds.make_transport``) before it calls
the command's own ``main``.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from scripts.bench.replay import Recording, RecordingTransport, ReplayTransport
from tmux_contract_mcp import cli
from tmux_contract_mcp.handlers.tmux.transport import kinds
from tmux_contract_mcp.handlers.tmux.transport.kinds import Transport
from tmux_contract_mcp.handlers.tmux.transport.sockets import Socket


def recording(directory: Path) -> None:
    real = kinds.make_transport
    path = directory / f"{os.getpid()}.jsonl"

    def make(kind: str, socket: Socket, tmux_bin: str, environ: Mapping[str, str]) -> Transport:
        return RecordingTransport(real(kind, socket, tmux_bin, environ), path)

    kinds.make_transport = make


def replaying(directory: Path) -> None:
    answers = Recording.load(sorted(directory.glob("*.jsonl")))

    def make(kind: str, socket: Socket, tmux_bin: str, environ: Mapping[str, str]) -> Transport:
        return ReplayTransport(socket, answers)

    kinds.make_transport = make


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m scripts.bench.stubbed", add_help=False)
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--record", type=Path, metavar="DIR")
    mode.add_argument("--replay", type=Path, metavar="DIR")
    args, rest = p.parse_known_args(argv)
    if args.record is not None:
        recording(args.record)
    else:
        replaying(args.replay)
    return cli.main(rest)


if __name__ == "__main__":
    raise SystemExit(main())
