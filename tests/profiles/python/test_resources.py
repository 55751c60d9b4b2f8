"""The python profile's resources, read by the real MCP client against a private tmux server.

Every resource template is filled with real ids, read, checked against its
result schema and compared with what the matching tool answers at that moment.
A missing target is -32602 (the SDK retired -32002), the message saying it is not found and naming it; a bad variable is
invalid params (-32602) naming it, and nothing runs in tmux (the server's
command hooks count). Completion offers live ids, names and indexes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import mcp.types as types
import pytest
from mcp.shared.exceptions import MCPError

from scripts.lab.client import Client, resource_contracts
from scripts.lab.tmuxserver import TmuxServer

pytestmark = pytest.mark.anyio

DEADLINE = 20.0  # only there to turn a hang into a failure
SPACED = "work space"  # a session name a URI must percent-encode
MARKER = "resource-marker-7f3"


def settle(server: TmuxServer, pane_id: str, text: str = "") -> None:
    """Wait until the pane's shell is at rest (and shows ``text``), so reads agree."""
    deadline = time.monotonic() + DEADLINE
    while not (
        server.tmux("capture-pane", "-p", "-t", pane_id).strip()
        and text in server.tmux("capture-pane", "-p", "-t", pane_id)
        and server.tmux("display-message", "-p", "-t", pane_id, "#{pane_current_command}") == "sh\n"
    ):
        assert time.monotonic() < deadline, f"the shell in {pane_id} did not settle"
        time.sleep(0.02)


@pytest.fixture(scope="module")
def shared() -> Iterator[TmuxServer]:
    """main (one pane, showing MARKER) and "work space" (two windows, the second split)."""
    server = TmuxServer.start()
    server.tmux("set-option", "-g", "automatic-rename", "off")
    server.tmux("new-session", "-d", "-s", SPACED, "-x", "120", "-y", "30")
    server.tmux("new-window", "-d", "-t", f"={SPACED}:")
    server.tmux("split-window", "-d", "-t", f"={SPACED}:1")
    main_pane = server.active_pane()
    server.tmux("send-keys", "-t", main_pane, f"echo {MARKER}", "Enter")
    for pane in server.lines("list-panes", "-a", "-F", "#{pane_id}"):
        settle(server, pane, MARKER if pane == main_pane else "")
    try:
        yield server
    finally:
        server.kill()


def pane_ids(server: TmuxServer) -> list[str]:
    return server.lines("list-panes", "-a", "-F", "#{pane_id}")


async def error_of(client: Client, uri: str) -> types.ErrorData:
    with pytest.raises(MCPError) as caught:
        await client.session.read_resource(uri)
    return caught.value.error


# --- listing ------------------------------------------------------------------------------


async def test_templates_list_advertises_each_resource_contract_exactly(
    python_client: Client,
) -> None:
    listed = await python_client.session.list_resource_templates()
    wire = {
        t.name: t.model_dump(mode="json", by_alias=True, exclude_none=True)
        for t in listed.resource_templates
    }
    expected = {name: r.advertised for name, r in resource_contracts("python").items()}
    assert wire == expected
    assert len(wire) == 6
    assert (await python_client.session.list_resources()).resources == []


# --- every resource, as its tool answers ------------------------------------------------------


async def test_sessions_resource_is_list_sessions_result(python_client: Client) -> None:
    read = await python_client.read("tmux://sessions", "get_sessions")
    tool = await python_client.ok("list_sessions")
    assert read == tool["result"]
    assert {row["session_name"] for row in read} == {"main", SPACED}


async def test_session_resource_is_get_session_info_plus_its_windows(python_client: Client) -> None:
    read = await python_client.read("tmux://sessions/work%20space", "get_session")
    info = await python_client.ok("get_session_info", {"session_name": SPACED})
    windows = await python_client.ok("list_windows", {"session_name": SPACED})
    assert read == {**info, "windows": windows["result"]}
    assert len(read["windows"]) == 2


async def test_session_windows_resource_is_list_windows_result(python_client: Client) -> None:
    read = await python_client.read("tmux://sessions/work%20space/windows", "get_session_windows")
    windows = await python_client.ok("list_windows", {"session_name": SPACED})
    assert read == windows["result"]
    assert [row["window_index"] for row in read] == ["0", "1"]


async def test_window_resource_is_get_window_info_plus_its_panes(python_client: Client) -> None:
    read = await python_client.read("tmux://sessions/work%20space/windows/1", "get_window")
    info = await python_client.ok("get_window_info", {"session_name": SPACED, "window_index": "1"})
    panes = await python_client.ok("list_panes", {"window_id": info["window_id"]})
    assert read == {**info, "panes": panes["result"]}
    assert len(read["panes"]) == 2


