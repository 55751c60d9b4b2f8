"""What an agent pays to read each server: bytes and cl100k tokens, not time.

The tool list (every toolset and the default), the server instructions, and the common
answers (list_panes at 10, 50 and 200 panes, list_windows, get_pane_info, capture_pane of a
full screen), each answer's text content and structured content apart, for our three
profiles and for the peer, all against one private tmux server grown to each pane count.
Run alone as ``python -m scripts.bench.sizes``; ``make bench`` prints it after the timings.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scripts.bench.peer import PEER_QUIET, ensure_peer
from scripts.bench.servers import OURS, OUT
from scripts.lab.tmuxserver import TmuxServer
from scripts.lab.wiresize import RawPeer, Size, answer_sizes, raw_server

EVERY_TOOLSET = "inspect,manage,execute,teardown"
PANE_COUNTS = (10, 50, 200)
PANES_PER_WINDOW = 4
WINDOWS_PER_SESSION = 5
SCREEN = "screen"  # the session whose one pane shows a full screen of text

Args = dict[str, Any]
Spelled = tuple[str, Args]


@dataclass(frozen=True)
class Surface:
    """One server as the sizes table measures it: its command, and how its tools spell the
    common calls (None: no such tool)."""

    label: str
    argv: tuple[str, ...]
    env: dict[str, str]
    list_panes: Args | None
    list_windows: Args | None
    pane_info: Callable[[str], tuple[str, Args]]
    capture: Callable[[str], tuple[str, Args]]


def surfaces(tmux: TmuxServer, peer: Path | None) -> list[Surface]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", "/root"),
        "TMUX_TMPDIR": str(tmux.tmpdir),
        "LIBTMUX_SOCKET_PATH": tmux.socket_path,
    }
    python: dict[str, Any] = {
        "list_panes": {},
        "list_windows": {},
        "pane_info": lambda pane: ("get_pane_info", {"pane_id": pane}),
        "capture": lambda pane: ("capture_pane", {"pane_id": pane}),
    }
    found = [
        Surface("ours, python", (OURS, "--profile", "python"), env, **python),
        Surface(
            "ours, rust",
            (OURS, "--profile", "rust"),
            env,
            {},
            {},
            lambda pane: ("get_pane_info", {"pane": pane}),
            lambda pane: ("capture_pane", {"pane": pane}),
        ),
        Surface(
            "ours, swift",
            (OURS, "--profile", "swift"),
            env,
            {},
            {},
            lambda pane: ("get_pane_info", {"paneId": pane}),
            lambda pane: ("capture_pane", {"paneId": pane}),
        ),
    ]
    if peer is not None:
        found.append(Surface("libtmux-mcp", (str(peer),), {**env, **PEER_QUIET}, **python))
    return found


def grow(tmux: TmuxServer, panes: int) -> None:
    """Sessions of five windows of four panes (the last one partly filled) until the server
    holds ``panes`` panes in all."""
    while True:
        rows = tmux.lines("list-panes", "-a", "-F", "#{session_name} #{window_id} #{pane_id}")
        if len(rows) >= panes:
            return
        grown = [row.split() for row in rows if row.startswith("g")]
        index = len(grown)
        per_session = PANES_PER_WINDOW * WINDOWS_PER_SESSION
        session = f"g{index // per_session}"
        if index % per_session == 0:
            tmux.tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "48")
        elif index % PANES_PER_WINDOW == 0:
            tmux.tmux("new-window", "-d", "-t", f"{session}:")
        else:
            window = grown[-1][1]
            tmux.tmux("split-window", "-d", "-t", window)
            tmux.tmux("select-layout", "-t", window, "tiled")


def full_screen(tmux: TmuxServer) -> str:
    """A 200x50 pane whose screen is full of text; its id."""
    pane = tmux.tmux(
        "new-session", "-d", "-s", SCREEN, "-x", "200", "-y", "50", "-P", "-F", "#{pane_id}"
    ).strip()
    tmux.wait_for_prompt(pane)
    command = "clear; for i in $(seq 1 60); do printf 'row %03d %0180d\\n' $i 0; done"
    tmux.tmux("send-keys", "-t", pane, command, "Enter")
    deadline = time.monotonic() + 10
    while "row 060" not in tmux.tmux("capture-pane", "-p", "-t", pane):
        if time.monotonic() > deadline:
            raise RuntimeError(f"pane {pane} never showed its screen of text")
        time.sleep(0.05)
    return pane


Cell = tuple[Size, Size] | None  # an answer's text and structured content; None: no such tool


@dataclass
class Table:
    """Every measured figure: lists and answers, by row title and surface label."""

    surfaces: list[str]
    lists: dict[str, dict[str, Size]]
    answers: dict[str, dict[str, Cell]]


def call(peer: RawPeer, spelled: tuple[str, Args] | None) -> Cell:
    if spelled is None:
        return None
    tool, arguments = spelled
    result = peer.call(tool, arguments)
    if result.get("isError"):
        raise RuntimeError(f"{tool} {arguments} failed: {result.get('content')}")
    return answer_sizes(result)


def measure(surfaces: Sequence[Surface], tmux: TmuxServer) -> Table:
    """Every surface's lists once, then its answers as the server grows to each count."""
    table = Table([s.label for s in surfaces], {}, {})
    for surface in surfaces:
        for selection, toolsets in (("every toolset", EVERY_TOOLSET), ("default toolsets", None)):
            env = {**surface.env, **({"LIBTMUX_TOOLSETS": toolsets} if toolsets else {})}
            with raw_server(surface.argv, env) as peer:
                listed = Size.of(peer.request("tools/list"))
            table.lists.setdefault(f"tools/list, {selection}", {})[surface.label] = listed
            table.lists.setdefault("server instructions", {})[surface.label] = Size.of(
                peer.instructions
            )
    screen = full_screen(tmux)
    for count in PANE_COUNTS:
        grow(tmux, count)
        for surface in surfaces:
            env = {**surface.env, "LIBTMUX_TOOLSETS": EVERY_TOOLSET}
            with raw_server(surface.argv, env) as peer:
                rows: list[tuple[str, tuple[str, Args] | None]] = [
                    (f"list_panes, {count} panes", _spelled("list_panes", surface.list_panes))
                ]
                if count == PANE_COUNTS[-1]:
                    rows += [
                        (
                            f"list_windows, {count} panes",
                            _spelled("list_windows", surface.list_windows),
                        ),
                        ("get_pane_info", surface.pane_info(screen)),
                        ("capture_pane, a full 200x50 screen", surface.capture(screen)),
                    ]
                for title, spelled in rows:
                    table.answers.setdefault(title, {})[surface.label] = call(peer, spelled)
    return table


