"""Text that tmux and the operating system cannot carry is refused up front, in every tool.

A NUL (``\\u0000``) or a lone surrogate (``\\ud800``) in any string a tool takes is a
refusal that names the field and the rule, and nothing is sent to tmux. The cases come
from each profile's generated tools: every place its input schema lets a string stand
(``scripts.fuzz.schemas.string_paths``), so a new tool is covered without an edit here.
Calls go over stdio through the MCP client; lone surrogates travel as JSON escapes
(``scripts.fuzz.wire``: the SDK's own writer refuses them).
"""

from __future__ import annotations

import json
from contextlib import suppress
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest

from scripts.fuzz.schemas import holding, inline_refs, string_paths
from scripts.fuzz.targets import advertised, registry
from scripts.fuzz.wire import Launch, call, connected
from scripts.lab.client import COMMAND
from scripts.lab.tmuxserver import TmuxServer
from tmux_contract_mcp.generated import PROFILES
from tmux_contract_mcp.text_rule import RULE
from tmux_contract_mcp.validation import json_path

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("profile", PROFILES)
async def test_every_string_of_every_tool_refuses_nul_and_lone_surrogates_and_sends_nothing(
    shared: TmuxServer, scratch: Path, profile: str
) -> None:
    env = shared.server_env(LIBTMUX_TOOLSETS=",".join(registry(profile).TOOLSETS))
    launch = Launch((COMMAND, "--profile", profile), env, scratch, scratch / f"{profile}.err")
    checked = cases(profile)
    wrong: list[str] = []
    async with connected(launch) as (session, process):
        listed = {tool.name for tool in (await session.list_tools()).tools}
        assert listed == set(advertised(profile)), "every generated tool is served"
        mark = shared.mark()
        for tool, what, arguments, field in checked:
            answer = await call(session, process, tool, arguments, 30)
            result = answer.result
            if result is None:
                wrong.append(f"{tool} {what}: no result ({answer})")
                continue
            message = text_of(result)
            if not (result.is_error and field in message and f"(rule: {RULE})" in message):
                wrong.append(f"{tool} {what} {arguments!r}: {message[:300]}")
        shared.assert_nothing_sent_since(mark, f"{profile}: a refused call")
        # The log does see a call that runs: the same places holding a live pane id.
        pane = shared.active_pane()
        for tool, _, arguments, _ in checked:
            clean = arguments if arguments else {}
            await call(session, process, tool, _replaced(clean, pane), 30)
            if shared.sent_since(mark):
                break
        assert shared.sent_since(mark), "a call that runs reaches tmux and the log"
    assert not wrong, "\n".join(wrong[:20])
    assert len({case[0] for case in checked}) == len(advertised(profile))


BROKEN = {"NUL": "a\x00b", "lone surrogate": "a\ud800b"}


def text_of(result: types.CallToolResult) -> str:
    """The message a reader sees: an error envelope's ``message`` read out of its JSON."""
    text = " ".join(c.text for c in result.content if isinstance(c, types.TextContent))
    with suppress(ValueError):
        value = json.loads(text)
        if isinstance(value, dict) and isinstance(value.get("message"), str):
            return str(value["message"])
    return text


def cases(profile: str) -> list[tuple[str, str, dict[str, Any], str]]:
    """(tool, what, arguments, the field the refusal must name) for every string place of
    every tool; a tool that takes no string gets the fault in a key."""
    found = []
    for name, tool in sorted(advertised(profile).items()):
        paths = string_paths(inline_refs(tool["inputSchema"]))
        for what, text in BROKEN.items():
            for path in paths:
                arguments = holding(path, text)
                found.append((name, what, arguments, f"`{json_path(path)}`"))
            if not paths and what == "NUL":  # a key (the SDK client rewrites a lone
                # surrogate in a key; test_argument_rules_e2e sends one over raw pipes)
                found.append((name, what, {text: 1}, "the key 'a\\x00b'"))
    return found


def _replaced(value: Any, text: str) -> Any:
    """``value`` with every string and key that breaks the rule replaced by ``text``."""
    if isinstance(value, str):
        return text if value in BROKEN.values() else value
    if isinstance(value, dict):
        return {_replaced(k, text): _replaced(v, text) for k, v in value.items()}
    if isinstance(value, list):
        return [_replaced(item, text) for item in value]
    return value


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("nul-rule")
