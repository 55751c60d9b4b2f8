"""The command with a configuration file naming hosts (docs/remote.md), stopped mid-wait on a
configured host by SIGTERM or by the end of its input: no ssh process of its own, no sshd
session and no tmux client of its own is left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from contextlib import ExitStack

import anyio
import pytest

from scripts.lab.client import COMMAND
from scripts.lab.sshd import SshServer, private_tmpdir, ssh_under
from scripts.lab.tmuxserver import TMUX, TmuxServer
from tests.helpers.tmux import echoing
from tests.helpers.tmux import tmux_clients as clients
from tests.helpers.waiting import eventually, showing, waiting_on
from tests.helpers.wire import INITIALIZE, INITIALIZED

pytestmark = pytest.mark.anyio

DEADLINE = 30.0


@pytest.mark.parametrize("stop", ["SIGTERM", "end of input"])
async def test_stopping_mid_wait_on_a_host_leaves_no_ssh_or_tmux_process_behind(
    shared: TmuxServer, stop: str
) -> None:
    with ExitStack() as stack:
        sshd = SshServer.start()  # its own: only this server's connections are on it
        stack.callback(sshd.kill)
        sshd.alias("build", {"TMUX_TMPDIR": str(shared.tmpdir)})
        made = shared.new_session(None, *echoing("before-the-stop"))
        await showing(shared, made.pane, "before-the-stop")
        others = set(clients(shared))
        tmp = stack.enter_context(private_tmpdir())
        config = tmp.parent / f"{tmp.name}.toml"
        config.write_text('[hosts.build]\nssh = "build"\n')
        stack.callback(config.unlink)
        env = {
            **os.environ,
            **shared.env,
            "LIBTMUX_TMUX_BIN": TMUX,
            "TMUX_CONTRACT_MCP_SSH_CONFIG": str(sshd.client_config),
            "TMPDIR": str(tmp),
        }
        env.pop("TMUX", None)
        server = subprocess.Popen(
            [COMMAND, "--profile", "python", "--config", str(config)],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert server.stdin is not None
        try:
            wait = {
                "pane_id": made.pane,
                "patterns": ["NEVER-PRINTED"],
                "timeout": 60,
                "socket_name": f"build/{shared.name}",
            }
            call = {"name": "wait_for_text", "arguments": wait}
            for message in (
                INITIALIZE,
                INITIALIZED,
                {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call},
            ):
                server.stdin.write(json.dumps(message).encode() + b"\n")
            server.stdin.flush()
            await waiting_on(shared, made.name)
            running = list(ssh_under(tmp).values())
            assert any("[mux]" in what for what in running), running  # the host's master
            if stop == "SIGTERM":
                server.send_signal(signal.SIGTERM)
            else:
                server.stdin.close()
            with anyio.fail_after(DEADLINE):
                status = await anyio.to_thread.run_sync(server.wait)
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
        assert server.stderr is not None
        said = server.stderr.read().decode()
        assert status == (128 + signal.SIGTERM if stop == "SIGTERM" else 0), said
        assert "Traceback" not in said
        await eventually(lambda: not ssh_under(tmp) and not sshd.session_pids(), "ssh to go")
        assert not any(tmp.iterdir())
        await eventually(lambda: set(clients(shared)) <= others, "the host's tmux clients to go")
