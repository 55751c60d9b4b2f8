"""The swift profile's ``tmux://capabilities`` resource, read through the real client.

One tmux server and one MCP server serve the module, with a tool selection
(only the inspect toolset, two tools excluded), so the resource has something
to report; every value is compared with what tools/list says or with tmux.
"""

from __future__ import annotations

import shlex
import subprocess
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from scripts.lab.client import Client
from scripts.lab.tmuxserver import TmuxServer
from tmux_contract_mcp.profiles import load_profile

pytestmark = pytest.mark.anyio

CAPABILITY = "com.git-pull.libtmux-mcp/capability"
EXCLUDED = ["search_panes", "show_hooks"]
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


async def capabilities(client: Client) -> dict[str, Any]:
    found = await client.read("tmux://capabilities", "capabilities")
    assert isinstance(found, dict)
    return found


@pytest.fixture(scope="module")
def swift_env() -> dict[str, str]:
    """Only the inspect toolset, two of its tools excluded: the resource reports a selection."""
    return {"LIBTMUX_TOOLSETS": "inspect", "LIBTMUX_EXCLUDE_TOOLS": ",".join(EXCLUDED)}


async def test_each_row_is_the_listed_tool_with_its_capability_record(swift_client: Client) -> None:
    listed = {
        tool.name: tool.model_dump(mode="json", by_alias=True, exclude_none=True)
        for tool in (await swift_client.session.list_tools()).tools
    }
    found = await capabilities(swift_client)
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


async def test_the_selection_is_what_the_environment_chose(swift_client: Client) -> None:
    found = await capabilities(swift_client)
    assert found["selection"] == {
        "toolsets": ["inspect"],
        "toolsetsOff": ["execute", "manage", "teardown"],
        "includedTools": [],
        "excludedTools": EXCLUDED,
    }


async def test_the_socket_is_the_running_server_this_process_found(
    shared: TmuxServer, swift_client: Client
) -> None:
    found = await capabilities(swift_client)
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
    shared: TmuxServer, swift_client: Client
) -> None:
    """The command, run as a shell would (without attaching: ``display`` instead of
    ``attach``), reaches the very server the resource names."""
    command = (await capabilities(swift_client))["connection"]["attachCommand"]
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
    shared: TmuxServer, swift_client: Client
) -> None:
    mark = shared.mark()
    message = await swift_client.error(
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
        await swift_client.session.call_tool("search_panes", {"pattern": "x"})
