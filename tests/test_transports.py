"""The two transports, end to end: same answers, a hidden control client, waits that block
nothing, cancellation that leaves nothing behind, reconnects, and a pane that prints a lot.

Real tmux, the real server over stdio (``TMUX_CONTRACT_MCP_TRANSPORT`` picks the transport).
Nothing here asserts a duration: waits are bounded polls, and concurrency is proven by the
order answers arrive in.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import mcp.types as types
import pytest
from jsonschema import Draft202012Validator

from scripts.lab.client import contracts, error_text, open_client
from scripts.lab.processes import children, cmdline, environ_of, parent_of, pids
from scripts.lab.tmuxserver import TMUX, TmuxServer
from tmux_contract_mcp.handlers.tmux.transport.kinds import TRANSPORTS
from tmux_contract_mcp.toolspec import ToolEntry

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

DEADLINE = 30.0  # only there to turn a hang into a failure
# What legitimately differs between two server processes answering the same read:
# refs and cursors are sealed with each process's own secret; a duration is measured per call.
REF_KEYS = frozenset({"ref", "windowRef", "linkRef", "paneRef", "cursor"})
TIMING_KEYS = frozenset({"elapsed_seconds", "seconds"})
UNKNOWN_IDS = ("@999", "%999", "$999")  # arguments naming nothing: both transports fail alike


# --- helpers ------------------------------------------------------------------------------


def server_env(tmux: TmuxServer, transport: str) -> dict[str, str]:
    return tmux.server_env(TMUX_CONTRACT_MCP_TRANSPORT=transport)


def clients(tmux: TmuxServer) -> list[tuple[int, str]]:
    """The clients attached to the server: (pid, session name)."""
    rows = tmux.lines("list-clients", "-F", "#{client_pid} #{session_name}")
    return [(int(pid), name) for pid, name in (row.split(" ", 1) for row in rows)]


async def eventually(check: Callable[[], bool], what: str, deadline: float = DEADLINE) -> None:
    """Poll ``check`` (run in a thread: it may call tmux) until it holds, or fail."""
    with anyio.move_on_after(deadline):
        while not await anyio.to_thread.run_sync(check):
            await anyio.sleep(0.02)
        return
    raise AssertionError(f"timed out waiting for {what}")


def tmux_processes(tmux: TmuxServer) -> list[int]:
    """tmux processes whose argv names this server's socket (-L name or -S path)."""
    found = []
    for pid in pids():
        argv = cmdline(pid)
        if argv and Path(argv[0]).name == "tmux" and any(tmux.name in arg for arg in argv[1:]):
            found.append(pid)
    return sorted(found)


def mcp_server_pid(tmux: TmuxServer) -> int:
    """The MCP server process talking to ``tmux`` (found by its command and environment)."""
    found = []
    for pid in pids():
        if not any(arg.endswith("tmux-contract-mcp") for arg in cmdline(pid)):
            continue
        if environ_of(pid).get("LIBTMUX_SOCKET") == tmux.name:
            found.append(pid)
    assert len(found) == 1, found
    return found[0]


def quiet_pane(tmux: TmuxServer, *lines: str) -> str:
    """A new window whose pane prints ``lines`` and then echoes typed lines (no tty echo)."""
    script = 'stty -echo; for l in "$@"; do printf "%s\\n" "$l"; done; exec cat'
    pane = tmux.tmux(
        "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:",
        "sh", "-c", script, "sh", *lines,
    ).strip()  # fmt: skip
    if lines:
        wait_for_text(tmux, pane, lines[-1])
    return pane


def wait_for_text(tmux: TmuxServer, pane: str, text: str, timeout: float = DEADLINE) -> None:
    deadline = time.monotonic() + timeout
    while text not in tmux.tmux("capture-pane", "-p", "-t", pane).splitlines():
        assert time.monotonic() < deadline, f"{text!r} never appeared in {pane}"
        time.sleep(0.02)


def type_line(tmux: TmuxServer, pane: str, line: str) -> None:
    tmux.tmux("send-keys", "-t", pane, "-l", "--", line)
    tmux.tmux("send-keys", "-t", pane, "Enter")


def attached_by_name(structured: Any) -> dict[str, bool]:
    """Every session object anywhere in a result: name -> attached (swift ``isAttached``,
    python ``session_attached``, a count of clients)."""
    found: dict[str, bool] = {}

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if "isAttached" in value and "name" in value:
                found[value["name"]] = value["isAttached"]
            if "attached" in value and str(value.get("id", "")).startswith("$"):
                found[value["name"]] = value["attached"]  # rust: a session row
            if "session_attached" in value and "session_name" in value:
                found[value["session_name"]] = str(value["session_attached"]) != "0"
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(structured)
    return found


