"""make soak: thousands of mixed calls to one server, and what its process holds before and after.

One server per profile runs over stdio (the real MCP client, scripts/lab) against a private
tmux server. Its resident memory is taken once it has started (initialized, no call made);
after a warm-up, the server's resident memory, open file descriptors, threads, child
processes and the tmux server's client count are taken; then the calls run, a few at a time,
in a fixed mix of reads, writes, waits that end quickly and batches (the resident memory
printed every tenth of the way); then the same figures are taken again. It exits non-zero
when a call fails or a figure grew past its bound (``Bounds``: resident memory in MiB and in
percent of the figure after warm-up): a leak shows as growth that repeats with every call.
``make soak SOAK_ARGS='--calls 100000'`` is the issue's soak (about 12 ms a call here).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio

from scripts.lab import processes
from scripts.lab.client import COMMAND, Client, error_text, open_client
from scripts.lab.tmuxserver import TmuxServer

PROFILES = ("python", "swift", "rust")


# --- what the process holds ---------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """The figures of one moment, none of them sampled while a call was in flight."""

    rss_kib: int
    fds: int
    threads: int
    children: tuple[str, ...]  # the command names of the server's child processes, sorted
    tmux_clients: int


@dataclass(frozen=True)
class Bounds:
    """How much a figure may grow from the snapshot after warm-up to the one at the end."""

    rss_growth_mib: float = 4.0
    rss_growth_pct: float = 5.0
    fd_growth: int = 0
    thread_growth: int = 0


def growth_pct(start_kib: int, end_kib: int) -> float:
    """How much resident memory grew, in percent of where it started."""
    return (end_kib - start_kib) / start_kib * 100 if start_kib else 0.0


def problems(start: Snapshot, end: Snapshot, bounds: Bounds) -> list[str]:
    """Every bound the end broke, in words; empty when the run stayed within them all."""
    found = []
    grown = (end.rss_kib - start.rss_kib) / 1024
    if grown > bounds.rss_growth_mib:
        found.append(f"resident memory grew {grown:.1f} MiB (bound {bounds.rss_growth_mib:g} MiB)")
    percent = growth_pct(start.rss_kib, end.rss_kib)
    if percent > bounds.rss_growth_pct:
        found.append(f"resident memory grew {percent:.1f} % (bound {bounds.rss_growth_pct:g} %)")
    if end.fds - start.fds > bounds.fd_growth:
        found.append(f"open file descriptors grew {start.fds} -> {end.fds}")
    if end.threads - start.threads > bounds.thread_growth:
        found.append(f"threads grew {start.threads} -> {end.threads}")
    if Counter(end.children) - Counter(start.children):
        found.append(f"child processes grew {list(start.children)} -> {list(end.children)}")
    if end.tmux_clients > start.tmux_clients:
        found.append(f"tmux clients grew {start.tmux_clients} -> {end.tmux_clients}")
    return found


def server_pid() -> int:
    """The installed command running as a child of this process (the client spawned it)."""
    for pid in processes.children(os.getpid()):
        if any(arg.endswith(os.path.basename(COMMAND)) for arg in processes.cmdline(pid)[:2]):
            return pid
    raise RuntimeError("the server process was not found among this process's children")


def settled(pid: int, tmux: TmuxServer, within: float = 3.0) -> Snapshot:
    """The figures once they hold still: a call's answer may come before the tmux process it
    started is reaped (a thread and a pipe's two descriptors, for a moment)."""
    deadline = time.monotonic() + within
    last = snapshot(pid, tmux)
    while time.monotonic() < deadline:
        time.sleep(0.1)
        now = snapshot(pid, tmux)
        if (now.fds, now.threads, now.children) == (last.fds, last.threads, last.children):
            return now
        last = now
    return last


def snapshot(pid: int, tmux: TmuxServer) -> Snapshot:
    rss_kib, fds, threads = processes.resources_of(pid)
    return Snapshot(
        rss_kib=rss_kib,
        fds=fds,
        threads=threads,
        children=tuple(sorted(processes.name_of(child) for child in processes.children(pid))),
        tmux_clients=len(tmux.lines("list-clients")),
    )


# --- the calls --------------------------------------------------------------------------------


@dataclass
class Layout:
    """The private tmux server: a window of three panes the calls go round."""

    window: str
    panes: list[str]
    cursors: dict[str, str] = field(default_factory=dict)  # capture_since's, per pane

    def pane(self, seq: int) -> str:
        return self.panes[seq % len(self.panes)]


def prepare(tmux: TmuxServer) -> Layout:
    window = tmux.tmux("new-window", "-d", "-P", "-F", "#{window_id}", "-t", "main:").strip()
    for _ in range(2):
        tmux.tmux("split-window", "-d", "-t", window)
    panes = tmux.lines("list-panes", "-t", window, "-F", "#{pane_id}")
    for pane in panes:
        tmux.wait_for_prompt(pane)
    return Layout(window, panes)


Arguments = dict[str, Any]


@dataclass(frozen=True)
class Step:
    """One call of the mix: its kind (for the report), its tool, and its arguments by seq."""

    kind: str
    tool: str
    build: Callable[[Layout, int], Arguments]
    after: Callable[[Layout, int, dict[str, Any]], None] | None = None


def python_mix() -> list[Step]:
    def batch(lay: Layout, seq: int) -> Arguments:
        ops: list[Arguments] = []
        for n in range(8):
            pane = lay.pane(seq + n)
            tool = ("list_panes", "get_pane_info", "capture_pane", "get_window_info")[n % 4]
            arguments = {"window_id": lay.window} if n % 4 in (0, 3) else {"pane_id": pane}
            ops.append({"tool": tool, "arguments": arguments})
        return {"operations": ops, "on_error": "stop"}

    return [
        Step("read", "list_sessions", lambda lay, seq: {}),
        Step(
            "write", "send_keys", lambda lay, s: {"pane_id": lay.pane(s), "keys": f"echo soak {s}"}
        ),
        Step("read", "list_panes", lambda lay, seq: {"window_id": lay.window}),
        Step(
            "wait",
            "wait_for_text",
            lambda lay, s: {"pane_id": lay.pane(s), "patterns": ["soak"], "timeout": 0.1},
        ),
        Step("read", "get_pane_info", lambda lay, seq: {"pane_id": lay.pane(seq)}),
        Step("batch", "call_read_tools_batch", batch),
        Step("read", "capture_pane", lambda lay, s: {"pane_id": lay.pane(s), "max_lines": 50}),
        Step(
            "write",
            "rename_window",
            lambda lay, s: {"window_id": lay.window, "new_name": f"w{s % 5}"},
        ),
        Step("read", "snapshot_pane", lambda lay, s: {"pane_id": lay.pane(s), "max_lines": 20}),
        Step(
            "wait",
            "wait_for_text",
            lambda lay, s: {"pane_id": lay.pane(s), "patterns": ["never printed"], "timeout": 0.05},
        ),
        Step(
            "write", "set_pane_title", lambda lay, s: {"pane_id": lay.pane(s), "title": f"t{s % 3}"}
        ),
        Step("read", "get_window_info", lambda lay, seq: {"window_id": lay.window}),
    ]


def swift_mix() -> list[Step]:
    def since(lay: Layout, seq: int) -> Arguments:
        pane = lay.pane(seq)
        cursor = lay.cursors.get(pane)
        return {"paneId": pane, "waitMs": 20, **({"cursor": cursor} if cursor else {})}

    def keep_cursor(lay: Layout, seq: int, result: dict[str, Any]) -> None:
        lay.cursors[lay.pane(seq)] = result["cursor"]

    def batch(lay: Layout, seq: int) -> Arguments:
        tools = ("capture_pane", "get_pane_info", "snapshot_pane", "capture_pane")
        return {
            "operations": [
                {"tool": tools[n % 4], "arguments": {"paneId": lay.pane(seq + n)}} for n in range(8)
            ],
            "onError": "stop",
        }

    return [
        Step("read", "list_sessions", lambda lay, seq: {}),
        Step("read", "list_panes", lambda lay, seq: {}),
        Step("wait", "capture_since", since, keep_cursor),
        Step("read", "get_pane_info", lambda lay, seq: {"paneId": lay.pane(seq)}),
        Step("batch", "call_read_tools_batch", batch),
        Step("read", "capture_pane", lambda lay, s: {"paneId": lay.pane(s), "maxLines": 50}),
        Step(
            "read",
            "get_tmux_variables",
            lambda lay, s: {"names": ["pane_id", "pane_width"], "paneId": lay.pane(s)},
        ),
        Step("read", "get_window_info", lambda lay, seq: {"windowId": lay.window}),
        Step("read", "search_panes", lambda lay, seq: {"pattern": "soak"}),
        Step("read", "snapshot_pane", lambda lay, s: {"paneId": lay.pane(s), "maxLines": 20}),
    ]


def rust_mix() -> list[Step]:
    return [
        Step("write", "select_pane", lambda lay, seq: {"pane": lay.pane(seq)}),
        Step("write", "select_pane", lambda lay, seq: {"pane": lay.pane(seq), "direction": "next"}),
    ]


MIXES: dict[str, Callable[[], list[Step]]] = {
    "python": python_mix,
    "swift": swift_mix,
    "rust": rust_mix,
}


Progress = Callable[[int], None]  # told how many calls are done, every tenth of the way


async def run_calls(
    client: Client,
    lay: Layout,
    mix: Sequence[Step],
    first: int,
    count: int,
    at_once: int,
    progress: Progress | None = None,
) -> Counter[str]:
    """``count`` calls of the mix from seq ``first``, ``at_once`` in flight at a time; a call
    that fails stops the run."""
    kinds: Counter[str] = Counter()
    tenth = max(count // 10, 1)

    async def one(seq: int) -> None:
        step = mix[seq % len(mix)]
        arguments = step.build(lay, seq)
        try:
            # The SDK's own check (the result against the output schema), not the lab's text
            # check, which a batch's one-line summary (swift) is not meant to pass.
            result = await client.session.call_tool(step.tool, arguments)
        except Exception as exc:
            raise RuntimeError(f"{step.tool} #{seq} {arguments}: {exc!r}") from exc
        if result.is_error:
            raise RuntimeError(f"{step.tool} #{seq} failed: {error_text(result)}")
        if step.after is not None:
            step.after(lay, seq, dict(result.structured_content or {}))
        kinds[step.kind] += 1

    for group in range(first, first + count, at_once):
        async with anyio.create_task_group() as tg:
            for seq in range(group, min(group + at_once, first + count)):
                tg.start_soon(one, seq)
        done = min(group + at_once, first + count) - first
        if progress is not None and done // tenth > (done - at_once) // tenth:
            progress(done)
    return kinds


# --- one run ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    profile: str
    calls: int
    seconds: float
    kinds: Counter[str]
    started_rss_kib: int  # once the server has started, before any call
    start: Snapshot
    end: Snapshot
    problems: list[str]


async def soak(profile: str, calls: int, warmup: int, at_once: int, bounds: Bounds) -> Run:
    tmux = TmuxServer.start()
    try:
        lay = prepare(tmux)
        env = {**tmux.env, "LIBTMUX_SOCKET": tmux.name}  # the real tmux: no logging wrapper
        async with open_client(env, profile) as client:
            pid = server_pid()
            started = processes.resources_of(pid)[0]
            mix = MIXES[profile]()
            await run_calls(client, lay, mix, 0, warmup, at_once)
            start = settled(pid, tmux)
            # Said now as well as in the report, so a run that stops early still shows them.
            print(
                f"  {profile}: RSS {started / 1024:.1f} MiB after start, "
                f"{start.rss_kib / 1024:.1f} MiB after {warmup} calls of warm-up",
                file=sys.stderr,
                flush=True,
            )
            began = time.monotonic()

            def progress(done: int) -> None:
                rss = processes.resources_of(pid)[0]
                print(
                    f"  {profile}: {done} calls in {time.monotonic() - began:.0f} s, RSS "
                    f"{rss / 1024:.1f} MiB ({growth_pct(start.rss_kib, rss):+.1f} %)",
                    file=sys.stderr,
                    flush=True,
                )

            kinds = await run_calls(client, lay, mix, warmup, calls, at_once, progress)
            seconds = time.monotonic() - began
            end = settled(pid, tmux)
        found = problems(start, end, bounds)
        return Run(profile, calls, seconds, kinds, started, start, end, found)
    finally:
        tmux.kill()


def report(run: Run) -> str:
    def row(name: str, started: object, start: object, end: object) -> str:
        return f"  {name:<16} {started!s:>14} {start!s:>14} {end!s:>14}"

    mix = ", ".join(f"{n} {kind}s" for kind, n in sorted(run.kinds.items()))
    s, e = run.start, run.end
    rss = [run.started_rss_kib, s.rss_kib, e.rss_kib]
    lines = [
        f"{run.profile}: {run.calls} calls in {run.seconds:.1f} s ({mix})",
        row("", "after start", "after warm-up", "at the end"),
        row("RSS (MiB)", *(f"{kib / 1024:.1f}" for kib in rss)),
        row("open fds", "", s.fds, e.fds),
        row("threads", "", s.threads, e.threads),
        row("children", "", ",".join(s.children) or "-", ",".join(e.children) or "-"),
        row("tmux clients", "", s.tmux_clients, e.tmux_clients),
        f"  RSS growth: {growth_pct(s.rss_kib, e.rss_kib):+.1f} % from warm-up to the end "
        f"({(e.rss_kib - s.rss_kib) / 1024:+.1f} MiB), "
        f"{growth_pct(run.started_rss_kib, e.rss_kib):+.1f} % from start",
    ]
    lines += [f"  FAIL: {problem}" for problem in run.problems] or ["  within bounds"]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make soak", description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000, help="calls per profile (3000)")
    parser.add_argument("--warmup", type=int, default=300, help="calls before the first figures")
    parser.add_argument("--at-once", type=int, default=8, help="calls in flight at a time (8)")
    parser.add_argument(
        "--profile", action="append", choices=PROFILES, help="a profile to soak (all by default)"
    )
    parser.add_argument("--max-rss-growth", type=float, default=Bounds.rss_growth_mib, help="MiB")
    parser.add_argument(
        "--max-rss-growth-pct",
        type=float,
        default=Bounds.rss_growth_pct,
        help="percent of the RSS after warm-up (5)",
    )
    args = parser.parse_args(argv)
    bounds = Bounds(rss_growth_mib=args.max_rss_growth, rss_growth_pct=args.max_rss_growth_pct)
    failed = False
    for profile in args.profile or PROFILES:
        gc.collect()
        run = anyio.run(soak, profile, args.calls, args.warmup, args.at_once, bounds)
        print(report(run), flush=True)
        failed = failed or bool(run.problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
