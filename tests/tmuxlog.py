"""Every tmux command an MCP server under test runs, seen by the tmux binary it is given.

The server gets a wrapper as ``LIBTMUX_TMUX_BIN`` that appends its argument
list to a log and then runs the real tmux. With the subprocess transport every
command is one tmux process, so the log sees every command the server sends
(the control-mode transport would hide its commands inside one process).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from tests.tmuxenv import TMUX, TmuxServer


@dataclass
class TmuxLog:
    path: Path
    binary: Path

    @classmethod
    def beside(cls, server: TmuxServer) -> TmuxLog:
        directory = server.tmpdir
        log = cls(directory / f"{server.name}.commands", directory / f"{server.name}-tmux")
        log.path.write_text("")
        log.binary.write_text(
            "#!/bin/sh\n"
            f'printf "%s\\n" "$*" >> {shlex.quote(str(log.path))}\n'
            f'exec {shlex.quote(TMUX)} "$@"\n'
        )
        log.binary.chmod(0o755)
        return log

    def server_env(self, server: TmuxServer, **extra: str) -> dict[str, str]:
        """The environment of an MCP server whose every tmux command lands in the log."""
        return server.server_env(
            LIBTMUX_TMUX_BIN=str(self.binary), TMUX_CONTRACT_MCP_TRANSPORT="subprocess", **extra
        )

    def commands(self) -> list[str]:
        """The tmux commands run since the last ``clear`` (global flags left out)."""
        found = []
        for line in self.path.read_text().splitlines():
            words = line.split()
            while words and words[0].startswith("-"):  # -L name, -S path, -N ...
                words = words[2:] if words[0] in ("-L", "-S", "-f") else words[1:]
            found.append(words[0] if words else "")
        return found

    def clear(self) -> None:
        self.path.write_text("")
