"""The benchmark's raw JSON-RPC client: an answer is the line that carries its id, whatever
comes before it, and an answer that is an error is told from a success. No time is
asserted: only that a sample was taken."""

from __future__ import annotations

import sys
import textwrap

import pytest

from scripts.bench.rpc import RawClient, Reply, RpcError

# A stand-in server: before each answer it writes an answer to another id, a notification
# and a request to the client; the answer to "fail" is a JSON-RPC error, to "tool_error" a
# result with isError; "quit" closes its output without answering.
FAKE = textwrap.dedent(
    """
    import json, sys
    out = sys.stdout
    def send(message):
        out.write(json.dumps(message) + "\\n")
        out.flush()
    for line in sys.stdin:
        request = json.loads(line)
        if "id" not in request or "method" not in request:
            continue  # a notification, or the client's answer to the server's request
        ident, method = request["id"], request.get("method")
        if method == "quit":
            break
        send({"jsonrpc": "2.0", "id": ident + 1000, "result": {}})
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"id": ident}})
        send({"jsonrpc": "2.0", "id": "s1", "method": "roots/list"})
        if method == "fail":
            send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "no"}})
        elif method == "tool_error":
            content = [{"type": "text", "text": "pane %9 not found"}]
            send({"jsonrpc": "2.0", "id": ident, "result": {"content": content, "isError": True}})
        else:
            send({"jsonrpc": "2.0", "id": ident, "result": {"echo": method}})
    """
)


def fake() -> RawClient:
    return RawClient([sys.executable, "-c", FAKE])


def test_the_answer_is_the_line_with_its_id_and_everything_before_it_is_read_past() -> None:
    with fake() as client:
        first = client.request("first")
        second = client.request("second")
    assert first.message == {"jsonrpc": "2.0", "id": 1, "result": {"echo": "first"}}
    assert second.result == {"echo": "second"} and second.error() is None
    assert first.elapsed_ns > 0 and second.elapsed_ns > 0
    assert first.raw == b'{"jsonrpc": "2.0", "id": 1, "result": {"echo": "first"}}'
    assert client.skipped == 6  # per request: another id, a notification, a request


def test_a_sent_request_is_received_later_by_its_id() -> None:
    with fake() as client:
        ident = client.send("later")
        stamp, raw, message = client.receive(ident)
    assert message["result"] == {"echo": "later"} and stamp > 0 and b'"later"' in raw


def test_a_json_rpc_error_and_a_tool_error_are_not_successes() -> None:
    with fake() as client:
        failed = client.request("fail")
        tool = client.request("tool_error")
    assert failed.error() == "JSON-RPC error -32601: no"
    assert tool.error() == "tool error: pane %9 not found"


def test_a_server_that_closes_its_output_is_an_rpc_error() -> None:
    with fake() as client, pytest.raises(RpcError, match="closed its output"):
        client.request("quit")


def test_a_reply_without_result_or_error_is_no_success() -> None:
    assert Reply(1, b"{}", {"jsonrpc": "2.0", "id": 1}).error() is not None