# --- 1. parity: every read tool answers the same over both transports ---------------------


@dataclass(frozen=True)
class At:
    """A placeholder for an id of the parity world, resolved once the world exists."""

    name: str


def resolve(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, At):
        return ids[value.name]
    if isinstance(value, dict):
        return {key: resolve(item, ids) for key, item in value.items()}
    if isinstance(value, list):
        return [resolve(item, ids) for item in value]
    return value


def comparable(value: Any) -> Any:
    """``value`` with what is per process or per call replaced by a marker (see ``REF_KEYS``
    and ``TIMING_KEYS``). A nested result's text (a batch row) is compared parsed."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key in REF_KEYS and item is not None:
                assert isinstance(item, str) and item, (key, item)
                out[key] = f"<{key}>"
            elif key in TIMING_KEYS:
                assert isinstance(item, int | float) and not isinstance(item, bool), (key, item)
                out[key] = f"<{key}>"
            elif key == "text" and isinstance(item, str) and item.startswith("{"):
                out[key] = comparable(json.loads(item))
            else:
                out[key] = comparable(item)
        return out
    if isinstance(value, list):
        return [comparable(item) for item in value]
    return value


def op(tool: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"tool": tool} | ({"arguments": arguments} if arguments is not None else {})


# Every read tool of every profile, from the generated registry, with arguments built by
# name from the parity world: a new read tool is covered without an edit here, unless it
# brings an argument name none of these tables knows (then collection fails, naming it).

# Optional arguments that choose what a read looks at: one case sets each in turn.
TARGETS: dict[str, Any] = {
    "pane_id": At("tl"),
    "paneId": At("tl"),
    "window_id": At("linked"),
    "windowId": At("linked"),
    "window": At("linked"),
    "session_id": At("second"),
    "session_name": "second",
    "session": "second",
    "socket_name": At("socket"),
}
# Identifiers that name nothing: one case sets each in turn, and both transports must fail.
UNKNOWN = {"pane_id": "%999", "paneId": "%999", "window_id": "@999", "windowId": "@999"}
UNKNOWN |= {"session_id": "$999"}
FORMAT = (
    "#{session_name}|#{window_index}|#{window_id}|#{window_name}|#{pane_index}|#{pane_id}"
    "|#{session_attached}"
)
# Values for required arguments, and for those that keep a call short (a wait that reads
# the pane once: only output after the call starts could match, and the world prints none).
GIVEN: dict[str, Any] = {
    "buffer_name": "tcm-buffer",
    "corner": "bottom-left",
    "format_string": FORMAT,
    "hook_name": "alert-bell",
    "name": "@tcm-user",
    "names": ["pane_id", "pane_current_command", "session_name", "window_index"],
    "option": "@tcm-user",
    "paneId": At("tl"),
    "pane": At("tl"),
    "pattern": "line",
    "patterns": ["line"],
    "session": "main",
    "timeout": 0,
    "timeoutMs": 100,
    "seconds": 0,
    "window": At("grid"),
    "windowId": At("grid"),
}
QUICK = ("patterns", "timeout", "timeoutMs", "seconds")


def registry(profile: str) -> tuple[ToolEntry, ...]:
    module = importlib.import_module(f"tmux_contract_mcp.generated.{profile}.registry")
    tools: tuple[ToolEntry, ...] = module.TOOLS
    return tools


def read_tools(profile: str) -> list[ToolEntry]:
    return [entry for entry in registry(profile) if entry.toolset == "inspect"]


def in_a_batch(profile: str, batch: str) -> list[str]:
    """The read tools a profile's batch takes: every other one that does not wait on its own."""
    return [
        entry.name
        for entry in read_tools(profile)
        if entry.name != batch and "self-bounded" not in entry.tags
    ]