async def test_pane_resource_is_get_pane_info_result(
    python_client: Client, shared: TmuxServer
) -> None:
    for pane in pane_ids(shared):
        read = await python_client.read(f"tmux://panes/{pane}", "get_pane")
        assert read == await python_client.ok("get_pane_info", {"pane_id": pane})
        assert read["pane_id"] == pane


async def test_pane_content_resource_is_the_visible_screen(
    python_client: Client, shared: TmuxServer
) -> None:
    pane = shared.active_pane("main:0")
    text = await python_client.read(f"tmux://panes/{pane}/content", "get_pane_content")
    screen = await python_client.ok("capture_pane", {"pane_id": pane, "max_lines": None})
    assert text == screen["result"]
    assert MARKER in text
    assert text == shared.tmux("capture-pane", "-p", "-t", pane).rstrip("\n")


async def test_every_template_was_read_with_real_ids() -> None:
    """The reads above cover each advertised template once (kept in step with the contracts)."""
    covered = {
        "get_sessions",
        "get_session",
        "get_session_windows",
        "get_window",
        "get_pane",
        "get_pane_content",
    }
    assert covered == set(resource_contracts("python"))


async def test_socket_name_query_reads_another_tmux_server(
    python_client: Client, shared: TmuxServer
) -> None:
    other = TmuxServer.start(beside=shared)
    try:
        other.tmux("rename-session", "-t", "main", "elsewhere")
        read = await python_client.read(f"tmux://sessions?socket_name={other.name}", "get_sessions")
        assert [row["session_name"] for row in read] == ["elsewhere"]
        tool = await python_client.ok("list_sessions", {"socket_name": other.name})
        assert read == tool["result"]
    finally:
        other.kill()


async def test_a_pane_id_reads_the_same_bare_or_percent_encoded(
    python_client: Client, shared: TmuxServer
) -> None:
    """``%12`` is also a valid escape (byte 0x12); a bare id still names the pane."""
    pane = shared.active_pane("main:0")
    while int(pane[1:]) < 10:  # a two-digit id, the case an escape could swallow
        pane = shared.tmux("new-window", "-d", "-P", "-F", "#{pane_id}").strip()
    settle(shared, pane)
    encoded = "%25" + pane[1:]
    bare = await python_client.read(f"tmux://panes/{pane}", "get_pane")
    escaped = await python_client.read(f"tmux://panes/{encoded}", "get_pane")
    assert bare == escaped
    assert bare["pane_id"] == pane


# --- missing targets: resource not found ------------------------------------------------------


@pytest.mark.parametrize(
    ("uri", "named"),
    [
        ("tmux://panes/%9999", "%9999"),
        ("tmux://panes/%9999/content", "%9999"),
        ("tmux://sessions/nosuch", "'nosuch'"),
        ("tmux://sessions/nosuch/windows", "'nosuch'"),
        ("tmux://sessions/main/windows/42", "index 42"),
    ],
)
async def test_a_missing_target_is_resource_not_found_naming_it_and_the_socket(
    python_client: Client, shared: TmuxServer, uri: str, named: str
) -> None:
    error = await error_of(python_client, uri)
    assert error.code == types.INVALID_PARAMS
    assert error.message.startswith("Resource not found")
    assert named in error.message
    assert shared.name in error.message  # the socket it was looked for on
    assert error.data == {"uri": uri}


async def test_a_socket_without_a_server_is_resource_not_found_naming_it(
    python_client: Client,
) -> None:
    error = await error_of(python_client, "tmux://sessions?socket_name=nobody-here")
    assert error.code == types.INVALID_PARAMS
    assert error.message.startswith("Resource not found")
    assert "nobody-here" in error.message


async def test_a_uri_no_template_matches_is_resource_not_found_listing_the_templates(
    python_client: Client,
) -> None:
    error = await error_of(python_client, "tmux://panes/%1/contents")
    assert error.code == types.INVALID_PARAMS
    assert error.message.startswith("Resource not found")
    assert "tmux://panes/%1/contents" in error.message
    for resource in resource_contracts("python").values():
        assert resource.uri in error.message


# --- bad variables: invalid params, nothing run ---------------------------------------------


