"""Every bad swift setting stops the command at startup in one line and touches no tmux (the
settings themselves: tests/profiles/swift/test_swift_config.py)."""

from __future__ import annotations

import subprocess

from scripts.lab.client import COMMAND
from scripts.lab.tmuxserver import TmuxServer


def start_command(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [COMMAND, "--profile", "swift"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env,
        timeout=60,
    )


def test_every_bad_setting_is_named_on_one_line_and_tmux_is_not_touched(
    tmux: TmuxServer,
) -> None:
    mark = tmux.mark()
    env = tmux.server_env(
        LIBTMUX_SOCKET_PATH="relative/socket",
        LIBTMUX_TMUX_CONFIG="tmux.conf",
        LIBTMUX_SAFETY="readonly",
        LIBTMUX_MCP_TOOLS="list_panes",
        LIBTMUX_TMUX_CONF="/etc/tmux.conf",
        LIBTMUX_EXCLUDE_TOOLS="list_panes,,search_panes",
    )
    done = start_command(env)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith("tmux-contract-mcp: ")
    for said in (
        "set only one of LIBTMUX_SOCKET_PATH and LIBTMUX_SOCKET",
        "LIBTMUX_SOCKET_PATH must be an absolute path",
        "LIBTMUX_TMUX_CONFIG must be an absolute path",
        "LIBTMUX_SAFETY is retired; use LIBTMUX_TOOLSETS, LIBTMUX_TOOLS and LIBTMUX_EXCLUDE_TOOLS",
        "LIBTMUX_MCP_TOOLS is retired",
        "LIBTMUX_TMUX_CONF is retired; use LIBTMUX_TMUX_CONFIG",
        "LIBTMUX_EXCLUDE_TOOLS contains an empty token",
    ):
        assert said in line, said
    tmux.assert_nothing_sent_since(mark)