def base_arguments(profile: str, tool: str) -> dict[str, Any]:
    """The required arguments (and the quick ones) of ``tool``, from ``GIVEN``."""
    schema = contracts(profile)[tool]["inputSchema"]
    properties = schema.get("properties", {})
    arguments: dict[str, Any] = {}
    for name in [*schema.get("required", []), *(q for q in QUICK if q in properties)]:
        if name == "operations":  # a batch: every tool it takes, with their base arguments
            arguments[name] = [
                op(other, base_arguments(profile, other)) for other in in_a_batch(profile, tool)
            ]
        elif name in GIVEN:
            arguments[name] = GIVEN[name]
        elif "enum" in properties[name]:
            arguments[name] = properties[name]["enum"][0]
        else:
            raise LookupError(f"no value for the required `{name}` of {profile} {tool}: add one")
    return arguments


def derived_cases(profile: str) -> list[tuple[str, dict[str, Any], str]]:
    """For each read tool: its base call, one call per target it takes, one per unknown id."""
    cases: list[tuple[str, dict[str, Any], str]] = []
    for entry in read_tools(profile):
        tool = entry.name
        properties = contracts(profile)[tool]["inputSchema"].get("properties", {})
        base = base_arguments(profile, tool)
        cases.append((tool, base, "required"))
        for name, value in TARGETS.items():
            if name in properties and base.get(name) != value:
                cases.append((tool, base | {name: value}, f"by-{name}"))
        if "window_index" in properties and "session_name" in properties:
            by_index = {"session_name": "main", "window_index": "0"}
            cases.append((tool, base | by_index, "by-session-name-and-window-index"))
        for name, value in UNKNOWN.items():
            if name in properties:
                cases.append((tool, base | {name: value}, f"unknown-{name}"))
    return cases


# Hand-written cases: combinations of arguments the derivation above does not make.
PYTHON_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("find_pane_by_position", {"corner": "top-left"}, "nothing-named"),
    ("find_pane_by_position", {"corner": "bottom-right", "window_id": At("grid")}, "window-id"),
    (
        "find_pane_by_position",
        {"corner": "top-right", "session_name": "main", "window_index": "0"},
        "session-name-and-index",
    ),
    (
        "find_pane_by_position",
        {"corner": "bottom-left", "session_id": At("second"), "window_index": "7"},
        "session-id-and-index-of-a-linked-window",
    ),
    ("find_pane_by_position", {"corner": "top-left", "session_id": At("second")}, "session-id"),
    (
        "find_pane_by_position",
        {"corner": "bottom-right", "session_name": "second"},
        "session-name",
    ),
    (
        "find_pane_by_position",
        {"corner": "top-right", "socket_name": At("socket")},
        "socket-name",
    ),
    ("find_pane_by_position", {"corner": "top-left", "window_id": "@999"}, "unknown-window"),
]

# The rust profile serves no read tool (its one tool, select_pane, is in `manage`); it
# answers with the pane it selected, and selecting the pane already active changes nothing.
RUST_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("select_pane", {"pane": At("active")}, "the-already-active-pane"),
]

BATCH_MIX = [
    op("list_sessions"),
    op("get_session_info", {"session": "main"}),
    op("list_windows", {"session": "second"}),
    op("capture_since", {"paneId": At("tl")}),
    op("search_panes", {"pattern": "beta-"}),
    op("get_pane_info", {"paneId": "%999"}),  # a failed row, the same on both
    op("show_option", {"name": "@tcm-user"}),
    op("get_tmux_variables", {"names": ["pane_id", "window_index"], "paneId": At("br")}),
]

