"""Live resources (issue 27): ``resources/subscribe`` on the python profile's resources,
``notifications/resources/updated`` pushed from tmux's own events, against a real tmux,
through the SDK's ``ClientSession`` (its ``message_handler`` keeps every update:
``scripts.lab.updates``).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import mcp.types as types
import pytest
from mcp.shared.exceptions import MCPError

from scripts.lab import processes
from scripts.lab.leftovers import leftovers
from scripts.lab.overssh import remote_env
from scripts.lab.sshd import SshServer
from scripts.lab.tmuxserver import TmuxServer
from scripts.lab.updates import Watching, open_watching_client

pytestmark = pytest.mark.anyio

QUIET = 1.0  # seconds in which nothing should happen


def own_session(tmux: TmuxServer, command: str | None = None) -> tuple[str, str]:
    """A detached 80x24 session of its own, its program running: (its name, its pane)."""
    made = tmux.new_session(None, *([command] if command else []), width=80, height=24)
    return made.name, made.pane


def content(pane: str) -> str:
    return f"tmux://panes/{pane}/content"


@asynccontextmanager
async def watching(env: dict[str, str]) -> AsyncIterator[Watching]:
    async with open_watching_client(env) as client:
        yield client


@pytest.fixture
async def watcher(shared: TmuxServer) -> AsyncIterator[Watching]:
    async with watching(shared.server_env()) as client:
        yield client


async def refused(client: Watching, uri: str) -> str:
    with pytest.raises(MCPError) as caught:
        await client.subscribe(uri)
    assert caught.value.error.code == types.INVALID_PARAMS
    return caught.value.error.message


def attached_clients_parent(tmux: TmuxServer) -> int:
    """The MCP server under test: the parent of the tmux clients attached to ``tmux``."""
    parents = {
        processes.parent_of(int(pid)) for pid in tmux.lines("list-clients", "-F", "#{client_pid}")
    }
    parents.discard(None)
    assert len(parents) == 1, parents
    pid = parents.pop()
    assert pid is not None
    return pid


# --- 1. the capability, what can be subscribed to, what is refused ------------------------


async def test_the_capability_is_advertised(watcher: Watching) -> None:
    assert watcher.initialized is not None
    resources = watcher.initialized.capabilities.resources
    assert resources is not None and resources.subscribe is True
    # The instructions tell the model to subscribe rather than poll.
    assert "resources/subscribe" in (watcher.initialized.instructions or "")


async def test_every_resource_naming_a_pane_and_every_list_can_be_subscribed_to(
    shared: TmuxServer, watcher: Watching
) -> None:
    session, pane = own_session(shared)
    index = shared.tmux("display-message", "-p", "-t", pane, "#{window_index}").strip()
    socket = f"?socket_name={shared.name}"
    uris = [
        content(pane),
        f"tmux://panes/{pane}",
        f"tmux://panes/{pane}/content{socket}",
        f"tmux://panes/{pane}{socket}",
        f"tmux://sessions/{session}/windows/{index}",
        f"tmux://sessions/{session}/windows",
        f"tmux://sessions/{session}",
        "tmux://sessions",
        f"tmux://sessions{socket}",
    ]
    for uri in uris:
        await watcher.subscribe(uri)
    for uri in uris:
        await watcher.unsubscribe(uri)


async def test_unknown_uris_and_missing_targets_are_refused_by_name(
    shared: TmuxServer, watcher: Watching
) -> None:
    before = shared.state()
    assert "tmux://nowhere/at/all" in await refused(watcher, "tmux://nowhere/at/all")
    message = await refused(watcher, content("%99999"))
    assert "%99999" in message and "Nothing was subscribed" in message
    message = await refused(watcher, "tmux://sessions/no-such-session")
    assert "no-such-session" in message
    message = await refused(watcher, "tmux://sessions/no-such-session/windows/0")
    assert "no-such-session" in message
    message = await refused(watcher, "tmux://panes/not-a-pane/content")
    assert "not-a-pane" in message
    assert shared.state() == before  # nothing else changed


# --- 2. updates follow output, promptly, coalesced, the last never lost -------------------


async def test_an_update_follows_a_print_promptly(shared: TmuxServer, watcher: Watching) -> None:
    _, pane = own_session(shared, "stty -echo; exec cat")
    uri = content(pane)
    await watcher.subscribe(uri)
    await watcher.updates.quiet(0.3)  # anything its start caused
    for n in range(8):
        since = len(watcher.updates.seen)
        shared.tmux("send-keys", "-t", pane, f"line {n}", "Enter")
        printed = time.monotonic()
        update = await watcher.updates.wait_for(uri, since, timeout=5)
        assert update.at - printed < 1.0  # the bench measures the latency itself
        await anyio.sleep(0.15)  # past the coalescing interval: each print has its own
    assert "line 7" in await watcher.read(uri, "get_pane_content")


# A flood, coalesced with its last output kept: on both eras and wires in test_eras.py.


async def test_the_interval_is_set_by_an_environment_variable(shared: TmuxServer) -> None:
    env = shared.server_env(TMUX_CONTRACT_MCP_UPDATE_INTERVAL_MS="600")
    async with watching(env) as client:
        script = "stty -echo; read go; for i in $(seq 1 30); do echo $i; sleep 0.05; done; exec cat"
        _, pane = own_session(shared, script)
        uri = content(pane)
        await client.subscribe(uri)
        await client.updates.quiet(0.3)
        since = len(client.updates.seen)
        shared.tmux("send-keys", "-t", pane, "Enter")  # 1.5 s of output
        await client.updates.quiet(2.5)
        updates = client.updates.of(uri, since)
        gaps = [b.at - a.at for a, b in itertools.pairwise(updates)]
        assert 2 <= len(updates) <= 5, updates
        assert all(gap >= 0.55 for gap in gaps), gaps
        assert "30" in (await client.read(uri, "get_pane_content")).split("\n")


# Lists updated as panes, windows and sessions come and go: on both eras and wires in
# test_eras.py.


# --- 3. a subscribed pane goes ------------------------------------------------------------


@pytest.mark.parametrize("how", ["kill-pane", "exit", "kill-window", "kill-session"])
async def test_a_pane_that_goes_gets_one_last_update_and_a_read_says_which_went(
    shared: TmuxServer, watcher: Watching, how: str
) -> None:
    session, pane = own_session(shared, "stty -echo; read line; exit 3")
    shared.tmux("split-window", "-d", "-t", pane)  # its window outlives it...
    shared.tmux("new-window", "-d", "-t", f"{session}:")  # ...and its session its window
    if how == "exit":
        shared.tmux("set-option", "-w", "-t", pane, "remain-on-exit", "on")
    uri = content(pane)
    await watcher.subscribe(uri)
    await watcher.updates.quiet(0.3)
    since = len(watcher.updates.seen)
    if how == "exit":
        shared.tmux("send-keys", "-t", pane, "bye", "Enter")
    elif how == "kill-pane":
        shared.tmux("kill-pane", "-t", pane)
    else:
        shared.tmux(how, "-t", pane)
    await watcher.updates.wait_for(uri, since, timeout=5)
    await watcher.updates.quiet(0.5)
    # The last update (one before it, at most, for the layout change the kill made).
    assert 1 <= len(watcher.updates.of(uri, since)) <= 2
    if how == "exit":  # remain-on-exit keeps the dead pane: it is still there to read
        # tmux writes "Pane is dead (status 3, ...)" there only when it learnt the exit
        # status before it saw the pane's terminal close; either way the read is tmux's.
        read = await watcher.read(uri, "get_pane_content")
        shown = shared.tmux("capture-pane", "-p", "-t", pane)
        assert read.strip("\n") == shown.strip("\n")
        assert shared.tmux("display-message", "-p", "-t", pane, "#{pane_dead}").strip() == "1"
        return
    with pytest.raises(MCPError) as caught:
        await watcher.read(uri, "get_pane_content")
    message = caught.value.error.message
    assert pane in message
    expected = {
        "kill-pane": "it was killed, or its program exited",
        "kill-window": "its window",
        "kill-session": "its session",
    }[how]
    assert expected in message, message
    # The subscription ended: unsubscribing is harmless, subscribing again is refused.
    await watcher.unsubscribe(uri)
    assert pane in await refused(watcher, uri)


async def test_the_tmux_server_going_ends_every_subscription(tmux: TmuxServer) -> None:
    _, pane = own_session(tmux)
    async with watching(tmux.server_env()) as client:
        uris = [content(pane), "tmux://sessions"]
        for uri in uris:
            await client.subscribe(uri)
        await client.updates.quiet(0.3)
        since = len(client.updates.seen)
        tmux.tmux("kill-server", check=False)
        for uri in uris:
            await client.updates.wait_for(uri, since, timeout=5)
        await client.updates.quiet(0.5)
        assert all(1 <= len(client.updates.of(uri, since)) <= 2 for uri in uris)
        with pytest.raises(MCPError) as caught:
            await client.read(content(pane), "get_pane_content")
        assert tmux.name in caught.value.error.message


async def test_over_ssh_it_works_the_same(shared: TmuxServer, sshd: SshServer) -> None:
    _, pane = own_session(shared, "stty -echo; exec cat")
    async with watching(remote_env(shared, sshd)) as client:
        uri = content(pane)
        await client.subscribe(uri)
        await client.updates.quiet(0.3)
        since = len(client.updates.seen)
        shared.tmux("send-keys", "-t", pane, "over ssh", "Enter")
        await client.updates.wait_for(uri, since, timeout=10)
        assert "over ssh" in await client.read(uri, "get_pane_content")
        since = len(client.updates.seen)
        shared.tmux("kill-pane", "-t", pane)
        await client.updates.wait_for(uri, since, timeout=10)
        with pytest.raises(MCPError) as caught:
            await client.read(uri, "get_pane_content")
        assert pane in caught.value.error.message


# --- 4. unsubscribe, EOF, one client for many panes, no timer ------------------------------


async def test_unsubscribe_stops_updates_at_once(shared: TmuxServer, watcher: Watching) -> None:
    script = "stty -echo; read go; while :; do echo tick; sleep 0.02; done"
    _, pane = own_session(shared, script)
    uri = content(pane)
    await watcher.subscribe(uri)
    shared.tmux("send-keys", "-t", pane, "Enter")
    since = len(watcher.updates.seen)
    await watcher.updates.wait_for(uri, since, timeout=5)
    await watcher.unsubscribe(uri)
    after = len(watcher.updates.seen)
    await watcher.updates.quiet(QUIET)
    assert watcher.updates.of(uri, after) == []
    shared.tmux("kill-pane", "-t", pane)


async def test_many_panes_of_one_session_cost_one_client(tmux: TmuxServer) -> None:
    session, first = own_session(tmux)
    window = tmux.tmux("display-message", "-p", "-t", first, "#{window_id}").strip()
    panes = [first]
    while len(panes) < 100:
        if len(panes) % 8 == 0:
            window = tmux.tmux("new-window", "-d", "-P", "-F", "#{window_id}", "-t", f"{session}:")
            window = window.strip()
            panes.append(tmux.tmux("display-message", "-p", "-t", window, "#{pane_id}").strip())
            continue
        tmux.tmux("select-layout", "-t", window, "tiled")
        split = tmux.tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", window)
        panes.append(split.strip())
    async with watching(tmux.server_env()) as client:
        await client.ok("list_sessions")  # the control transport's own client attaches
        before = tmux.lines("list-clients", "-F", "#{client_pid}")
        for pane in panes:
            await client.subscribe(content(pane))
        after = tmux.lines("list-clients", "-F", "#{client_pid}")
        assert len(after) - len(before) == 1, (before, after)  # one output client, shared
        since = len(client.updates.seen)
        tmux.tmux("send-keys", "-t", panes[57], "echo fifty-seven", "Enter")
        await client.updates.wait_for(content(panes[57]), since, timeout=5)


async def test_panes_of_two_sessions_cost_two_clients(tmux: TmuxServer) -> None:
    """tmux sends %output only to a client attached to the pane's session."""
    _, one = own_session(tmux)
    _, two = own_session(tmux)
    async with watching(tmux.server_env()) as client:
        await client.ok("list_sessions")
        before = tmux.lines("list-clients", "-F", "#{client_pid}")
        await client.subscribe(content(one))
        await client.subscribe(content(two))
        after = tmux.lines("list-clients", "-F", "#{client_pid}")
        assert len(after) - len(before) == 2, (before, after)
        await client.unsubscribe(content(one))
        await client.unsubscribe(content(two))
        deadline = time.monotonic() + 5
        while tmux.lines("list-clients", "-F", "#{client_pid}") != before:
            assert time.monotonic() < deadline, "an output client stayed"
            await anyio.sleep(0.05)


