"""Hosts from a configuration file (docs/remote.md): ``list_servers`` across 1, 10 and 50
configured hosts, and a simple read on a remote host beside the same read here.

Every host is an ssh alias of the lab's sshd on 127.0.0.1 whose sessions see the private
tmux server's ``TMUX_TMPDIR``, so each host lists that server's socket. The python server is
built in this process and reached by the SDK's in-memory client (``open_in_process``), with
the configuration file as ``--config``; each row's first call (connecting every host) is
left out of its samples.
"""

from __future__ import annotations

import functools
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

from scripts.lab.client import Client, open_in_process
from scripts.lab.sshd import SshServer
from scripts.lab.tmuxserver import TMUX, TmuxServer

HOST_COUNTS = (1, 10, 50)
LIST_SECONDS = 60  # each host's limit: the rows measure hosts that answer


def config_for(sshd: SshServer, tmux: TmuxServer, count: int, folder: Path) -> Path:
    names = [f"bench-h{count}-{index}" for index in range(count)]
    for name in names:
        sshd.alias(name, {"TMUX_TMPDIR": str(tmux.tmpdir)})
    path = folder / f"hosts-{count}.toml"
    hosts = "".join(f'[hosts.{name}]\nssh = "{name}"\n' for name in names)
    path.write_text(hosts + f"[connections]\nlist_seconds = {LIST_SECONDS}\n")
    return path


async def samples(call: Callable[[], Awaitable[Any]], iterations: int) -> list[float]:
    await call()  # connects
    taken = []
    for _ in range(iterations):
        began = time.perf_counter()
        await call()
        taken.append((time.perf_counter() - began) * 1000)
    return taken


async def measure(tmux: TmuxServer, sshd: SshServer, iterations: int) -> dict[str, list[float]]:
    env = {
        **tmux.env,
        "LIBTMUX_SOCKET": tmux.name,
        "LIBTMUX_TMUX_BIN": TMUX,
        "TMUX_CONTRACT_MCP_SSH_CONFIG": str(sshd.client_config),
    }
    pane = tmux.new_session().pane
    rows: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="tcm-bench-hosts-") as folder:
        for count in HOST_COUNTS:
            config = config_for(sshd, tmux, count, Path(folder))
            async with open_in_process(env, "python", "--config", str(config)) as client:
                rows[f"list_servers, {count} host{'s' if count > 1 else ''}"] = await samples(
                    functools.partial(listed, client, count), max(3, iterations // count)
                )
                if count == 1:
                    here = {"pane_id": pane}
                    there = {"pane_id": pane, "socket_name": f"bench-h1-0/{tmux.name}"}
                    rows["capture_pane, here"] = await samples(
                        functools.partial(client.ok, "capture_pane", here), iterations
                    )
                    rows["capture_pane, on a host (ssh)"] = await samples(
                        functools.partial(client.ok, "capture_pane", there), iterations
                    )
    return rows


async def listed(client: Client, count: int) -> None:
    result = await client.ok("list_servers")
    alive = [row for row in result["result"] if "/" in (row["socket_name"] or "")]
    if len(alive) < count:
        raise RuntimeError(f"list_servers listed {len(alive)} of {count} hosts' servers")


def bench_hosts(tmux: TmuxServer, sshd: SshServer, iterations: int) -> str:
    """The rows as a markdown table (p50 and p90 in ms)."""
    rows = anyio.run(measure, tmux, sshd, iterations)
    out = ["## Hosts (--config)", "", "| row | n | p50 ms | p90 ms |", "| --- | --- | --- | --- |"]
    for name, taken in rows.items():
        p90 = statistics.quantiles(taken, n=10)[-1] if len(taken) > 1 else taken[0]
        out.append(f"| {name} | {len(taken)} | {statistics.median(taken):.1f} | {p90:.1f} |")
    return "\n".join(out)