SWIFT_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("capture_pane", {"paneId": At("tl")}, "screen"),
    ("capture_pane", {"paneId": At("tr"), "start": -5, "maxLines": 2}, "history-bounded"),
    ("capture_pane", {"paneId": At("lb"), "joinWrapped": True}, "joined"),
    ("capture_since", {"paneId": At("tl")}, "without-cursor"),
    ("capture_since", {"paneId": At("lb"), "maxLines": 1}, "max-lines"),
    ("find_pane_by_position", {"corner": "bottom-left", "windowId": At("grid")}, "grid"),
    ("find_pane_by_position", {"corner": "top-right", "windowId": At("linked")}, "linked"),
    ("get_pane_info", {"paneId": At("br")}, "shell"),
    ("get_pane_info", {"paneId": At("la")}, "linked-window"),
    ("get_pane_info", {"paneId": "%999"}, "unknown-pane"),
    ("get_server_info", {}, "running"),
    ("get_session_info", {"session": "main"}, "main"),
    ("get_session_info", {"session": At("second")}, "second-by-id"),
    ("get_tmux_variables", {"names": ["pane_id", "session_name", "window_index"]}, "first"),
    (
        "get_tmux_variables",
        {"names": ["pane_id", "pane_current_command", "window_name"], "paneId": At("la")},
        "pane",
    ),
    # Variables that depend on the clients attached: the control transport's own client
    # must not show here any more than it does in isAttached.
    (
        "get_tmux_variables",
        {"names": ["session_attached", "client_pid", "client_name", "client_session"]},
        "client-dependent",
    ),
    (
        "get_tmux_variables",
        {"names": ["session_attached", "session_many_attached"], "paneId": At("tl")},
        "session-attached-of-a-pane",
    ),
    ("get_window_info", {"windowId": At("linked")}, "linked-into-two-sessions"),
    ("list_panes", {}, "all"),
    ("list_panes", {"session": "second"}, "session"),
    ("list_panes", {"window": At("linked")}, "window"),
    ("list_sessions", {}, "all"),
    ("list_windows", {}, "all"),
    ("list_windows", {"session": "second"}, "session"),
    ("search_panes", {"pattern": "alpha"}, "plain"),
    ("search_panes", {"pattern": "^(beta|gamma)-[0-9]+$", "regex": True}, "regex"),
    ("search_panes", {"pattern": "line", "session": "second"}, "session"),
    ("show_environment", {}, "global"),
    ("show_environment", {"session": "main"}, "session"),
    ("show_environment", {"session": "second"}, "removed-variable"),
    ("show_hooks", {}, "global"),
    ("show_hooks", {"session": "second"}, "session"),
    ("show_option", {"name": "@tcm-user"}, "user-option"),
    ("show_option", {"name": "history-limit"}, "global-session"),
    ("show_option", {"name": "@tcm-window", "scope": "window", "target": At("linked")}, "window"),
    ("show_option", {"name": "status-left", "scope": "session", "target": "second"}, "session"),
    ("show_option", {"name": "escape-time", "scope": "server"}, "server"),
    ("snapshot_pane", {"paneId": At("tr"), "maxLines": 3}, "snapshot"),
    ("call_read_tools_batch", {"operations": BATCH_MIX, "onError": "continue"}, "mix"),
]


def case_key(profile: str, tool: str, arguments: dict[str, Any]) -> str:
    return repr((profile, tool, arguments))


def all_cases() -> list[tuple[str, str, dict[str, Any], str]]:
    """The derived cases of every profile, then the hand-written ones, each call once."""
    found: dict[str, tuple[str, str, dict[str, Any], str]] = {}
    hand = {"python": PYTHON_CASES, "rust": RUST_CASES, "swift": SWIFT_CASES}
    for profile in ("python", "rust", "swift"):
        for tool, arguments, label in [*derived_cases(profile), *hand[profile]]:
            found.setdefault(case_key(profile, tool, arguments), (profile, tool, arguments, label))
    return list(found.values())


CASES = all_cases()


@dataclass
class Answer:
    is_error: bool
    structured: Any
    text: str


@dataclass
class Parity:
    ids: dict[str, str]
    answers: dict[str, dict[str, Answer]]  # case -> transport -> answer
    control_clients: dict[str, list[tuple[int, str]]]  # profile -> clients during its run
    outsider: int
    state_before: list[str]
    state_after: list[str]


