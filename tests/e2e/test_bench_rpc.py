"""The bench's raw JSON-RPC client against the installed command: answers matched by id,
errors recognized (the client against a fake server: tests/scripts/test_bench_rpc.py)."""

from __future__ import annotations

from scripts.bench.rpc import RawClient
from scripts.lab.client import COMMAND
from scripts.lab.tmuxserver import TmuxServer


def test_against_the_real_server_answers_match_by_id_and_errors_are_recognized(
    tmux: TmuxServer,
) -> None:
    pane = tmux.tmux("display-message", "-p", "#{pane_id}").strip()
    with RawClient([COMMAND, "--profile", "python"], tmux.server_env()) as client:
        client.initialize()
        assert client.initialized["serverInfo"]["name"]
        ping = client.send("ping")
        info = client.call("get_pane_info", {"pane_id": pane})  # reads past the ping's answer
        assert client.skipped == 1
        assert info.error() is None and info.structured["pane_id"] == pane
        assert info.message["id"] == ping + 1 and info.elapsed_ns > 0
        missing = client.call("get_pane_info", {"pane_id": "%999"}).error()
        assert missing is not None and missing.startswith("tool error: ")
        unknown = client.request("no/such/method").error()
        assert unknown is not None and unknown.startswith("JSON-RPC error -32601")
        assert client.ping().error() is None
        listed = client.list_tools()
        assert "get_pane_info" in {tool["name"] for tool in listed.result["tools"]}
