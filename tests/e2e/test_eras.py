"""Every feature on both protocol eras, over stdio and over HTTP (``tests/helpers/eras.py``):
the SDK's ``Client`` in ``mode="legacy"`` (2025-11-25) and ``mode="auto"`` (2026-07-28)
against the installed command, python profile. Tools, resources and templates, prompts and
completion; logging (``logging/setLevel`` on the handshake era, the per-request level on
2026-07-28); live panes (``resources/subscribe`` on the handshake era, a
``subscriptions/listen`` stream on 2026-07-28, fed by the same topics: the same coalescing,
the same last update when a pane goes, nothing left in tmux when the session or stream ends).
Progress and cancellation run in this matrix for every profile in ``test_http.py``.

``server/discover`` and ``initialize`` advertise the same capabilities on every profile, and
each one advertised is exercised on each era.
"""

from __future__ import annotations

import itertools
import json
import math
import time
import warnings
from collections.abc import Iterator
from typing import Any

import anyio
import mcp.types as types
import pytest
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.client.client import Client as SdkClient
from mcp.client.session import LoggingFnT
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from scripts.lab.httpserver import HttpServer
from scripts.lab.tmuxserver import TmuxServer
from scripts.lab.updates import Updates
from tests.helpers.eras import MATRIX, VERSIONS, era_client, watch
from tests.helpers.tmux import output_clients
from tests.helpers.waiting import eventually
from tmux_contract_mcp.profiles import PROFILES

pytestmark = pytest.mark.anyio

DEADLINE = 20.0  # only there to turn a hang into a failure
Lines = MemoryObjectReceiveStream[types.LoggingMessageNotificationParams]


@pytest.fixture(scope="module")
def http(shared: TmuxServer) -> Iterator[HttpServer]:
    """One ``--http`` server for the module's HTTP cells."""
    with HttpServer.running(shared.server_env(), "python") as server:
        yield server


def cat_pane(tmux: TmuxServer, command: str = "stty -echo; exec cat") -> str:
    return tmux.new_session(None, "sh", "-c", command, width=80, height=24).pane


def content(pane: str) -> str:
    return f"tmux://panes/{pane}/content"


def text_of(result: types.ReadResourceResult) -> str:
    (first,) = result.contents
    assert isinstance(first, types.TextResourceContents)
    return first.text


# --- tools, resources, prompts, completion --------------------------------------------------


@pytest.mark.parametrize(("era", "wire"), MATRIX)
async def test_a_tool_answers_with_structured_content_and_a_bad_call_with_an_error(
    shared: TmuxServer, http: HttpServer, era: str, wire: str
) -> None:
    async with era_client(era, wire, shared.server_env(), http) as sdk:
        listed = await sdk.list_tools()
        assert "list_sessions" in {tool.name for tool in listed.tools}
        result = await sdk.call_tool("list_sessions", {})
        assert not result.is_error
        assert result.structured_content is not None
        assert "main" in {row["session_name"] for row in result.structured_content["result"]}
        mark = shared.mark()
        refused = await sdk.call_tool("get_pane_info", {"pane_id": "not-a-pane"})
        assert refused.is_error
        assert "pane_id" in str(refused.content[0])
        shared.assert_nothing_sent_since(mark, "for a refused argument")
        with pytest.raises(MCPError) as caught:
            await sdk.call_tool("no_such_tool", {})
        assert "no_such_tool" in caught.value.error.message


@pytest.mark.parametrize(("era", "wire"), MATRIX)
async def test_resources_templates_prompts_and_completion_answer(
    shared: TmuxServer, http: HttpServer, era: str, wire: str
) -> None:
    pane = cat_pane(shared)
    shared.tmux("send-keys", "-t", pane, "-l", "hello eras")
    shared.tmux("send-keys", "-t", pane, "Enter")
    async with era_client(era, wire, shared.server_env(), http) as sdk:
        templates = await sdk.list_resource_templates()
        template = next(t for t in templates.resource_templates if "/content{" in t.uri_template)
        assert "{pane_id}" in template.uri_template
        await sdk.list_resources()
        assert "main" in text_of(await sdk.read_resource("tmux://sessions"))
        await eventually(
            lambda: "hello eras" in shared.tmux("capture-pane", "-p", "-t", pane), "the echo"
        )
        assert "hello eras" in text_of(await sdk.read_resource(content(pane)))
        prompts = await sdk.list_prompts()
        assert "run_and_wait" in {prompt.name for prompt in prompts.prompts}
        got = await sdk.get_prompt("run_and_wait", {"command": "make test", "pane_id": pane})
        assert "make test" in str(got.messages[0].content)
        ref = types.ResourceTemplateReference(type="ref/resource", uri=template.uri_template)
        completed = await sdk.complete(ref, {"name": "pane_id", "value": "%"})
        assert pane in completed.completion.values


