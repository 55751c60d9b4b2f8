"""The bench's hosts rows (scripts/bench/hosts.py): the configuration it writes names as many
hosts as the row says, each an alias of the lab sshd, and the server starts with it."""

from __future__ import annotations

from pathlib import Path

from scripts.bench.hosts import HOST_COUNTS, config_for
from scripts.lab.sshd import SshServer
from scripts.lab.tmuxserver import TmuxServer
from tmux_contract_mcp.config import load_config


def test_each_row_s_configuration_names_its_count_of_host_aliases(
    sshd: SshServer, tmux: TmuxServer, tmp_path: Path
) -> None:
    for count in HOST_COUNTS:
        config = load_config(str(config_for(sshd, tmux, count, tmp_path)))
        assert len(config.hosts) == count
        aliases = sshd.client_config.read_text()
        assert all(f"Host {name}\n" in aliases for name in config.hosts)