def build_world(tmux: TmuxServer) -> dict[str, str]:
    """A 2x2 grid with text, a second session, a window linked into both sessions,
    a hook, environment variables and user options. Returns names -> ids."""
    grid = tmux.grid()
    ids = {"tl": grid["top-left"], "tr": grid["top-right"], "bl": grid["bottom-left"]}
    ids["br"] = grid["bottom-right"]  # stays a plain shell
    ids["grid"] = tmux.tmux("display-message", "-p", "-t", ids["tl"], "#{window_id}").strip()
    hold = "exec sleep 1000000"
    tmux.tmux("respawn-pane", "-k", "-t", ids["tl"], f"printf 'alpha-1\\nbeta-2\\n'; {hold}")
    tmux.tmux("respawn-pane", "-k", "-t", ids["tr"], f"seq 1 40 | sed 's/^/gamma-/'; {hold}")
    tmux.tmux("respawn-pane", "-k", "-t", ids["bl"], f"printf 'alpha-bl\\n'; {hold}")
    tmux.tmux("select-pane", "-t", ids["tr"])
    ids["active"] = ids["tr"]

    ids["second"] = tmux.tmux(
        "new-session", "-d", "-s", "second", "-x", "150", "-y", "40", "-P", "-F", "#{session_id}",
        f"printf 'second line\\n'; {hold}",
    ).strip()  # fmt: skip
    linked = tmux.tmux(
        "new-window", "-d", "-t", "main:", "-n", "linked", "-P", "-F", "#{window_id} #{pane_id}",
        f"printf 'a line\\n'; {hold}",
    ).split()  # fmt: skip
    ids["linked"], ids["la"] = linked
    long_line = "x" * 230  # wider than the pane: joinWrapped matters
    ids["lb"] = tmux.tmux(
        "split-window", "-h", "-d", "-t", ids["la"], "-P", "-F", "#{pane_id}",
        f"printf 'b line\\n{long_line}\\nlast line\\n'; {hold}",
    ).strip()  # fmt: skip
    tmux.tmux("link-window", "-d", "-s", ids["linked"], "-t", "second:7")

    tmux.tmux("set-hook", "-g", "alert-bell", "display-message tcm-bell")
    tmux.tmux("set-buffer", "-b", GIVEN["buffer_name"], "buffer line one\nbuffer line two")
    tmux.tmux("set-hook", "-t", "second", "session-renamed", "set-option -g @renamed 1")
    tmux.tmux("set-environment", "-g", "TCM_GLOBAL", "global value")
    tmux.tmux("set-environment", "-t", "main", "TCM_MAIN", "main value")
    tmux.tmux("set-environment", "-t", "second", "-r", "TCM_GONE")
    tmux.tmux("set-option", "-g", "@tcm-user", "hello  world; #{not expanded}")
    tmux.tmux("set-option", "-w", "-t", ids["linked"], "@tcm-window", "per window")
    tmux.tmux("set-option", "-t", "second", "status-left", "[second]")
    ids["socket"] = tmux.name
    for pane, text in (
        (ids["tl"], "beta-2"),
        (ids["tr"], "gamma-40"),
        (ids["bl"], "alpha-bl"),
        (ids["la"], "a line"),
        (ids["lb"], "last line"),
    ):
        wait_for_text(tmux, pane, text)
    return ids


def attach_outsider(tmux: TmuxServer, session: str) -> subprocess.Popen[bytes]:
    """Someone else's client, attached to ``session`` for as long as it runs."""
    outsider = subprocess.Popen(
        [TMUX, "-L", tmux.name, "-C", "attach-session", "-t", session],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={key: tmux.env[key] for key in ("PATH", "HOME", "TMUX_TMPDIR")},
    )
    deadline = time.monotonic() + DEADLINE
    while not any(pid == outsider.pid for pid, _ in clients(tmux)):
        assert time.monotonic() < deadline, "the outside client never attached"
        time.sleep(0.02)
    return outsider


def detach(process: subprocess.Popen[bytes]) -> None:
    assert process.stdin is not None
    process.stdin.close()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def world() -> Iterator[tuple[TmuxServer, dict[str, str], int]]:
    tmux = TmuxServer.start()
    outsider: subprocess.Popen[bytes] | None = None
    try:
        ids = build_world(tmux)
        outsider = attach_outsider(tmux, "second")
        yield tmux, ids, outsider.pid
    finally:
        if outsider is not None:
            detach(outsider)
        tmux.kill()


# The parity calls, made once for the module by whichever of its tests runs first (17 s), are
# allowed 120 s of their own; each test that may be that first one gets longer than the default.
PARITY_TIMEOUT = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
async def parity(world: tuple[TmuxServer, dict[str, str], int]) -> Parity:
    """Every case, asked of one server per (profile, transport) in turn.

    The servers run one after the other, never side by side: a control transport's client
    is hidden only from the process that owns it, so a second server running beside it
    would rightly count it as someone's attached client. Between two runs the tmux state
    is the same: the finished server's client is gone before the next one starts.
    """
    tmux, ids, outsider = world
    state_before = tmux.state()
    answers: dict[str, dict[str, Answer]] = {}
    control_clients: dict[str, list[tuple[int, str]]] = {}
    with anyio.fail_after(120):
        for profile in ("python", "rust", "swift"):
            mine = [c for c in CASES if c[0] == profile]
            for transport in TRANSPORTS:
                async with open_client(server_env(tmux, transport), profile) as client:
                    for _, tool, arguments, _ in mine:
                        result = await client.session.call_tool(tool, resolve(arguments, ids))
                        answers.setdefault(case_key(profile, tool, arguments), {})[transport] = (
                            Answer(
                                bool(result.is_error), result.structured_content, error_text(result)
                            )
                        )
                    if transport == "control":
                        control_clients[profile] = clients(tmux)
                await eventually(
                    lambda: [pid for pid, _ in clients(tmux)] == [outsider],
                    "the finished server's control client to leave",
                )
    return Parity(ids, answers, control_clients, outsider, state_before, tmux.state())


