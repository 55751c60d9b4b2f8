"""The swift profile's ``tmux://capabilities`` resource, read through the real client.

One tmux server and one MCP server serve the module, with a tool selection
(only the inspect toolset, two tools excluded), so the resource has something
to report; every value is compared with what tools/list says or with tmux.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from scripts.lab.client import Client, open_client
from scripts.lab.tmuxserver import TmuxServer
from tmux_contract_mcp.profiles import load_profile

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

CAPABILITY = "com.git-pull.libtmux-mcp/capability"
EXCLUDED = ["search_panes", "show_hooks"]
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


@pytest.fixture(scope="module")
async def client(shared: TmuxServer) -> AsyncIterator[Client]:
    env = shared.server_env(LIBTMUX_TOOLSETS="inspect", LIBTMUX_EXCLUDE_TOOLS=",".join(EXCLUDED))
    async with open_client(env, "swift") as opened:
        yield opened


async def capabilities(client: Client) -> dict[str, Any]:
    found = await client.read("tmux://capabilities", "capabilities")
    assert isinstance(found, dict)
    return found


async def test_each_row_is_the_listed_tool_with_its_capability_record(client: Client) -> None:
    listed = {
        tool.name: tool.model_dump(mode="json", by_alias=True, exclude_none=True)
        for tool in (await client.session.list_tools()).tools
    }
    found = await capabilities(client)
    assert found["effectiveTools"] == sorted(listed)
    inspect = {
        t.entry.name for t in load_profile("swift").tools.values() if t.entry.toolset == "inspect"
    }
    assert found["toolCount"] == len(listed) == len(inspect - set(EXCLUDED))
    assert not set(EXCLUDED) & set(found["effectiveTools"])
    for row in found["tools"]:
        tool = listed[row["name"]]
        assert {
            key: row[key] for key in ("title", "description", "inputSchema", "outputSchema")
        } == {key: tool[key] for key in ("title", "description", "inputSchema", "outputSchema")}
        assert row["annotations"] == {hint: tool["annotations"][hint] for hint in HINTS}
        record = {
            key: value
            for key, value in row.items()
            if key not in {"name", "title", "description", "inputSchema", "outputSchema"}
            and key != "annotations"
        }
        assert record == tool["_meta"][CAPABILITY]


async def test_the_selection_is_what_the_environment_chose(client: Client) -> None:
    found = await capabilities(client)
    assert found["selection"] == {
        "toolsets": ["inspect"],
        "toolsetsOff": ["execute", "manage", "teardown"],
        "includedTools": [],
        "excludedTools": EXCLUDED,
    }


async def test_the_socket_is_the_running_server_this_process_found(
    shared: TmuxServer, client: Client
) -> None:
    found = await capabilities(client)
    reported = shared.tmux("display-message", "-p", "#{socket_path}").strip()
    connection = found["connection"]
    assert connection["resolvedSocketPath"] == reported == shared.socket_path
    assert connection["socketSelector"] == f"name:{shared.name}"
    assert connection["socketProvenance"] == "operator-current"
    assert (connection["serverState"], connection["configurationProvenance"]) == (
        "existing",
        "unknown",
    )
    assert connection["attachCommand"].endswith(f" -N -L '{shared.name}' attach")
    assert found["socket"] == {
        "namespaceBoundary": "tmux-objects-only",
        "selector": connection["socketSelector"],
        "selectionProvenance": connection["socketProvenance"],
        "serverState": connection["serverState"],
        "configurationProvenance": connection["configurationProvenance"],
    }
    assert found["boundary"] == {
        "oneSocketPerProcess": True,
        "perCallSocketSelection": False,
        "hostCommandExecution": False,
        "dynamicResources": False,
    }
    assert (found["schemaVersion"], found["frozen"], found["hostCommandTools"]) == (1, True, 0)


async def test_the_attach_command_attaches_to_that_server(
    shared: TmuxServer, client: Client
) -> None:
    """The command, run as a shell would (without attaching: ``display`` instead of
    ``attach``), reaches the very server the resource names."""
    command = (await capabilities(client))["connection"]["attachCommand"]
    words = shlex.split(command)
    assert words[-1] == "attach"
    done = subprocess.run(  # the environment the server ran with: its TMUX_TMPDIR, its tmux
        [*words[:-1], "display-message", "-p", "#{pid}"],
        capture_output=True,
        text=True,
        env=shared.server_env(),
        timeout=10,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == shared.tmux("display-message", "-p", "#{pid}").strip()


async def test_an_excluded_tool_is_out_of_the_batchs_reach(
    shared: TmuxServer, client: Client
) -> None:
    mark = shared.mark()
    message = await client.error(
        "call_read_tools_batch",
        {
            "operations": [
                {"tool": "list_sessions"},
                {"tool": "search_panes", "arguments": {"pattern": "x"}},
            ]
        },
    )
    assert message.startswith("Invalid argument `operations[1].tool`: 'search_panes' is not served")
    shared.assert_nothing_sent_since(mark)
    with pytest.raises(MCPError, match="Unknown tool: 'search_panes'"):
        await client.session.call_tool("search_panes", {"pattern": "x"})
