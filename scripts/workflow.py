"""A whole agent workflow through the python profile, printed as a transcript.

Create a session, split it, start a build in the new pane, wait for it to
finish, read the pane, check the build's output with a command, clean up: every
step a tool call through the real MCP client against the real server, on a
private tmux server. Run with ``make workflow``; tests/e2e/test_python_workflow.py
runs the same steps and checks each answer.

``--ssh`` (``make workflow-ssh``) runs the same steps with the server started as
``--ssh 127.0.0.1:PORT``, through a private OpenSSH server on this machine that the
script starts and stops itself (scripts/lab/sshd.py): the tmux server is the remote's.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import anyio

from scripts.lab.client import Client, error_text, open_client
from scripts.lab.overssh import remote_env
from scripts.lab.sshd import SshServer
from scripts.lab.tmuxserver import TmuxServer

TOOLSETS = "inspect,manage,execute,teardown"

BUILD = (
    'sleep 1; for step in compile link test; do echo "$step ok"; done; '
    "echo 'BUILD OK' | tee build.log"
)


@dataclass
class Step:
    tool: str
    arguments: dict[str, Any]
    result: dict[str, Any]


class Workflow:
    """The calls an agent makes, kept so a test can check them and a reader can see them."""

    def __init__(self, client: Client, echo: bool, out: TextIO | None = None) -> None:
        self.client = client
        self.echo = echo
        self.out = out
        self.steps: list[Step] = []

    async def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await self.client.call(tool, arguments)
        if result.is_error:
            raise RuntimeError(f"{tool} failed: {error_text(result)}")
        assert result.structured_content is not None
        answer = dict(result.structured_content)
        self.steps.append(Step(tool, arguments, answer))
        if self.echo:
            print(f"→ {tool} {json.dumps(arguments)}", file=self.out)
            print(f"← {brief(answer)}\n", file=self.out)
        return answer


def brief(answer: dict[str, Any], width: int = 300) -> str:
    text = json.dumps(answer, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 3] + "..."


async def run(flow: Workflow, project: Path) -> None:
    where = str(project)
    session = await flow.call("create_session", {"session_name": "build", "start_directory": where})
    shell = session["active_pane_id"]
    build = await flow.call(
        "split_window", {"pane_id": shell, "direction": "right", "start_directory": where}
    )
    await flow.call("send_keys", {"pane_id": build["pane_id"], "keys": BUILD, "enter": True})
    await flow.call(
        "wait_for_text",
        {
            "pane_id": build["pane_id"],
            "patterns": ["^BUILD OK$"],  # the output line, not the typed command
            "stop": ["FAIL"],
            "regex": True,
            "timeout": 20,
        },
    )
    await flow.call("capture_pane", {"pane_id": build["pane_id"], "max_lines": 4})
    await flow.call("run_command", {"pane_id": shell, "command": "cat build.log", "timeout": 10})
    await flow.call("kill_session", {"session_name": "build"})
    await flow.call("list_sessions", {})


async def local(tmux: TmuxServer, project: Path, out: TextIO | None = None) -> Workflow:
    """The workflow against ``tmux`` here, building in ``project``, printed to ``out``."""
    env = tmux.server_env(LIBTMUX_TOOLSETS=TOOLSETS)
    async with open_client(env, "python") as client:
        flow = Workflow(client, echo=True, out=out)
        await run(flow, project)
    return flow


async def over_ssh(
    tmux: TmuxServer, sshd: SshServer, project: Path, out: TextIO | None = None
) -> Workflow:
    """The workflow against ``tmux`` as the tmux server of the host ``sshd`` serves: the MCP
    server is started with ``--ssh``, every tmux command goes through that connection."""
    env = remote_env(tmux, sshd, LIBTMUX_TOOLSETS=TOOLSETS)
    del env["TMUX_CONTRACT_MCP_SSH"]  # given as the option instead
    args = ("--ssh", sshd.target)
    print(
        f"# tmux-contract-mcp --profile python {' '.join(args)}\n"
        f"#   ssh: a private sshd on 127.0.0.1 port {sshd.port}, its host key the only one "
        f"trusted (TMUX_CONTRACT_MCP_SSH_CONFIG={sshd.client_config})\n"
        f"#   tmux on the remote side: socket {tmux.socket_path} (LIBTMUX_SOCKET_PATH)\n",
        file=out,
    )
    async with open_client(env, "python", *args) as client:
        flow = Workflow(client, echo=True, out=out)
        await run(flow, project)
    logins = (sshd.tmpdir / "sshd.log").read_text().count("Accepted publickey")
    print(f"# sshd accepted {logins} login(s): the server's calls shared one connection", file=out)
    return flow


async def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m scripts.workflow", description=__doc__)
    parser.add_argument(
        "--ssh", action="store_true", help="reach tmux through a private sshd on this machine"
    )
    args = parser.parse_args(argv)
    tmux = TmuxServer.start()
    try:
        with tempfile.TemporaryDirectory(prefix="project-") as project:
            if not args.ssh:
                await local(tmux, Path(project), sys.stdout)
                return
            sshd = SshServer.start()
            try:
                await over_ssh(tmux, sshd, Path(project), sys.stdout)
            finally:
                sshd.kill()
    finally:
        tmux.kill()


if __name__ == "__main__":
    anyio.run(main)
