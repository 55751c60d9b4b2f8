"""A lab tmux server reached through the lab sshd, as a server started with ``--ssh`` would.

The remote is this same machine, so the server under test names the tmux server's socket
by path (``LIBTMUX_SOCKET_PATH``). Its tmux binary on the remote side is a small script
that runs ``tmux-logged`` with that server's log, since ssh passes no variable of ours:
``TmuxServer.sent_since`` then sees a remote call's commands as it sees a local one's.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from scripts.lab.sentlog import LOGGED_TMUX
from scripts.lab.sshd import SshServer
from scripts.lab.tmuxserver import TMUX, TmuxServer


def logged_tmux(tmux: TmuxServer) -> Path:
    """The remote side's tmux for ``tmux``: ``tmux-logged`` writing to its log."""
    path = tmux.tmpdir / "tmux-over-ssh"
    if not path.exists():
        path.write_text(
            "#!/bin/sh\n"
            f"export TCM_REAL_TMUX={shlex.quote(TMUX)}\n"
            f"export TCM_TMUX_LOG={shlex.quote(str(tmux.sent_log))}\n"
            f'exec {shlex.quote(str(LOGGED_TMUX))} "$@"\n'
        )
        path.chmod(0o755)
    return path


def remote_env(tmux: TmuxServer, sshd: SshServer, **extra: str) -> dict[str, str]:
    """What a server under test needs to reach ``tmux`` through ``sshd`` (``extra`` added)."""
    return {
        **tmux.env,
        "LIBTMUX_SOCKET_PATH": tmux.socket_path,
        "LIBTMUX_TMUX_BIN": str(logged_tmux(tmux)),
        "TMUX_CONTRACT_MCP_SSH": sshd.target,
        "TMUX_CONTRACT_MCP_SSH_CONFIG": str(sshd.client_config),
        **extra,
    }