# --- logging ------------------------------------------------------------------------------


def lines_stream() -> tuple[Lines, LoggingFnT]:
    send, lines = anyio.create_memory_object_stream[types.LoggingMessageNotificationParams](
        math.inf
    )

    async def received(params: types.LoggingMessageNotificationParams) -> None:
        await send.send(params)

    return lines, received


async def an_error_line(sdk: SdkClient, lines: Lines) -> types.LoggingMessageNotificationParams:
    """Make an error answer (logged at info) until its line arrives: over HTTP on the
    handshake era, lines travel on the session's GET stream, which opens a moment later."""
    with anyio.fail_after(DEADLINE):
        while True:
            await sdk.call_tool("list_sessions", {"no_such_argument": 1})
            with anyio.move_on_after(0.5):
                return await lines.receive()


@pytest.mark.parametrize(("era", "wire"), MATRIX)
async def test_log_lines_reach_a_client_that_asked_and_no_other(
    shared: TmuxServer, http: HttpServer, era: str, wire: str
) -> None:
    env = shared.server_env()
    silent_lines, silent_received = lines_stream()
    async with era_client(era, wire, env, http, logging_callback=silent_received) as silent:
        await silent.call_tool("list_sessions", {"no_such_argument": 1})
        await silent.call_tool("list_sessions", {})
        await anyio.sleep(0.5)
    lines, received = lines_stream()
    level: types.LoggingLevel | None = "info" if era == "auto" else None
    async with era_client(era, wire, env, http, logging_callback=received, log_level=level) as sdk:
        if era == "legacy":  # the handshake era asks once, for the session
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await sdk.set_logging_level("info")
        line = await an_error_line(sdk, lines)
        assert line.level == "info"
        assert "list_sessions answered with an error" in str(line.data)
        await sdk.call_tool("list_sessions", {})  # a debug line: below the level asked for
        await sdk.call_tool("list_sessions", {"no_such_argument": 2})
        with anyio.fail_after(DEADLINE):
            following = await lines.receive()
        assert following.level == "info", following
    # A client that never asked (no setLevel; no level on its requests) got no line.
    assert silent_lines.statistics().current_buffer_used == 0


# --- live panes ---------------------------------------------------------------------------


@pytest.mark.parametrize(("era", "wire"), MATRIX)
async def test_a_print_is_announced_and_a_flood_coalesced_with_its_last_output_kept(
    shared: TmuxServer, http: HttpServer, era: str, wire: str
) -> None:
    pane = cat_pane(shared, "stty -echo; read go; seq 1 30000; echo flood-done; exec cat")
    uri = content(pane)
    updates = Updates()
    async with (
        era_client(era, wire, shared.server_env(), http, updates=updates) as sdk,
        watch(sdk, updates, [uri]),
    ):
        await updates.quiet(0.3)
        since = len(updates.seen)
        started = time.monotonic()
        shared.tmux("send-keys", "-t", pane, "Enter")
        await updates.wait_for(uri, since)
        deadline = time.monotonic() + 60
        while "flood-done" not in shared.tmux("capture-pane", "-p", "-t", pane):
            assert time.monotonic() < deadline
            await anyio.sleep(0.05)
        ended = time.monotonic()
        await updates.quiet(0.5)  # the final update, after the last interval
        seen = updates.of(uri, since)
        # At most one per 100 ms, the first at once, the final one after the flood.
        assert len(seen) <= (ended - started) / 0.1 + 3, len(seen)
        gaps = [b.at - a.at for a, b in itertools.pairwise(seen)]
        assert all(gap >= 0.05 for gap in gaps), gaps
        assert seen[-1].at >= ended - 0.15
        text = text_of(await sdk.read_resource(uri))
        assert text.rstrip("\n").split("\n")[-1] == "flood-done"