async def test_no_timer_polls_tmux_while_nothing_prints(tmux: TmuxServer) -> None:
    session, pane = own_session(tmux, "stty -echo; exec cat")
    async with watching(tmux.server_env()) as client:
        index = tmux.tmux("display-message", "-p", "-t", pane, "#{window_index}").strip()
        uris = [
            content(pane),
            f"tmux://panes/{pane}",
            f"tmux://sessions/{session}/windows/{index}",
            f"tmux://sessions/{session}",
            "tmux://sessions",
        ]
        for uri in uris:
            await client.subscribe(uri)
        tmux.tmux("send-keys", "-t", pane, "something", "Enter")
        await client.updates.wait_for(content(pane), timeout=5)
        await client.updates.quiet(0.5)  # the last interval ends, its update goes out
        mark = tmux.mark()
        quiet = await client.updates.quiet(2.5)  # longer than tmux's own 1 s format check
        tmux.assert_nothing_sent_since(mark, "while nothing printed")
        assert quiet == []


async def test_eof_with_subscriptions_open_leaves_nothing_in_tmux(tmux: TmuxServer) -> None:
    session, pane = own_session(tmux, "stty -echo; exec cat")
    hooks = tmux.tmux("show-hooks", "-g")
    mark = tmux.mark()
    async with watching(tmux.server_env()) as client:
        index = tmux.tmux("display-message", "-p", "-t", pane, "#{window_index}").strip()
        for uri in (
            content(pane),
            f"tmux://panes/{pane}",
            f"tmux://sessions/{session}/windows/{index}",
            "tmux://sessions",
        ):
            await client.subscribe(uri)
        owner = attached_clients_parent(tmux)
    # The context's end closed the server's stdin; it exits and lets every client go.
    deadline = time.monotonic() + 10
    while processes.alive(owner) or tmux.lines("list-clients", "-F", "#{client_pid}"):
        assert time.monotonic() < deadline, tmux.lines("list-clients")
        await anyio.sleep(0.05)
    assert leftovers(tmux, []) == []
    sent = tmux.sent_since(mark)
    commands = {item.command for item in sent}
    # Subscriptions live in the control client (refresh-client -B) and end with it; nothing
    # was ever left in tmux itself: no hook, no pipe, no option.
    assert "refresh-client" in commands
    assert not commands & {"set-hook", "pipe-pane", "set-option", "set", "setw"}, commands
    assert tmux.tmux("show-hooks", "-g") == hooks
    assert tmux.tmux("display-message", "-p", "-t", pane, "#{pane_pipe}").strip() == "0"