def _spelled(tool: str, arguments: Args | None) -> tuple[str, Args] | None:
    return None if arguments is None else (tool, arguments)


def _size(size: Size) -> str:
    return f"{size.bytes:,} B / {size.tokens:,} tok"


def report(table: Table) -> str:
    """Two Markdown tables: what is read once per conversation, and what each answer costs."""
    head = "| | " + " | ".join(table.surfaces) + " |"
    rule = "|---|" + "---|" * len(table.surfaces)
    out = ["Read once per conversation (bytes / cl100k tokens):", "", head, rule]
    for title, sizes in table.lists.items():
        out.append(
            f"| {title} | "
            + " | ".join(_size(sizes[s]) if s in sizes else "n/a" for s in table.surfaces)
            + " |"
        )
    out += [
        "",
        "Read per answer, text content · structured content (bytes / tokens):",
        "",
        head,
        rule,
    ]
    for title, answers in table.answers.items():
        row = []
        for surface in table.surfaces:
            cell = answers.get(surface)
            row.append("n/a" if cell is None else f"{_size(cell[0])} · {_size(cell[1])}")
        out.append(f"| {title} | " + " | ".join(row) + " |")
    return "\n".join(out)


def sizes_report(peer: Path | None) -> str:
    """Both tables, measured on a private tmux server of their own (it grows to 200 panes,
    so it never shares one with the timed rows)."""
    tmux = TmuxServer.start()
    try:
        return report(measure(surfaces(tmux, peer), tmux))
    finally:
        tmux.kill()


def main(argv: Sequence[str] | None = None) -> None:
    doc = __doc__ or ""
    parser = argparse.ArgumentParser(
        prog="python -m scripts.bench.sizes", description=doc.splitlines()[0]
    )
    parser.add_argument("--peer-venv", type=Path, default=OUT / "peer-venv")
    parser.add_argument("--no-peer", action="store_true", help="measure our profiles only")
    args = parser.parse_args(argv)
    print(sizes_report(None if args.no_peer else ensure_peer(args.peer_venv)))


if __name__ == "__main__":
    main()
