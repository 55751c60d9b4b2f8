"""A private OpenSSH server on 127.0.0.1: own host key, own client key, killed afterwards.

It runs as the current user (or root) with keys made for the run, so a server under test
reaches this same machine through real ssh. ``client_config`` is an ssh ``-F`` file that
trusts exactly this server's host key (``StrictHostKeyChecking yes``) and offers exactly
the generated client key: pass it as ``TMUX_CONTRACT_MCP_SSH_CONFIG``.
"""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SSHD = "/usr/sbin/sshd"
START_TIMEOUT = 10.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def keygen(path: Path) -> str:
    """A new ed25519 key pair at ``path``; returns the public key line."""
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)],
        check=True,
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )
    return path.with_suffix(".pub").read_text().strip()


@dataclass
class SshServer:
    """One throwaway sshd, listening on ``port`` of 127.0.0.1."""

    tmpdir: Path
    port: int
    process: subprocess.Popen[bytes]

    @property
    def client_config(self) -> Path:
        return self.tmpdir / "ssh_config"

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    @classmethod
    def start(cls, environment: Mapping[str, str] | None = None) -> SshServer:
        """``environment``: what the remote user's sessions see (sshd ``SetEnv``), such as
        the ``TMUX_TMPDIR`` the tmux servers of that user run with."""
        tmpdir = Path(tempfile.mkdtemp(prefix="tcm-ssh-", dir="/tmp"))
        host_key = keygen(tmpdir / "host_key")
        client_key = keygen(tmpdir / "client_key")
        (tmpdir / "authorized_keys").write_text(client_key + "\n")
        port = free_port()
        (tmpdir / "known_hosts").write_text(f"[127.0.0.1]:{port} {host_key}\n")
        (tmpdir / "sshd_config").write_text(
            "\n".join(
                [
                    "ListenAddress 127.0.0.1",
                    f"Port {port}",
                    f"HostKey {tmpdir / 'host_key'}",
                    f"AuthorizedKeysFile {tmpdir / 'authorized_keys'}",
                    f"PidFile {tmpdir / 'sshd.pid'}",
                    f"AllowUsers {getpass.getuser()}",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "PubkeyAuthentication yes",
                    "PermitRootLogin prohibit-password",
                    "UsePAM no",
                    "StrictModes no",
                    "MaxSessions 100",
                    "MaxStartups 100",
                    # A host alias (``alias``) gives its sessions their own TMUX_TMPDIR, so
                    # each alias reaches tmux servers of its own: several hosts on loopback.
                    "AcceptEnv TMUX_TMPDIR",
                    # This machine's login shell runs ``pyenv rehash``, which can wait a
                    # minute on a stale lock: the lab's commands are not made to wait.
                    # bash reads ~/.bashrc for a command ssh runs only as the outermost
                    # shell (its SHLVL becoming 1); here that file's ``pyenv init`` costs
                    # ~1 s a command, and the lab names tmux by absolute path: skip it.
                    "SetEnv PYENV_REHASH_TIMEOUT=0 SHLVL=1"
                    + "".join(f" {name}={value}" for name, value in (environment or {}).items()),
                    "",
                ]
            )
        )
        (tmpdir / "ssh_config").write_text(
            "\n".join(
                [
                    "Host *",
                    f"  User {getpass.getuser()}",
                    f"  IdentityFile {tmpdir / 'client_key'}",
                    "  IdentitiesOnly yes",
                    "  IdentityAgent none",
                    f"  UserKnownHostsFile {tmpdir / 'known_hosts'}",
                    "  GlobalKnownHostsFile /dev/null",
                    "  StrictHostKeyChecking yes",
                    "  ConnectTimeout 5",
                    "",
                ]
            )
        )
        if os.geteuid() == 0:
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # privilege separation
        with (tmpdir / "sshd.log").open("wb") as log:  # sshd keeps its own copy
            process = subprocess.Popen(
                [SSHD, "-D", "-e", "-f", str(tmpdir / "sshd_config")],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
            )
        server = cls(tmpdir, port, process)
        server.wait_listening()
        return server

    def alias(self, name: str, environment: Mapping[str, str], port: int | None = None) -> str:
        """An ssh host alias in ``client_config`` for this server whose sessions get
        ``environment`` (ssh ``SetEnv``: TMUX_TMPDIR, so its tmux servers are its own); with
        ``port``, one nothing listens on (a host that is down). Returns ``name``."""
        settings = "".join(f" {key}={value}" for key, value in environment.items())
        lines = [f"Host {name}", "  HostName 127.0.0.1", f"  Port {port or self.port}"]
        if port is not None:
            lines.append(f"  HostKeyAlias [127.0.0.1]:{self.port}")
        if settings:
            lines.append(f"  SetEnv{settings}")
        with self.client_config.open("a") as config:
            config.write("\n".join(["", *lines, ""]))
        return name

    def point(self, name: str, port: int) -> None:
        """Make alias ``name`` reach ``port`` from now on (a port nothing listens on: the host
        is down; ``self.port``: it is back). Each ssh reads the file as it starts."""
        text = self.client_config.read_text()
        head, _, rest = text.partition(f"Host {name}\n")
        block, sep, tail = rest.partition("\nHost ")
        lines = [
            f"  Port {port}" if line.startswith("  Port ") else line for line in block.split("\n")
        ]
        block = "\n".join(lines)
        if port != self.port and "  HostKeyAlias" not in block:
            block += f"\n  HostKeyAlias [127.0.0.1]:{self.port}"
        self.client_config.write_text(head + f"Host {name}\n" + block + sep + tail)

    def wait_listening(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"sshd exited: {(self.tmpdir / 'sshd.log').read_text()}")
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.02)
        raise RuntimeError(f"sshd did not listen within {START_TIMEOUT:g}s")

    def session_pids(self) -> list[int]:
        """The per-connection sshd processes (children of the listener)."""
        from scripts.lab import processes

        return processes.children(self.process.pid)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.tmpdir, ignore_errors=True)


@contextmanager
def private_tmpdir() -> Iterator[Path]:
    """A TMPDIR for one server under test: its ssh control directory is made there, where
    no other server's is, so what it leaves behind can be told from what others run.
    Short: ssh's control socket path (with a suffix ssh adds) must fit in 104 bytes."""
    tmp = Path(tempfile.mkdtemp(prefix="s", dir="/tmp"))
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def ssh_under(tmp: Path) -> dict[int, str]:
    """The ssh clients and master (which shows only its control path) of the server whose
    TMPDIR is ``tmp``: pid -> its command line."""
    from scripts.lab import processes

    return {
        pid: " ".join(argv)
        for pid in processes.pids()
        if (argv := processes.cmdline(pid))
        and argv[0].startswith("ssh")
        and processes.alive(pid)
        and any(str(tmp) in arg for arg in argv)
    }