@pytest.mark.parametrize(("era", "wire"), MATRIX)
async def test_a_pane_that_goes_gets_its_last_update_and_nothing_stays_in_tmux(
    shared: TmuxServer, http: HttpServer, era: str, wire: str
) -> None:
    pane = cat_pane(shared)
    gone = cat_pane(shared)
    updates = Updates()
    hooks = shared.tmux("show-hooks", "-g")
    mark = shared.mark()
    async with era_client(era, wire, shared.server_env(), http, updates=updates) as sdk:
        async with watch(sdk, updates, [content(pane), content(gone)]):
            assert output_clients(shared)  # the topics' watch holds an output client
            await updates.quiet(0.3)
            since = len(updates.seen)
            shared.tmux("kill-pane", "-t", gone)
            await updates.wait_for(content(gone), since)
            await updates.quiet(0.5)
            # The last update (one before it, at most, for the layout change the kill made).
            assert 1 <= len(updates.of(content(gone), since)) <= 2
            with pytest.raises(MCPError) as caught:
                await sdk.read_resource(content(gone))
            assert gone in caught.value.error.message
        # Unsubscribed, or the stream closed: the watch lets go while the client stays.
        await eventually(lambda: not output_clients(shared), "the watch's client to go")
        after = shared.mark()
        shared.tmux("send-keys", "-t", pane, "-l", "unwatched")
        shared.tmux("send-keys", "-t", pane, "Enter")
        await anyio.sleep(0.5)
        assert updates.of(content(pane), since) == []
        shared.assert_nothing_sent_since(after, "once nothing is watched")
    commands = {item.command for item in shared.sent_since(mark)}
    # Watches live in a control client and end with it: nothing was ever left in tmux.
    assert not commands & {"set-hook", "pipe-pane", "set-option", "set", "setw"}, commands
    assert shared.tmux("show-hooks", "-g") == hooks
    assert shared.tmux("display-message", "-p", "-t", pane, "#{pane_pipe}").strip() == "0"


@pytest.mark.parametrize(("era", "wire"), MATRIX)
async def test_lists_are_updated_when_panes_windows_and_sessions_come_and_go(
    shared: TmuxServer, http: HttpServer, era: str, wire: str
) -> None:
    session = shared.new_session(None, width=80, height=24).name
    index = shared.tmux("display-message", "-p", "-t", f"{session}:", "#{window_index}").strip()
    windows = f"tmux://sessions/{session}/windows"
    window = f"{windows}/{index}"
    lists = ["tmux://sessions", f"tmux://sessions/{session}", windows, window]
    updates = Updates()
    async with (
        era_client(era, wire, shared.server_env(), http, updates=updates) as sdk,
        watch(sdk, updates, lists),
    ):
        await updates.quiet(0.3)
        since = len(updates.seen)
        shared.tmux("split-window", "-d", "-t", f"{session}:")  # a pane comes: the layout
        await updates.wait_for(windows, since)
        await updates.wait_for(window, since)
        assert len((await read_json(sdk, window))["panes"]) == 2
        since = len(updates.seen)
        added = shared.tmux("new-window", "-d", "-P", "-F", "#{window_id}", "-t", f"{session}:")
        for uri in ("tmux://sessions", f"tmux://sessions/{session}", windows):
            await updates.wait_for(uri, since)
        since = len(updates.seen)
        shared.tmux("kill-window", "-t", added.strip())
        for uri in ("tmux://sessions", f"tmux://sessions/{session}", windows):
            await updates.wait_for(uri, since)
        since = len(updates.seen)
        other = shared.new_session(None, width=80, height=24).name
        await updates.wait_for("tmux://sessions", since)
        names = [row["session_name"] for row in await read_json(sdk, "tmux://sessions")]
        assert other in names


@pytest.mark.parametrize("wire", ["stdio", "http"])
async def test_a_stream_asking_for_list_changes_is_acknowledged_and_gets_none(
    shared: TmuxServer, http: HttpServer, wire: str
) -> None:
    """No list of this server changes while it runs (no ``listChanged`` is advertised);
    panes coming and going update the list resources instead."""
    async with era_client("auto", wire, shared.server_env(), http) as sdk:
        assert sdk.server_capabilities.resources is not None
        assert not sdk.server_capabilities.resources.list_changed
        async with sdk.listen(resources_list_changed=True) as sub:
            assert sub.honored.resources_list_changed is True
            made = shared.new_session(None, width=80, height=24)
            shared.tmux("split-window", "-d", "-t", made.pane)
            shared.tmux("kill-session", "-t", made.name)
            with anyio.move_on_after(1.0) as waited:
                event = await sub.__anext__()
                raise AssertionError(f"an event on a list-changes stream: {event}")
            assert waited.cancelled_caught


