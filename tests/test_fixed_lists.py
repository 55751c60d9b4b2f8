"""The lists a client asks for again are answered from the SDK's own first answer.

The tool, resource and prompt lists cannot change while the process runs, so the second
request of a protocol version gets the wire dict the SDK made for the first; the SDK's
handshake gate still sees every request it would refuse."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from mcp.server import Server
from mcp.server._otel import OpenTelemetryMiddleware
from opentelemetry import trace

from scripts.lab.client import COMMAND
from scripts.lab.tmuxserver import TmuxServer
from scripts.lab.wiresize import raw_server
from tmux_contract_mcp.middleware import FixedLists, install

MODERN = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


@dataclass
class Session:
    client_params: object | None


@dataclass
class Context:
    method: str
    protocol_version: str
    session: Session
    params: dict[str, Any] | None = None


@dataclass
class Next:
    """The rest of the chain: counts the requests that reach the SDK's own steps."""

    calls: int = 0
    answers: list[dict[str, Any]] = field(default_factory=list)

    async def __call__(self, ctx: Any) -> dict[str, Any]:
        self.calls += 1
        answer = {"tools": [{"name": f"t{self.calls}"}]}
        self.answers.append(answer)
        return answer


INITIALIZED = Session(client_params=object())


@pytest.mark.anyio
async def test_the_second_request_of_a_version_gets_the_first_answer_without_the_sdk() -> None:
    fixed, later = FixedLists(), Next()
    ctx = Context("tools/list", "2025-06-18", INITIALIZED)
    first = await fixed(ctx, later)  # type: ignore[arg-type]
    second = await fixed(ctx, later)  # type: ignore[arg-type]
    assert later.calls == 1 and first is second


@pytest.mark.anyio
async def test_each_protocol_version_and_list_has_its_own_answer() -> None:
    fixed, later = FixedLists(), Next()
    for method, version in (("tools/list", "2025-06-18"), ("tools/list", MODERN)):
        await fixed(Context(method, version, INITIALIZED), later)  # type: ignore[arg-type]
    await fixed(Context("prompts/list", "2025-06-18", INITIALIZED), later)  # type: ignore[arg-type]
    assert later.calls == 3


@pytest.mark.anyio
async def test_a_connection_not_initialized_still_meets_the_sdks_gate() -> None:
    fixed, later = FixedLists(), Next()
    await fixed(Context("tools/list", "2025-06-18", INITIALIZED), later)  # type: ignore[arg-type]
    fresh = Context("tools/list", "2025-06-18", Session(client_params=None))
    await fixed(fresh, later)  # type: ignore[arg-type]
    assert later.calls == 2


@pytest.mark.anyio
async def test_a_per_request_call_needs_no_handshake() -> None:
    fixed, later = FixedLists(), Next()
    ctx = Context("tools/list", MODERN, Session(client_params=None))
    await fixed(ctx, later)  # type: ignore[arg-type]
    await fixed(ctx, later)  # type: ignore[arg-type]
    assert later.calls == 1


@pytest.mark.anyio
async def test_a_paged_request_and_other_methods_go_the_sdks_way() -> None:
    fixed, later = FixedLists(), Next()
    paged = Context("tools/list", "2025-06-18", INITIALIZED, {"cursor": "next"})
    other = Context("tools/call", "2025-06-18", INITIALIZED)
    for ctx in (paged, paged, other, other):
        await fixed(ctx, later)  # type: ignore[arg-type]
    assert later.calls == 4


def test_the_span_middleware_stays_only_when_a_tracer_provider_is_configured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)
    plain: Server[Any] = Server("plain")
    install(plain)
    assert [type(m) for m in plain.middleware] == [FixedLists]
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: trace.NoOpTracerProvider())
    traced: Server[Any] = Server("traced")
    install(traced)
    assert [type(m) for m in traced.middleware] == [OpenTelemetryMiddleware, FixedLists]


def result_of(line: str) -> Any:
    return json.loads(line)["result"]


@pytest.mark.e2e
@pytest.mark.parametrize("profile", ["python", "rust", "swift"])
def test_every_answer_to_a_list_is_the_sdks_first_on_both_eras(
    tmux: TmuxServer, profile: str
) -> None:
    with raw_server([COMMAND, "--profile", profile], tmux.server_env()) as peer:
        for method in ("tools/list", "resources/list", "prompts/list"):
            first = peer.request(method)
            if "error" in json.loads(first):
                continue  # the profile serves no such list
            assert result_of(peer.request(method)) == result_of(first)
    with raw_server([COMMAND, "--profile", profile], tmux.server_env(), handshake=False) as peer:
        first = peer.request("tools/list", {"_meta": ENVELOPE})
        again = peer.request("tools/list", {"_meta": ENVELOPE})
        assert result_of(again) == result_of(first)
        assert result_of(first)["tools"]