@pytest.mark.parametrize(
    ("uri", "variable"),
    [
        ("tmux://panes/abc", "pane_id"),
        ("tmux://panes/3/content", "pane_id"),
        ("tmux://sessions/main/windows/first", "window_index"),
        ("tmux://sessions?socket_name=a/b/c", "socket_name"),
        ("tmux://sessions?colour=red", "colour"),
        ("tmux://sessions?socket_name=x&socket_name=y", "socket_name"),
    ],
)
async def test_a_bad_variable_is_invalid_params_naming_it_and_runs_nothing(
    python_client: Client, shared: TmuxServer, uri: str, variable: str
) -> None:
    mark = shared.mark()
    error = await error_of(python_client, uri)
    assert error.code == -32602
    assert f"`{variable}`" in error.message
    shared.assert_nothing_sent_since(mark)
    await python_client.read("tmux://sessions", "get_sessions")  # the log does see a real read
    assert shared.sent_since(mark)


# --- completion ---------------------------------------------------------------------------------

PANE_TEMPLATE = "tmux://panes/{pane_id}{?socket_name}"
WINDOW_TEMPLATE = "tmux://sessions/{session_name}/windows/{window_index}{?socket_name}"


async def complete(
    client: Client,
    ref: types.ResourceTemplateReference | types.PromptReference,
    name: str,
    value: str,
    context: dict[str, str] | None = None,
) -> list[str]:
    result = await client.session.complete(ref, {"name": name, "value": value}, context)
    return list(result.completion.values)


def template(uri: str) -> types.ResourceTemplateReference:
    return types.ResourceTemplateReference(type="ref/resource", uri=uri)


async def test_pane_id_completes_to_the_live_panes_with_the_typed_prefix(
    python_client: Client, shared: TmuxServer
) -> None:
    live = pane_ids(shared)
    offered = await complete(python_client, template(PANE_TEMPLATE), "pane_id", "%")
    assert sorted(offered) == sorted(live)
    assert offered == sorted(live, key=lambda pane: int(pane[1:]))
    first = live[0][:2]
    narrowed = await complete(python_client, template(PANE_TEMPLATE), "pane_id", first)
    assert narrowed and all(pane.startswith(first) for pane in narrowed)
    assert set(narrowed) == {pane for pane in live if pane.startswith(first)}


async def test_session_name_completes_to_live_session_names(python_client: Client) -> None:
    ref = template("tmux://sessions/{session_name}{?socket_name}")
    assert await complete(python_client, ref, "session_name", "wo") == [SPACED]
    assert sorted(await complete(python_client, ref, "session_name", "")) == sorted(
        ["main", SPACED]
    )


async def test_window_index_completes_within_the_session_already_given(
    python_client: Client, shared: TmuxServer
) -> None:
    ref = template(WINDOW_TEMPLATE)
    assert await complete(python_client, ref, "window_index", "", {"session_name": SPACED}) == [
        "0",
        "1",
    ]
    assert await complete(python_client, ref, "window_index", "1", {"session_name": SPACED}) == [
        "1"
    ]
    main = shared.lines("list-windows", "-t", "=main", "-F", "#{window_index}")
    assert await complete(python_client, ref, "window_index", "", {"session_name": "main"}) == main
    everywhere = await complete(python_client, ref, "window_index", "")
    assert everywhere == sorted(set(main) | {"0", "1"}, key=int)


async def test_prompt_pane_id_completes_to_live_panes(
    python_client: Client, shared: TmuxServer
) -> None:
    ref = types.PromptReference(type="ref/prompt", name="run_and_wait")
    assert sorted(await complete(python_client, ref, "pane_id", "%")) == sorted(pane_ids(shared))
    assert await complete(python_client, ref, "command", "ec") == []  # a free-text argument


async def test_completion_on_a_socket_without_a_server_offers_nothing(
    python_client: Client,
) -> None:
    offered = await complete(
        python_client, template(PANE_TEMPLATE), "pane_id", "%", {"socket_name": "nobody-here"}
    )
    assert offered == []


@pytest.mark.parametrize(
    ("ref", "named"),
    [
        (types.PromptReference(type="ref/prompt", name="no_such_prompt"), "no_such_prompt"),
        (template("tmux://nothing/{x}"), "tmux://nothing/{x}"),
    ],
)
async def test_completion_for_an_unknown_reference_is_invalid_params(
    python_client: Client, ref: Any, named: str
) -> None:
    with pytest.raises(MCPError) as caught:
        await python_client.session.complete(ref, {"name": "pane_id", "value": ""})
    assert caught.value.error.code == -32602
    assert named in caught.value.error.message
