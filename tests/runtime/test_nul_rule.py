"""Text that tmux and the operating system cannot carry is refused up front, in every tool.

A NUL (``\\u0000``) or a lone surrogate (``\\ud800``) in any string a tool takes is a
refusal that names the field and the rule, and nothing is sent to tmux. The cases come
from each profile's generated tools: every place its input schema lets a string stand
(``scripts.fuzz.schemas.string_paths``), so a new tool is covered without an edit here.
Here the refusal's wording, through the MCP client; every string of every tool, sent as
JSON escapes over the command's pipes (the SDK's own writer refuses lone surrogates), is
tests/e2e/test_nul_rule.py.
"""

from __future__ import annotations

import pytest

from scripts.lab.client import Client
from scripts.lab.tmuxserver import TmuxServer
from tmux_contract_mcp.text_rule import RULE

pytestmark = pytest.mark.anyio


# --- the three the outside harness found (python) -------------------------------------------


@pytest.mark.parametrize(
    ("tool", "field"),
    [("rename_window", "new_name"), ("rename_session", "new_name"),
     ("display_message", "format_string")],
)  # fmt: skip
async def test_a_nul_in_a_name_or_format_is_refused_as_invalid_input_naming_the_field(
    shared: TmuxServer, python_client: Client, tool: str, field: str
) -> None:
    before = shared.state()
    mark = shared.mark()
    message = await python_client.error(tool, {field: "a\u0000b"})
    assert f"`{field}` holds a NUL character (U+0000) at character 1" in message, message
    assert f"(rule: {RULE})" in message and "Nothing was run" in message, message
    assert "failed inside the server" not in message
    shared.assert_nothing_sent_since(mark, tool)
    assert shared.state() == before