@PARITY_TIMEOUT
@pytest.mark.parametrize(
    ("profile", "tool", "arguments"),
    [pytest.param(p, t, a, id=f"{p}-{t}-{label}") for p, t, a, label in CASES],
)
async def test_a_read_answers_the_same_over_both_transports(
    parity: Parity, profile: str, tool: str, arguments: dict[str, Any]
) -> None:
    """Equal answers, but for what differs between any two processes or calls: refs and
    cursors (sealed with each process's own secret) and durations (measured per call)."""
    answers = parity.answers[case_key(profile, tool, arguments)]
    control, plain = answers["control"], answers["subprocess"]
    for answer in (control, plain):
        if not answer.is_error:
            schema = contracts(profile)[tool]["outputSchema"]
            Draft202012Validator(schema).validate(answer.structured)
    failing = any(value in UNKNOWN_IDS for value in arguments.values())
    assert control.is_error is failing, control.text
    assert plain.is_error is failing, plain.text
    if failing:
        assert control.text == plain.text
    else:
        assert comparable(control.structured) == comparable(plain.structured)
    # The control transport's client really was attached while it answered...
    ours = [c for c in parity.control_clients[profile] if c[0] != parity.outsider]
    assert [session for _, session in ours] == ["main"], parity.control_clients[profile]
    # ...and every session a result shows is attached exactly where someone else's client is.
    # (The outsider is a control-mode client: the rust family never counts those.)
    attached = attached_by_name(control.structured)
    expected = {name: name == "second" and profile != "rust" for name in attached}
    assert attached == expected, attached
    if tool == "list_sessions" and not failing:
        assert attached == {"main": False, "second": profile != "rust"}, attached


@PARITY_TIMEOUT
async def test_every_read_tool_of_every_profile_answered_on_both_transports(
    parity: Parity,
) -> None:
    """The registry's read tools, each with at least one call both transports answered."""
    for profile in ("python", "rust", "swift"):
        answered = {
            tool
            for case_profile, tool, arguments, _ in CASES
            if case_profile == profile
            and not any(
                answer.is_error
                for answer in parity.answers[case_key(profile, tool, arguments)].values()
            )
        }
        assert {entry.name for entry in read_tools(profile)} <= answered, profile


@PARITY_TIMEOUT
async def test_the_parity_calls_left_the_tmux_state_as_it_was(parity: Parity) -> None:
    assert parity.state_after == parity.state_before
    selected = parity.answers[case_key("rust", *RUST_CASES[0][:2])]["control"]
    assert selected.structured["id"] == parity.ids["active"]


# --- 2. the control client never makes a session look attached ------------------------------


async def test_the_control_client_is_attached_but_no_session_looks_attached(
    tmux: TmuxServer,
) -> None:
    tmux.tmux("new-session", "-d", "-s", "other")
    pane = quiet_pane(tmux, "ready")
    with anyio.fail_after(DEADLINE):
        async with open_client(server_env(tmux, "control"), "swift") as client:
            await client.ok("list_panes")
            await client.ok("list_windows")
            await client.ok("get_server_info")
            first = await client.ok("capture_since", {"paneId": pane})
            sessions = (await client.ok("list_sessions"))["sessions"]
            assert {s["name"]: s["isAttached"] for s in sessions} == {
                "main": False,
                "other": False,
            }
            for session in sessions:
                info = await client.ok("get_session_info", {"session": session["id"]})
                assert info["session"]["isAttached"] is False
            # It is hidden, not absent: tmux shows our server's one control client.
            (ours,) = clients(tmux)
            assert parent_of(ours[0]) == mcp_server_pid(tmux)
            assert ours[1] in {s["name"] for s in sessions}

            # A wait attaches a second, output-receiving client; it is hidden as well.
            waited: dict[str, Any] = {}

            async def wait() -> None:
                arguments = {"paneId": pane, "cursor": first["cursor"], "waitMs": 5000}
                waited.update(await client.ok("capture_since", arguments))

            async with anyio.create_task_group() as group:
                group.start_soon(wait)
                await eventually(lambda: len(clients(tmux)) == 2, "the wait's output client")
                during = (await client.ok("list_sessions"))["sessions"]
                info = await client.ok("get_session_info", {"session": "main"})
                attached_now = clients(tmux)
                parents = {parent_of(pid) for pid, _ in attached_now}
                await anyio.to_thread.run_sync(type_line, tmux, pane, "late")
            assert {s["name"]: s["isAttached"] for s in during} == {
                "main": False,
                "other": False,
            }
            assert info["session"]["isAttached"] is False
            assert len(attached_now) == 2
            assert parents == {mcp_server_pid(tmux)}
            assert waited["lines"] == ["late"]


