"""One fuzz run of one server: every tool it lists, cases drawn from each tool's own input
schema, each call held to the invariants, every breach recorded as a finding.

The invariants, for every call:

- the process answers (a ``crash``: it died or closed its output) in time (a ``hang``);
- no JSON-RPC error answers a call of a listed tool (``json-rpc error``);
- no answer reads as an internal error (``internal error``: the server's own words for an
  exception or a result against its contract, ``Target.internal``);
- a call the verdict finds invalid (``schemas.Verdict``) is refused (``invalid accepted``),
  with a message naming a field (``refusal names no field``, for servers that promise it),
  and tmux is as it was (``changed on invalid input``: sessions, windows, panes, options,
  hooks, buffers and environment, read with tmux's own commands);
- a success's structuredContent validates against the tool's output schema
  (``breaks output schema``);
- no marker file appears for a call of a tool that does not run commands by design
  (``injection``);
- and when the server has gone: no client still attached and no process of its left
  running (``leak``).
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from anyio.abc import Process
from mcp.client.session import ClientSession

from scripts.fuzz.cases import Case, draw_cases
from scripts.fuzz.lab import Lab, State
from scripts.fuzz.live import Pool, resolve
from scripts.fuzz.schemas import Verdict, inline_refs, property_names
from scripts.fuzz.targets import READS_ONLY, RUNS_BY_DESIGN, Target, stderr_tail
from scripts.fuzz.wire import (
    Answer,
    alive,
    call,
    connected,
)
from scripts.lab.processes import command_line, descendants, processes_with
from tmux_contract_mcp.text_rule import printable
from tmux_contract_mcp.validation import Schema, json_path

MARKER_DELAY = 0.05  # seconds a call holding an injection string gets to run it


@dataclass(frozen=True)
class Finding:
    kind: str
    tool: str
    how: str
    arguments: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.tool} ({self.how}) {self.arguments} -> {self.detail}"


@dataclass
class Report:
    label: str
    calls: int = 0
    valid: int = 0
    succeeded: int = 0
    refused: int = 0
    ran_by_design: int = 0  # markers made by tools whose job is to run commands
    rebuilds: int = 0
    restarts: int = 0
    processes_running: int = 0  # the server's processes seen just before it was closed
    seconds: float = 0.0
    tools: dict[str, dict[str, int]] = field(default_factory=dict)  # tool -> valid/invalid
    findings: list[Finding] = field(default_factory=list)

    def count(self, kind: str) -> int:
        return sum(1 for finding in self.findings if finding.kind == kind)


def shown(value: Any, limit: int = 300) -> str:
    text = printable(json.dumps(value, ensure_ascii=False, default=str))
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def result_text(result: types.CallToolResult) -> str:
    texts = [c.text for c in result.content if isinstance(c, types.TextContent)]
    if result.structured_content is not None:
        texts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return "\n".join(texts)


def names_a_field(text: str, case: Case, arguments: dict[str, Any], schema: Any) -> bool:
    """Whether a refusal names the field the case broke (any field the schema or the call
    has, when the verdict found a fault the case did not make)."""
    names = set(case.names) or property_names(schema) | set(arguments)
    if case.target:
        names.add(json_path(case.target))
    return any(printable(name) in text for name in names if name)


def state_change(before: State, after: State) -> str:
    gone = [line for line in before.lines if line not in after.lines]
    new = [line for line in after.lines if line not in before.lines]
    return f"gone {gone[:4]} new {new[:4]}"


@dataclass
class Server:
    """The server under test, started again when it dies or stops answering."""

    target: Target
    lab: Lab
    token: str
    stack: AsyncExitStack = field(default_factory=AsyncExitStack)
    session: ClientSession | None = None
    process: Process | None = None

    @property
    def stderr(self) -> Path:
        return self.target.launch(self.lab, self.token).stderr

    async def start(self) -> None:
        await self.stop()
        self.stack = AsyncExitStack()
        launch = self.target.launch(self.lab, self.token)
        session, process = await self.stack.enter_async_context(connected(launch))
        self.session, self.process = session, process

    async def stop(self) -> None:
        await self.stack.aclose()
        self.session = self.process = None

    async def call(self, tool: str, arguments: dict[str, Any], wait: float) -> Answer:
        assert self.session is not None and self.process is not None
        return await call(self.session, self.process, tool, arguments, wait)

    async def answering(self, wait: float) -> bool:
        assert self.session is not None and self.process is not None
        return await alive(self.session, self.process, wait)


class Run:
    """The state of one run: the server, the lab, the live values, the report."""

    def __init__(self, target: Target, lab: Lab, hang: float) -> None:
        self.target = target
        self.lab = lab
        self.hang = hang
        self.token = uuid.uuid4().hex
        self.server = Server(target, lab, self.token)
        self.pool = Pool(lab.work, lab.name, lab.socket_path)
        self.report = Report(target.label)
        self.markers: dict[str, tuple[Case, dict[str, Any]]] = {}  # marker -> its call
        self.seen_markers: set[str] = set()
        self.verdicts: dict[str, Verdict] = {}
        self.outputs: dict[str, Schema] = {}
        self.read_only: dict[str, bool] = {}
        self.listed: list[types.Tool] = []
        self.runners: list[int] = []  # the calls of tools that run commands by design

    def find(self, kind: str, case: Case, arguments: Any, detail: str) -> None:
        self.report.findings.append(
            Finding(kind, case.tool, case.how, shown(arguments), detail[:500])
        )

    async def tools(self) -> list[types.Tool]:
        assert self.server.session is not None
        listed = (await self.server.session.list_tools()).tools
        for tool in listed:
            schema = inline_refs(tool.input_schema)
            self.verdicts[tool.name] = Verdict(schema)
            if tool.output_schema is not None:
                self.outputs[tool.name] = Schema(tool.output_schema)
            self.read_only[tool.name] = self.target.toolset(tool) == READS_ONLY
        return sorted(listed, key=lambda tool: tool.name)

    async def case(self, case: Case, schema: Any) -> None:
        report, lab = self.report, self.lab
        if not self.pool.state.lines:
            self.pool.state = lab.snapshot()
        number = report.calls + 1
        marker = f"i{number}"
        arguments = resolve(case, self.pool, str(lab.markers / marker))
        if "self-bounded" in self.target.tags(self.tool(case.tool)):
            arguments = short_wait(arguments, schema)
        self.markers[marker] = (case, arguments)
        valid = self.verdicts[case.tool].valid(arguments)
        before = lab.snapshot() if not valid else None
        if before is not None:
            self.pool.state = before
        counts = report.tools.setdefault(case.tool, {"valid": 0, "invalid": 0})
        counts["valid" if valid else "invalid"] += 1
        report.calls += 1
        report.valid += valid
        runs = self.target.toolset(self.tool(case.tool)) == RUNS_BY_DESIGN
        if runs:
            self.runners.append(number)
        answer = await self.server.call(case.tool, arguments, self.hang)
        await self.judge(case, schema, arguments, valid, before, answer)
        if not runs and marker in json.dumps(arguments):
            time.sleep(MARKER_DELAY)  # what the call set going (a #() job) has run by now
        self.check_markers()
        state = self.pool.state
        result = answer.result
        if result is not None and valid and not result.is_error and not self.read_only[case.tool]:
            state = self.pool.state = lab.settled()
        elif answer.result is None:  # the server died or hung: what did it leave?
            state = self.pool.state = lab.snapshot()
        if not lab.usable(state):
            lab.build()
            self.pool.state = lab.snapshot()

    async def judge(
        self,
        case: Case,
        schema: Any,
        arguments: dict[str, Any],
        valid: bool,
        before: State | None,
        answer: Answer,
    ) -> None:
        if answer.died:
            tail = stderr_tail(self.server.stderr)
            self.find("crash", case, arguments, f"{answer.error or 'process gone'}; {tail}")
            await self.restart()
            return
        if answer.hung:
            self.find("hang", case, arguments, f"no answer in {self.hang} s")
            if not await self.server.answering(min(5.0, self.hang)):
                await self.restart()
            return
        if answer.error is not None:
            self.find("json-rpc error", case, arguments, answer.error)
            return
        result = answer.result
        assert result is not None
        text = result_text(result)
        if any(words in text for words in self.target.internal):
            self.find("internal error", case, arguments, text)
        if result.is_error:
            self.report.refused += 1
        else:
            self.report.succeeded += 1
        if not valid:
            if not result.is_error:
                self.find("invalid accepted", case, arguments, text)
            elif self.target.names_fields and not names_a_field(text, case, arguments, schema):
                self.find("refusal names no field", case, arguments, text)
            assert before is not None
            after = self.lab.snapshot()
            self.pool.state = after
            if after != before:
                self.find("changed on invalid input", case, arguments, state_change(before, after))
        elif not result.is_error:
            checker = self.outputs.get(case.tool)
            structured = result.structured_content
            if checker is not None and (structured is None or not checker.accepts(structured)):
                errors = [] if structured is None else checker.problems(structured)[:2]
                self.find(
                    "breaks output schema", case, arguments, f"{errors} in {shown(structured)}"
                )
            if structured is not None:
                self.pool.harvest(structured)

    def tool(self, name: str) -> types.Tool:
        return next(tool for tool in self.listed if tool.name == name)

    def check_markers(self) -> None:
        """Each new marker file: made by design when a tool that runs commands was called
        since the call that wrote the marker's path (that call itself included: text one
        call stores, in a buffer say, a later one may paste into a shell); else an injection.
        """
        for marker in self.lab.markers_seen():
            if marker in self.seen_markers:
                continue
            self.seen_markers.add(marker)
            found = re.match(r"i(\d+)", marker)
            number = int(found.group(1)) if found else 0
            case, arguments = self.markers.get(f"i{number}", (Case("?", "?", {}), {}))
            if any(runner >= number for runner in self.runners):
                self.report.ran_by_design += 1
            else:
                self.find("injection", case, arguments, f"marker {marker} appeared")

    async def restart(self) -> None:
        """A new server process in place of one that died or stopped answering."""
        self.report.restarts += 1
        process = self.server.process
        if process is not None and process.returncode is None:
            process.kill()  # it does not answer: waiting for it to leave would be in vain
        await self.server.start()

    async def run(
        self,
        examples: int,
        seed: int,
        only: Callable[[str], bool] = lambda name: True,
        progress: Callable[[str], None] = lambda line: None,
    ) -> Report:
        started = time.perf_counter()
        # Cases are drawn in a thread, one tool ahead of the calls. The server is started
        # (and restarted) inside the task group, so it is always closed where it was opened.
        send, receive = anyio.create_memory_object_stream[tuple[types.Tool, list[Case]]](1)
        async with anyio.create_task_group() as tasks:
            await self.server.start()
            try:
                self.listed = await self.tools()
                chosen = [tool for tool in self.listed if only(tool.name)]

                def draw(tool: types.Tool) -> list[Case]:
                    count = examples
                    if "self-bounded" in self.target.tags(tool):
                        count = max(1, examples // 2)  # each may wait out its whole timeout
                    # What a batch's operations may call: the tools of its own toolset.
                    kin = self.target.toolset(tool)
                    siblings = {t.name: inline_refs(t.input_schema) for t in self.listed
                                if self.target.toolset(t) == kin}  # fmt: skip
                    schema = inline_refs(tool.input_schema)
                    return draw_cases(tool.name, schema, count, seed, siblings)

                async def produce() -> None:
                    async with send:
                        for tool in chosen:
                            await send.send((tool, await anyio.to_thread.run_sync(draw, tool)))

                tasks.start_soon(produce)
                async with receive:
                    async for tool, cases in receive:
                        schema = inline_refs(tool.input_schema)
                        for case in cases:
                            await self.case(case, schema)
                        progress(f"{self.target.label} {tool.name}: {len(cases)} calls")
                # What the leak check looks for, while it must be there: the server's processes.
                self.report.processes_running = len(processes_with("FUZZ_RUN", self.token))
            finally:
                await self.server.stop()
        await anyio.sleep(0.2)
        self.check_markers()
        self.leaks()
        self.report.seconds = time.perf_counter() - started
        return self.report

    def leaks(self, patience: float = 3.0) -> None:
        """Clients still attached, and processes of the server's still running, once it
        has gone; tmux servers it started, and what runs in their panes, are not leaks."""
        self.lab.watcher.close()
        deadline = time.monotonic() + patience
        while True:
            servers = set(self.lab.server_pids().values())
            keep = servers | {pid for server in servers for pid in descendants(server)}
            left = sorted(processes_with("FUZZ_RUN", self.token) - keep)
            clients = self.lab.clients()
            if (not left and not clients) or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        lost = Case("(after the run)", "server closed", {})
        for pid in left:
            self.find("leak", lost, {}, f"process {pid} still running: {command_line(pid)}")
        for client in clients:
            self.find("leak", lost, {}, f"client still attached: {client}")


async def fuzz(
    target: Target,
    examples: int,
    seed: int,
    hang: float = 15.0,
    only: Callable[[str], bool] = lambda name: True,
    progress: Callable[[str], None] = lambda line: None,
) -> Report:
    """Fuzz ``target`` on a lab of its own; the lab is removed afterwards."""
    lab = Lab.create()
    try:
        run = Run(target, lab, hang)
        report = await run.run(examples, seed, only, progress)
        report.rebuilds = lab.rebuilt - 1
        return report
    finally:
        lab.remove()


# A tool that waits on its own clock takes its time in ``seconds`` (the rust family),
# and no server setting caps it there (python and swift read LIBTMUX_MCP_WAIT_MAX_SECONDS):
# a valid wait of up to 600 s, or the default 30, would outlast ``hang``.
WAIT_FIELD = "seconds"
SHORT_WAIT = 1


def short_wait(arguments: Any, schema: Any) -> Any:
    """``arguments`` with a wait in ``seconds`` cut to ``SHORT_WAIT`` (given longer, left
    out, or null where the schema takes null for the default wait); any other value there,
    valid or not, is kept."""
    if not isinstance(arguments, dict) or WAIT_FIELD not in schema.get("properties", {}):
        return arguments
    given = arguments.get(WAIT_FIELD, SHORT_WAIT + 1)
    if given is None and Schema(schema["properties"][WAIT_FIELD]).accepts(None):
        given = SHORT_WAIT + 1
    if isinstance(given, bool) or not isinstance(given, int | float) or given <= SHORT_WAIT:
        return arguments
    return {**arguments, WAIT_FIELD: SHORT_WAIT}
