"""The agents rows: wait_for_quiet's reaction after the last byte, and what watching
50 idle panes costs.

Run by ``make bench`` (``python -m scripts.bench.agents``), on a private tmux server,
against the installed command (python profile, the agents toolset on) over stdio.

- reaction: a wait_for_quiet call with ``quiet_seconds`` Q waits on a silent pane; once
  its output client has attached, one line is written straight to the pane's terminal
  (nothing typed); reaction = answer - that write - Q. p50 and p90 over the samples.
- idle cost: a wait_for_quiet on 50 silent panes of one session, which never come
  back quiet within the window (Q is longer than the timeout); once attached, the CPU
  time of the server process and its children (its tmux control clients) over a window,
  per second of wall time, and the tmux commands it sent meanwhile.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

from scripts.bench.waiting import print_marker
from scripts.lab.client import COMMAND
from scripts.lab.tmuxserver import TmuxServer

QUIET = 0.5
PANES = 50
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """CPU time of ``pid`` and of its children still running (utime + stime)."""
    total = 0
    for each in [pid, *children(pid)]:
        try:
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / TICK


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if int(stat[1]) == pid:
                found.append(int(entry.name))
    return found


class Peer:
    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [COMMAND, "--profile", "python"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            text=True,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self._in: IO[str] = self.process.stdin
        self._out: IO[str] = self.process.stdout
        self.ident = 0
        self.send(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench-agents", "version": "0"},
            },
        )
        self.receive()
        self._in.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        self._in.flush()

    def send(self, method: str, params: dict[str, Any]) -> None:
        self.ident += 1
        message = {"jsonrpc": "2.0", "id": self.ident, "method": method, "params": params}
        self._in.write(json.dumps(message) + "\n")
        self._in.flush()

    def receive(self) -> dict[str, Any]:
        while True:
            line = self._out.readline()
            if not line:
                raise EOFError("the server closed its output")
            message = json.loads(line)
            if message.get("id") == self.ident:
                return dict(message)

    def close(self) -> None:
        self._in.close()
        self.process.wait(timeout=15)


def attached(tmux: TmuxServer, session: str) -> bool:
    rows = tmux.lines("list-clients", "-F", "#{session_name} #{client_flags}")
    return any(row.startswith(f"{session} ") and "no-output" not in row for row in rows)


def until(check: Any, what: str, deadline: float = 15.0) -> None:
    end = time.monotonic() + deadline
    while not check():
        if time.monotonic() > end:
            raise TimeoutError(what)
        time.sleep(0.005)


def reaction(tmux: TmuxServer, peer: Peer, samples: int) -> list[float]:
    made = tmux.new_session(None, "sh", "-c", "stty -echo; exec sleep 3600")
    tty = tmux.tmux("display-message", "-p", "-t", made.pane, "#{pane_tty}").strip()
    found = []
    for n in range(samples):
        until(lambda: not attached(tmux, made.name), "the last wait's client to go")
        arguments = {"pane_ids": [made.pane], "quiet_seconds": QUIET, "timeout": 20}
        peer.send("tools/call", {"name": "wait_for_quiet", "arguments": arguments})
        until(lambda: attached(tmux, made.name), "the wait to attach")
        time.sleep(0.1)
        printed = time.perf_counter()
        print_marker(tty, f"last byte {n}")
        answer = peer.receive()
        answered = time.perf_counter()
        assert answer["result"]["structuredContent"]["panes"][0]["reason"] == "quiet", answer
        found.append(answered - printed - QUIET)
    return found


def idle_cost(tmux: TmuxServer, peer: Peer, window: float) -> tuple[float, int]:
    made = tmux.new_session(None, "sleep", "3600")
    panes = [made.pane]
    for _ in range(PANES - 1):
        panes.append(
            tmux.tmux(
                "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", f"{made.id}:", "sleep", "3600"
            ).strip()
        )
    arguments = {"pane_ids": panes, "mode": "all", "quiet_seconds": 1000, "timeout": window + 10}
    peer.send("tools/call", {"name": "wait_for_quiet", "arguments": arguments})
    until(lambda: attached(tmux, made.name), "the wait to attach")
    time.sleep(1.0)
    mark = tmux.mark()
    before, start = cpu_seconds(peer.process.pid), time.monotonic()
    time.sleep(window)
    used, took = cpu_seconds(peer.process.pid) - before, time.monotonic() - start
    sent = len([s for s in tmux.sent_since(mark) if s.reaches_a_server])
    peer.receive()
    return used / took, sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=30, help="reaction samples (30)")
    parser.add_argument("--window", type=float, default=10.0, help="idle window, seconds (10)")
    args = parser.parse_args()
    tmux = TmuxServer.start()
    try:
        env = tmux.server_env(
            LIBTMUX_TOOLSETS="inspect,manage,execute,agents", LIBTMUX_MCP_WAIT_MAX_SECONDS="60"
        )
        peer = Peer(env)
        try:
            found = reaction(tmux, peer, args.samples)
            cost, sent = idle_cost(tmux, peer, args.window)
        finally:
            peer.close()
    finally:
        tmux.kill()
    ms = sorted(x * 1000 for x in found)
    print("| agents row | value |")
    print("| --- | --- |")
    print(
        f"| wait_for_quiet reaction after quiet_seconds, p50 ({len(ms)} samples) | "
        f"{statistics.median(ms):.1f} ms |"
    )
    print(f"| wait_for_quiet reaction, p90 | {ms[int(len(ms) * 0.9) - 1]:.1f} ms |")
    print(
        f"| watching {PANES} idle panes: server CPU (with its tmux clients) | "
        f"{cost * 1000:.2f} ms per second |"
    )
    print(f"| watching {PANES} idle panes: tmux commands sent in {args.window:g} s | {sent} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
