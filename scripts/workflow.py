"""A whole agent workflow through the python profile, printed as a transcript.

Create a session, split it, start a build in the new pane, wait for it to
finish, read the pane, check the build's output with a command, clean up: every
step a tool call through the real MCP client against the real server, on a
private tmux server. Run with ``make workflow``; tests/test_python_workflow.py
runs the same steps and checks each answer.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from scripts.lab.client import Client, error_text, open_client
from scripts.lab.tmuxserver import TmuxServer

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

    def __init__(self, client: Client, echo: bool) -> None:
        self.client = client
        self.echo = echo
        self.steps: list[Step] = []

    async def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await self.client.call(tool, arguments)
        if result.is_error:
            raise RuntimeError(f"{tool} failed: {error_text(result)}")
        assert result.structured_content is not None
        answer = dict(result.structured_content)
        self.steps.append(Step(tool, arguments, answer))
        if self.echo:
            print(f"→ {tool} {json.dumps(arguments)}")
            print(f"← {brief(answer)}\n")
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


async def main() -> None:
    tmux = TmuxServer.start()
    try:
        env = tmux.server_env(LIBTMUX_TOOLSETS="inspect,manage,execute,teardown")
        with tempfile.TemporaryDirectory(prefix="project-") as project:
            async with open_client(env, "python") as client:
                await run(Workflow(client, echo=True), Path(project))
    finally:
        tmux.kill()


if __name__ == "__main__":
    anyio.run(main)
