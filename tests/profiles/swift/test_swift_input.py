"""The swift profile's input tools (send_keys, send_keys_batch, paste_text,
set_synchronize_panes) through the MCP client against real tmux: refs beside raw ids,
``literal``, ``force``, and the family's shapes. The checks themselves are the
shared core's, covered in depth by tests/profiles/rust/test_rust_input.py; here each shows
through the swift wire once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from scripts.lab.client import Client, open_in_process
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.family import echoing_split as split
from tests.helpers.family import echoing_window as echoing
from tests.helpers.family import make_dead_pane, until_screen_has
from tests.helpers.family import screen_rows as screen
from tests.helpers.family import typed_nothing_text as refused

pytestmark = pytest.mark.anyio


async def ref_of(client: Client, pane: str) -> str:
    return str((await client.ok("get_pane_info", {"paneId": pane}))["pane"]["ref"])


async def test_keys_by_name_or_literally_by_id_or_ref(
    shared: TmuxServer, swift_client: Client
) -> None:
    _, pane = echoing(shared)
    ref = await ref_of(swift_client, pane)
    sent = await swift_client.ok("send_keys", {"paneId": ref, "keys": ["junk", "C-u"]})
    assert sent == {
        "keys": ["junk", "C-u"],
        "pane": pane,
        "paneRef": ref,
        "resolvedPaneIds": [pane],
    }
    literal = ["C-c", " #{pane_id}"]
    await swift_client.ok(
        "send_keys", {"paneId": pane, "keys": literal, "literal": True, "enter": True}
    )
    shown = until_screen_has(shared, pane, "C-c #{pane_id}")
    assert not any("junk" in line for line in shown)
    message = await refused(
        shared, swift_client, "send_keys", {"paneId": pane, "keys": []}, looks=False
    )
    assert "`keys`" in message
    message = await refused(
        shared, swift_client, "send_keys", {"paneId": "%x", "keys": ["a"]}, looks=False
    )
    assert "`paneId`" in message


async def test_synchronized_window_by_ref_widens_send_keys_but_not_paste(
    shared: TmuxServer, swift_client: Client
) -> None:
    window_id, first = echoing(shared)
    second = split(shared, first)
    links = await swift_client.ok("get_window_info", {"windowId": window_id})
    window_ref = links["window"]["ref"]
    on = await swift_client.ok("set_synchronize_panes", {"windowId": window_ref, "enabled": True})
    assert on == {"enabled": True, "windowId": window_id}
    assert shared.tmux("show-options", "-wv", "-t", window_id, "synchronize-panes") == "on\n"

    sent = await swift_client.ok("send_keys", {"paneId": first, "keys": ["both", "Enter"]})
    assert sent["resolvedPaneIds"] == [first, second]
    until_screen_has(shared, first, "both")
    until_screen_has(shared, second, "both")

    text = "e\u0301\U0001f468\u200d\U0001f469\u200d\U0001f467 one"  # é, a family, a space, one
    pasted = await swift_client.ok("paste_text", {"paneId": second, "text": text, "enter": True})
    assert pasted["characters"] == 6 and pasted["pane"] == second
    until_screen_has(shared, second, text)
    assert text not in screen(shared, first)
    assert shared.tmux("list-buffers", "-F", "#{buffer_name}") == ""

    off = await swift_client.ok("set_synchronize_panes", {"windowId": window_id, "enabled": False})
    assert off == {"enabled": False, "windowId": window_id}
    assert (await swift_client.ok("send_keys", {"paneId": first, "keys": ["x"]}))[
        "resolvedPaneIds"
    ] == [first]


async def test_batch_reports_completed_failures_and_targets(
    shared: TmuxServer, swift_client: Client
) -> None:
    _, pane = echoing(shared)
    _, moded = echoing(shared)
    shared.tmux("copy-mode", "-t", moded)
    operations = [
        {"paneId": pane, "keys": ["a", "Enter"]},
        {"paneId": moded, "keys": ["b"]},
        {"paneId": pane, "keys": ["c", "Enter"]},
    ]
    stopped = await swift_client.ok("send_keys_batch", {"operations": operations})
    assert stopped["completed"] == 1 and stopped["targets"] == [
        {"index": 0, "resolvedPaneIds": [pane]}
    ]
    (failure,) = stopped["failures"]
    assert failure["index"] == 1 and "mode" in failure["reason"]
    until_screen_has(shared, pane, "a")
    assert "c" not in screen(shared, pane)
    went_on = await swift_client.ok(
        "send_keys_batch", {"operations": operations, "onError": "continue"}
    )
    assert went_on["completed"] == 2 and [t["index"] for t in went_on["targets"]] == [0, 2]
    until_screen_has(shared, pane, "c")
    for bad, field in (
        ([], "`operations`"),
        ([operations[0], {"paneId": pane, "keys": []}], "`operations[1].keys`"),
    ):
        message = await refused(
            shared, swift_client, "send_keys_batch", {"operations": bad}, looks=False
        )
        assert field in message


async def test_a_dead_pane_and_a_pane_in_copy_mode_are_refused_even_with_force(
    shared: TmuxServer, swift_client: Client
) -> None:
    dead = make_dead_pane(shared)
    message = await refused(
        shared, swift_client, "send_keys", {"paneId": dead, "keys": ["x"], "force": True}
    )
    assert "dead" in message and dead in message
    _, moded = echoing(shared)
    shared.tmux("copy-mode", "-t", moded)
    for tool, arguments in (
        ("send_keys", {"paneId": moded, "keys": ["q"], "force": True}),
        ("paste_text", {"paneId": moded, "text": ""}),
    ):
        assert "mode" in await refused(shared, swift_client, tool, arguments)


@pytest.fixture(scope="module")
async def inside(shared: TmuxServer) -> AsyncIterator[tuple[Client, str]]:
    """A swift server that believes it runs in a pane of the shared server: (client, pane)."""
    _, pane = echoing(shared)
    pid = shared.tmux("display-message", "-p", "#{pid}").strip()
    env = shared.server_env(
        LIBTMUX_TOOLSETS="inspect,manage,execute,teardown",
        TMUX=f"{shared.socket_path},{pid},0",
        TMUX_PANE=pane,
    )
    async with open_in_process(env, "swift") as client:
        yield client, pane


async def test_force_lifts_only_the_refusal_of_the_callers_own_pane(
    shared: TmuxServer, inside: tuple[Client, str]
) -> None:
    client, own = inside
    for tool, arguments in (
        ("send_keys", {"paneId": own, "keys": ["x"]}),
        ("paste_text", {"paneId": own, "text": "x"}),
        ("run_shell_command", {"paneId": own, "command": "true"}),
    ):
        message = await refused(shared, client, tool, arguments)
        assert "TMUX_PANE" in message and "force: true" in message
    # forced, run_shell_command passes the check and meets the next rule: no shell there
    message = await refused(
        shared, client, "run_shell_command", {"paneId": own, "command": "true", "force": True}
    )
    assert "not at the prompt" in message and "TMUX_PANE" not in message
    batch = await client.ok("send_keys_batch", {"operations": [{"paneId": own, "keys": ["x"]}]})
    assert batch["completed"] == 0 and "TMUX_PANE" in batch["failures"][0]["reason"]
    await client.ok("send_keys", {"paneId": own, "keys": ["forced", "Enter"], "force": True})
    until_screen_has(shared, own, "forced")
    await client.ok("paste_text", {"paneId": own, "text": "pasted", "enter": True, "force": True})
    until_screen_has(shared, own, "pasted")