# --- 3. a slow wait never blocks a fast read -------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_waiting_capture_since_does_not_hold_up_a_list_panes(
    tmux: TmuxServer, transport: str
) -> None:
    pane = quiet_pane(tmux, "quiet")
    with anyio.fail_after(DEADLINE):
        async with open_client(server_env(tmux, transport), "swift") as client:
            first = await client.ok("capture_since", {"paneId": pane})
            baseline = len(clients(tmux))
            order: list[str] = []
            results: dict[str, types.CallToolResult] = {}

            async def wait() -> None:
                arguments = {"paneId": pane, "cursor": first["cursor"], "waitMs": 5000}
                results["capture_since"] = await client.session.call_tool(
                    "capture_since", arguments
                )
                order.append("capture_since")

            async def read() -> None:
                await eventually(
                    lambda: len(clients(tmux)) == baseline + 1, "the wait to start waiting"
                )
                results["list_panes"] = await client.session.call_tool("list_panes", {})
                order.append("list_panes")
                # Only now wake the wait: had list_panes queued behind it, the wait would
                # have run out its 5 s first and answered first, with no lines.
                await anyio.to_thread.run_sync(type_line, tmux, pane, "woken")

            async with anyio.create_task_group() as group:
                group.start_soon(wait)
                group.start_soon(read)
    assert order == ["list_panes", "capture_since"]
    listed = results["list_panes"]
    assert not listed.is_error, error_text(listed)
    assert listed.structured_content is not None
    assert pane in {p["id"] for p in listed.structured_content["panes"]}
    waited = results["capture_since"]
    assert not waited.is_error, error_text(waited)
    assert waited.structured_content is not None
    assert waited.structured_content["lines"] == ["woken"]


# --- 4. cancelling a wait leaves nothing behind --------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_cancelled_wait_leaves_no_client_and_no_process_behind(
    tmux: TmuxServer, transport: str
) -> None:
    pane = quiet_pane(tmux, "idle")
    with anyio.fail_after(DEADLINE):
        async with open_client(server_env(tmux, transport), "swift") as client:
            first = await client.ok("capture_since", {"paneId": pane})  # attaches ours, if any
            server = mcp_server_pid(tmux)
            clients_before = clients(tmux)
            processes_before = tmux_processes(tmux)
            children_before = children(server)
            answered: list[types.CallToolResult] = []
            scope = anyio.CancelScope()

            async def wait() -> None:
                with scope:
                    arguments = {"paneId": pane, "cursor": first["cursor"], "waitMs": 10_000}
                    answered.append(await client.session.call_tool("capture_since", arguments))

            async with anyio.create_task_group() as group:
                group.start_soon(wait)
                await eventually(
                    lambda: len(clients(tmux)) == len(clients_before) + 1,
                    "the wait's output client",
                )
                # The wait's client is one more tmux process of this socket (once any
                # one-off command the wait ran before it began waiting has ended).
                await eventually(
                    lambda: len(tmux_processes(tmux)) == len(processes_before) + 1,
                    "exactly one extra tmux process",
                )
                # The SDK sends notifications/cancelled for a request whose caller gives up.
                scope.cancel()
            assert answered == []

            def nothing_left() -> bool:
                return (
                    clients(tmux) == clients_before
                    and tmux_processes(tmux) == processes_before
                    and children(server) == children_before
                )

            # Bounded well inside the 10 s the wait would have lasted had it not been cancelled.
            await eventually(nothing_left, "the wait's client and process to go", deadline=7.0)

            # The server lives on: a plain read, and a wait that still wakes.
            listed = await client.ok("list_panes")
            assert pane in {p["id"] for p in listed["panes"]}
            again: dict[str, Any] = {}

            async def wait_again() -> None:
                arguments = {"paneId": pane, "cursor": first["cursor"], "waitMs": 5000}
                again.update(await client.ok("capture_since", arguments))

            async with anyio.create_task_group() as group:
                group.start_soon(wait_again)
                await eventually(
                    lambda: len(clients(tmux)) == len(clients_before) + 1,
                    "the new wait's output client",
                )
                await anyio.to_thread.run_sync(type_line, tmux, pane, "still here")
            assert again["lines"] == ["still here"]
            await eventually(nothing_left, "the second wait's client to go")


