"""Every way a call can make tmux or a shell run something, as docs/safety.md
lists it: each test shows one of them running a marker command on a private tmux server.

The marker is a file that only the command under test creates; `sh` is the panes' shell.
"""

from __future__ import annotations

import shlex
import time
from pathlib import Path

import anyio
import pytest

from codegen.contract_file import METADATA_KEY
from scripts.lab.client import Client, contracts
from scripts.lab.tmuxserver import TmuxServer

pytestmark = pytest.mark.anyio

DEADLINE = 20.0
EVERY_TOOLSET = "inspect,manage,execute,teardown"
TOOLSETS = {name: c[METADATA_KEY]["toolset"] for name, c in contracts("python").items()}


@pytest.fixture(scope="module")
def python_env() -> dict[str, str]:
    return {"LIBTMUX_TOOLSETS": EVERY_TOOLSET}


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "ran"


def touch(marker: Path) -> str:
    return f"touch {shlex.quote(str(marker))}"


async def appears(path: Path) -> None:
    with anyio.fail_after(DEADLINE):
        while not path.exists():
            await anyio.sleep(0.02)


async def shell_pane(server: TmuxServer) -> str:
    """A new window's /bin/sh, once it shows its prompt."""
    pane = server.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:").strip()
    with anyio.fail_after(DEADLINE):
        while not server.tmux("capture-pane", "-p", "-t", pane).strip().endswith(("$", "#")):
            await anyio.sleep(0.02)
    return pane


def test_the_tools_named_here_are_in_the_toolsets_the_safety_page_gives() -> None:
    assert {TOOLSETS[t] for t in ("run_command", "send_keys", "send_keys_batch")} == {"execute"}
    assert {TOOLSETS[t] for t in ("paste_text", "paste_buffer", "split_window")} == {"execute"}
    assert {TOOLSETS[t] for t in ("respawn_pane", "set_option", "set_environment")} == {"execute"}
    assert {TOOLSETS[t] for t in ("pipe_pane", "create_session", "create_window")} == {"execute"}
    assert TOOLSETS["signal_channel"] == TOOLSETS["select_pane"] == "manage"
    assert TOOLSETS["display_message"] == "inspect"


async def test_send_keys_runs_a_line_when_it_presses_enter(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    pane = await shell_pane(shared)
    first, second = tmp_path / "with-enter", tmp_path / "key-name"
    await python_client.ok("send_keys", {"pane_id": pane, "keys": touch(first), "enter": True})
    await appears(first)
    await python_client.ok("send_keys", {"pane_id": pane, "keys": touch(second), "enter": False})
    await python_client.ok("send_keys", {"pane_id": pane, "keys": "Enter", "literal": False})
    await appears(second)


async def test_pasted_text_holding_a_newline_runs_at_a_shell_prompt(
    shared: TmuxServer, python_client: Client, marker: Path
) -> None:
    pane = await shell_pane(shared)  # sh does not turn bracketed paste on
    await python_client.ok("paste_text", {"pane_id": pane, "text": touch(marker) + "\n"})
    await appears(marker)


async def test_split_window_and_respawn_pane_run_their_shell_and_respawn_runs_it_again(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    command = f"echo ran >> {shlex.quote(str(log))}; exec sleep 60"
    split = await python_client.ok(
        "split_window", {"pane_id": shared.active_pane(), "shell": command}
    )
    await appears(log)
    await python_client.ok("respawn_pane", {"pane_id": split["pane_id"], "kill": True})
    with anyio.fail_after(DEADLINE):
        while log.read_text().count("ran") < 2:
            await anyio.sleep(0.02)
    shared.tmux("kill-pane", "-t", split["pane_id"])


async def test_set_option_can_install_a_hook_that_runs_a_shell_command(
    shared: TmuxServer, python_client: Client, marker: Path
) -> None:
    hook = {"option": "after-split-window", "value": f"run-shell '{touch(marker)}'"}
    await python_client.ok("set_option", {**hook, "global_": True})
    try:
        split = await python_client.ok("split_window", {"pane_id": shared.active_pane()})
        await appears(marker)
        shared.tmux("kill-pane", "-t", split["pane_id"])
    finally:
        shared.tmux("set-hook", "-gu", "after-split-window")


async def test_set_option_default_command_is_what_new_panes_run(
    shared: TmuxServer, python_client: Client, marker: Path
) -> None:
    option = {"option": "default-command", "value": f"{touch(marker)}; exec sh"}
    await python_client.ok("set_option", {**option, "global_": True})
    try:
        made = await python_client.ok("create_window", {"session_name": "main"})
        await appears(marker)
        assert made["window_id"].startswith("@")
    finally:
        shared.tmux("set-option", "-gu", "default-command")


async def test_set_option_status_left_runs_its_shell_command_for_a_client_drawing_it(
    shared: TmuxServer, python_client: Client, marker: Path
) -> None:
    # A real terminal client: another tmux server's pane running `tmux attach`.
    outer = TmuxServer.start(beside=shared)
    try:
        attach = f"env -u TMUX tmux -L {shared.name} attach -t main"
        outer.tmux("respawn-pane", "-k", "-t", "main:0", attach)
        with anyio.fail_after(DEADLINE):
            while not [
                c
                for c in shared.lines("list-clients", "-F", "#{client_flags}")
                if "control-mode" not in c
            ]:
                await anyio.sleep(0.05)
        await python_client.ok(
            "set_option", {"option": "status-left", "value": f"#({touch(marker)})", "global_": True}
        )
        await appears(marker)
    finally:
        shared.tmux("set-option", "-gu", "status-left")
        outer.kill()


async def test_set_environment_reaches_the_shells_of_new_panes(
    shared: TmuxServer, python_client: Client, tmp_path: Path
) -> None:
    out = tmp_path / "seen"
    await python_client.ok(
        "set_environment",
        {"name": "TCM_SEEN", "value": "from set_environment", "session_name": "main"},
    )
    try:
        shell = f'printf %s "$TCM_SEEN" > {shlex.quote(str(out))}; exec sleep 60'
        split = await python_client.ok(
            "split_window", {"pane_id": shared.active_pane(), "shell": shell}
        )
        await appears(out)
        with anyio.fail_after(DEADLINE):
            while out.read_text() != "from set_environment":
                await anyio.sleep(0.02)
        shared.tmux("kill-pane", "-t", split["pane_id"])
    finally:
        shared.tmux("set-environment", "-t", "main", "-u", "TCM_SEEN")


async def test_signal_channel_wakes_a_command_waiting_on_the_channel(
    shared: TmuxServer, python_client: Client, marker: Path
) -> None:
    channel = f"tcm-go-{time.monotonic_ns()}"
    shared.tmux("run-shell", "-b", f"tmux -L {shared.name} wait-for {channel} && {touch(marker)}")
    await anyio.sleep(0.3)
    assert not marker.exists()
    await python_client.ok("signal_channel", {"channel": channel})
    await appears(marker)


async def test_a_hook_the_user_set_runs_when_a_tool_triggers_it(
    shared: TmuxServer, python_client: Client, marker: Path
) -> None:
    split = shared.tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:0").strip()
    shared.tmux("set-hook", "-g", "after-select-pane", f"run-shell '{touch(marker)}'")
    try:
        await python_client.ok("select_pane", {"pane_id": split})
        await appears(marker)
    finally:
        shared.tmux("set-hook", "-gu", "after-select-pane")
        shared.tmux("kill-pane", "-t", split)
