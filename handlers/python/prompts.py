"""The python profile's prompts: short recipes that drive this server's own tools.

Every tool call a recipe shows is written as the tool's name and its JSON
arguments, so the agent can send it as it stands; values the client gave are
JSON-encoded there, never spliced into a command. Rendering runs nothing in tmux.
"""

from __future__ import annotations

import json
from typing import Any

from ...generated.python.models.prompt_build_dev_workspace import BuildDevWorkspacePromptArguments
from ...generated.python.models.prompt_diagnose_failing_pane import (
    DiagnoseFailingPanePromptArguments,
)
from ...generated.python.models.prompt_interrupt_gracefully import (
    InterruptGracefullyPromptArguments,
)
from ...generated.python.models.prompt_run_and_wait import RunAndWaitPromptArguments

EDITOR = "${EDITOR:-vi}"  # typed into the pane's shell: the user's editor, else vi


def call(tool: str, **arguments: Any) -> str:
    """One tool call as a recipe shows it: ``run_command {"pane_id": "%1", ...}``."""
    return f"{tool} {json.dumps(arguments, ensure_ascii=False)}"


def seconds(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


class Prompts:
    async def prompt_run_and_wait(self, arguments: RunAndWaitPromptArguments) -> str:
        pane, command = arguments.pane_id, arguments.command
        timeout = seconds(arguments.timeout if arguments.timeout is not None else 60)
        return f"""Run a shell command in tmux pane {pane} and wait until it finishes.

Call run_command once. It types the command at the pane's shell prompt, sleeps until \
the command exits (tmux signals the end; nothing polls) and answers with the exit \
status and the output in one result:

{call("run_command", pane_id=pane, command=command, timeout=timeout)}

Then act on the result:
- exit_status 0: the command succeeded; `output` holds the lines it printed.
- any other exit_status: it failed; read `output` for the reason before changing anything.
- timed_out true: it is still running in the pane (run_command never stops it). \
effective_timeout is how long was waited: the server caps every wait \
(LIBTMUX_MCP_WAIT_MAX_SECONDS, 30 seconds unless configured). Follow the rest of its \
output with {call("capture_since", pane_id=pane)} or wait for a line with wait_for_text \
instead of starting it again; to stop it, {call("send_keys", pane_id=pane, keys="C-c", enter=False)}.

Do not type the command with send_keys and then poll capture_pane: run_command already \
waits and returns the output. It needs the pane to be at a shell prompt (sh, bash, zsh \
and the like); to drive a program that reads keystrokes, use send_keys.
"""

    async def prompt_diagnose_failing_pane(
        self, arguments: DiagnoseFailingPanePromptArguments
    ) -> str:
        pane = arguments.pane_id
        return f"""Something went wrong in tmux pane {pane}. Find out what before changing anything.

1. Read the pane's whole state in one call:
   {call("snapshot_pane", pane_id=pane)}
   It returns the visible text with the cursor position, the pane's size and mode \
(copy mode, alternate screen), its current command and its working directory.
2. If the text was cut short (truncated_lines above 0), read it all:
   {call("snapshot_pane", pane_id=pane, max_lines=None)}
3. To see what the pane prints from now on without reading the screen again, follow it:
   {call("capture_since", pane_id=pane)}
   Keep the cursor it returns and pass it back each time you look again:
   {call("capture_since", pane_id=pane, cursor="<cursor>")}
4. Find the last command that ran (on the last prompt line) and the last lines it \
printed: error messages, exit codes, a stack trace.
5. Say what you think the cause is and name one command that would confirm it. Do not run \
anything yet: propose first.
"""

    async def prompt_build_dev_workspace(self, arguments: BuildDevWorkspacePromptArguments) -> str:
        name = arguments.session_name
        log_command = arguments.log_command or "watch -n 1 date"
        return f"""Build a development workspace: a new tmux session {json.dumps(name)} \
with an editor pane on top, a shell at the bottom left and the logs at the bottom right.

1. {call("create_session", session_name=name)}
   Its active_pane_id is the editor pane; below it is written <editor>.
2. {call("split_window", pane_id="<editor>", direction="below")}
   The new pane's pane_id is the shell pane, <shell>.
3. {call("split_window", pane_id="<shell>", direction="right")}
   The new pane's pane_id is the logs pane, <logs>.
4. Start the programs (put the real ids in place of <editor> and <logs>):
   {call("send_keys", pane_id="<editor>", keys=EDITOR)}
   {call("send_keys", pane_id="<logs>", keys=log_command)}
   Leave <shell> at its prompt. tmux holds keys typed before a shell is ready, so \
nothing needs to wait before sending them.
5. To check that a program has started, wait until it draws something; without \
patterns, wait_for_text returns at the pane's first new output:
   {call("wait_for_text", pane_id="<logs>", timeout=5)}

From here on, target these panes by their ids: an id stays the same when the layout \
changes.
"""

    async def prompt_interrupt_gracefully(
        self, arguments: InterruptGracefullyPromptArguments
    ) -> str:
        pane = arguments.pane_id
        return f"""Stop what is running in tmux pane {pane} with one interrupt, and make \
sure the shell is back.

1. {call("get_pane_info", pane_id=pane)}
   Note pane_current_command: the program running now.
2. {call("send_keys", pane_id=pane, keys="C-c", enter=False)}
   tmux presses Ctrl-C in the pane, which interrupts the foreground program (SIGINT).
3. {call("wait_for_text", pane_id=pane, timeout=5)}
   Without patterns it returns at the pane's first new output, such as the prompt \
coming back. A `^C` on the screen proves nothing: the terminal echoes it whether or not \
the program stops.
4. {call("get_pane_info", pane_id=pane)}
   If pane_current_command is now a shell (sh, bash, zsh...), the interrupt worked; \
{call("capture_pane", pane_id=pane, max_lines=20)} shows the last lines printed.
5. If the same program is still running, it ignores the interrupt. Stop and ask how to \
go on; do not move on to C-\\ (quit, which may dump core) or to killing the pane yourself.
"""