# --- 5. reconnecting after the session or the server went away ---------------------------


def start_again(tmux: TmuxServer, session: str) -> None:
    """A new server on the same socket (the old one may take a moment to let go of it)."""
    deadline = time.monotonic() + DEADLINE
    while True:
        try:
            tmux.tmux(
                "-f", "/dev/null", "start-server", ";",
                "set-option", "-g", "default-shell", "/bin/sh", ";",
                "new-session", "-d", "-s", session, "-x", "200", "-y", "50",
            )  # fmt: skip
            return
        except RuntimeError:
            assert time.monotonic() < deadline, "no new server would start on the socket"
            time.sleep(0.05)


async def test_the_control_transport_reconnects_after_its_session_and_its_server_die(
    tmux: TmuxServer,
) -> None:
    tmux.tmux("new-session", "-d", "-s", "other")
    with anyio.fail_after(DEADLINE):
        async with open_client(server_env(tmux, "control"), "swift") as client:
            names = {s["name"] for s in (await client.ok("list_sessions"))["sessions"]}
            assert names == {"main", "other"}
            ((first_pid, attached_to),) = clients(tmux)
            survivor = ({"main", "other"} - {attached_to}).pop()

            # Its session dies: the next read answers from a new client.
            tmux.tmux("kill-session", "-t", attached_to)
            sessions = (await client.ok("list_sessions"))["sessions"]
            assert [(s["name"], s["isAttached"]) for s in sessions] == [(survivor, False)]
            panes = (await client.ok("list_panes"))["panes"]
            assert {p["id"] for p in panes} == set(tmux.lines("list-panes", "-a", "-F", "#D"))
            ((second_pid, now_attached_to),) = clients(tmux)
            assert second_pid != first_pid
            assert now_attached_to == survivor
            await eventually(
                lambda: first_pid not in tmux_processes(tmux), "the old client to exit"
            )

            # The whole server dies: a clear answer, no hang.
            tmux.tmux("kill-server")
            message = await client.error("list_sessions")
            assert "no tmux server is running" in message
            assert tmux.socket_path in message
            info = await client.ok("get_server_info")
            assert info == {"running": False, "socketPath": tmux.socket_path}
            message = await client.error("list_panes")
            assert "no tmux server is running" in message

            # A new server on the same socket: calls work again.
            start_again(tmux, "again")
            info = await client.ok("get_server_info")
            assert info["running"] is True
            sessions = (await client.ok("list_sessions"))["sessions"]
            assert [(s["name"], s["isAttached"]) for s in sessions] == [("again", False)]
            panes = (await client.ok("list_panes"))["panes"]
            assert {p["id"] for p in panes} == set(tmux.lines("list-panes", "-a", "-F", "#D"))
            ((third_pid, _),) = clients(tmux)
            assert parent_of(third_pid) == mcp_server_pid(tmux)


# --- 6. a pane printing a lot is not stalled by the server's control client ----------------


@pytest.mark.timeout(180)  # 1.5 s; it allows itself 120 s
async def test_a_pane_printing_300000_lines_finishes_with_only_the_control_client_attached(
    tmux: TmuxServer,
) -> None:
    with anyio.fail_after(120):
        async with open_client(server_env(tmux, "control"), "swift") as client:
            await client.ok("list_sessions")
            ((ours, _),) = clients(tmux)  # the only client attached
            assert parent_of(ours) == mcp_server_pid(tmux)
            # pane_dead is no marker: tmux 3.3a may drop a dead pane's last unread output.
            command = "seq 300000; echo printed-all; exec sleep 1000000"
            pane = tmux.tmux(
                "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:", command
            ).strip()
            deadline = time.monotonic() + 90
            while True:
                lines = (await client.ok("capture_pane", {"paneId": pane}))["lines"]
                if "printed-all" in lines:
                    break
                assert time.monotonic() < deadline, f"the pane stalled at {lines[-1:]}"
                await anyio.sleep(0.1)
            assert lines[-3:] == ["299999", "300000", "printed-all"]
            assert clients(tmux) == [(ours, "main")]
