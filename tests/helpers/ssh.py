"""A lab tmux server reached through the lab sshd with the real tmux (nothing logged), and the
logins the sshd saw."""

from __future__ import annotations

from scripts.lab.sshd import SshServer
from scripts.lab.tmuxserver import TMUX, TmuxServer


def remote_env(tmux: TmuxServer, sshd: SshServer, target: str | None = None) -> dict[str, str]:
    """What a server under test needs to reach ``tmux`` through ``sshd``."""
    return {
        **tmux.env,
        "LIBTMUX_SOCKET_PATH": tmux.socket_path,
        "LIBTMUX_TMUX_BIN": TMUX,
        "TMUX_CONTRACT_MCP_SSH": target or sshd.target,
        "TMUX_CONTRACT_MCP_SSH_CONFIG": str(sshd.client_config),
    }


def logins(sshd: SshServer) -> int:
    return (sshd.tmpdir / "sshd.log").read_text().count("Accepted publickey")