async def read_json(sdk: SdkClient, uri: str) -> Any:
    return json.loads(text_of(await sdk.read_resource(uri)))


@pytest.mark.parametrize(("era", "wire"), MATRIX)
async def test_watching_a_missing_pane_is_refused_by_name(
    shared: TmuxServer, http: HttpServer, era: str, wire: str
) -> None:
    updates = Updates()
    async with era_client(era, wire, shared.server_env(), http, updates=updates) as sdk:
        mark = shared.mark()
        with pytest.raises(MCPError) as caught:
            async with watch(sdk, updates, [content("%9999")]):
                pass
        assert "%9999" in caught.value.error.message
        assert caught.value.error.code == types.INVALID_PARAMS
        assert not output_clients(shared)
        commands = {item.command for item in shared.sent_since(mark)}
        assert not commands & {"set-hook", "pipe-pane", "refresh-client"}, commands


# --- one set of capabilities, each one working ------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
async def test_discover_and_initialize_advertise_the_same_capabilities_and_each_works(
    shared: TmuxServer, profile: str
) -> None:
    env = shared.server_env()
    advertised: dict[str, types.ServerCapabilities] = {}
    for era in ("legacy", "auto"):
        updates = Updates()
        lines, received = lines_stream()
        level: types.LoggingLevel | None = "info" if era == "auto" else None
        async with era_client(
            era, "stdio", env, None, profile, updates=updates,
            logging_callback=received, log_level=level,
        ) as sdk:  # fmt: skip
            caps = advertised[era] = sdk.server_capabilities
            await exercise(sdk, caps, shared, updates, lines)
    assert advertised["legacy"] == advertised["auto"]
    assert advertised["legacy"].tools is not None


async def exercise(
    sdk: SdkClient,
    caps: types.ServerCapabilities,
    shared: TmuxServer,
    updates: Updates,
    lines: Lines,
) -> None:
    """Use every capability ``caps`` advertises, on ``sdk``'s era."""
    era = "legacy" if sdk.protocol_version == VERSIONS["legacy"] else "auto"
    # No list ever changes while the server runs: nothing to announce on either era.
    for part in (caps.tools, caps.prompts, caps.resources):
        assert part is None or not part.list_changed, caps
    pane = cat_pane(shared)
    if caps.tools is not None:
        result = await sdk.call_tool("list_sessions", {})
        assert not result.is_error and result.structured_content is not None
    if caps.resources is not None:
        resources = await sdk.list_resources()
        templates = await sdk.list_resource_templates()
        uri = next(
            (r.uri for r in resources.resources),
            "tmux://sessions"
            if any("{pane_id}" in t.uri_template for t in templates.resource_templates)
            else "tmux://capabilities",
        )
        assert text_of(await sdk.read_resource(str(uri)))
        if caps.resources.subscribe:
            async with watch(sdk, updates, [content(pane)]):
                shared.tmux("send-keys", "-t", pane, "-l", "seen")
                shared.tmux("send-keys", "-t", pane, "Enter")
                await updates.wait_for(content(pane))
    if caps.prompts is not None:
        prompts = await sdk.list_prompts()
        prompt = prompts.prompts[0]
        arguments = {
            a.name: pane if "pane" in a.name else "echo hi"
            for a in prompt.arguments or []
            if a.required
        }
        assert (await sdk.get_prompt(prompt.name, arguments)).messages
    if caps.completions is not None:
        templates = await sdk.list_resource_templates()
        template = next(t for t in templates.resource_templates if "{pane_id}" in t.uri_template)
        ref = types.ResourceTemplateReference(type="ref/resource", uri=template.uri_template)
        completed = await sdk.complete(ref, {"name": "pane_id", "value": "%"})
        assert pane in completed.completion.values
    if caps.logging is not None:
        if era == "legacy":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await sdk.set_logging_level("info")
        line = await an_error_line(sdk, lines)
        assert line.level == "info"
