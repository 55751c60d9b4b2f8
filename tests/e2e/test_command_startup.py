"""What starting the command costs: the MCP SDK loads only to serve, and what serving loads
is kept out of the cyclic collector's way.

Each probe runs the command's ``main`` in a Python of its own, so what it finds loaded or
collected is that start's alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tmux_contract_mcp.profiles import PROFILES

pytestmark = pytest.mark.timeout(180)  # 1 to 2 s a test; each probe is allowed 120 s


def probe(code: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        env={key: value for key, value in os.environ.items() if not key.startswith("LIBTMUX_")},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


# What the command loads for each answer that serves nothing, then (the control) for serving.
LOADED_SDK = """
import contextlib, io, sys
from tmux_contract_mcp.cli import main
for argv in sys.argv[1:]:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        main(argv.split())
print(sorted({name.split(".")[0] for name in sys.modules} & {"mcp", "mcp_types"}))
import tmux_contract_mcp.server
print(sorted({name.split(".")[0] for name in sys.modules} & {"mcp", "mcp_types"}))
"""


def test_version_help_and_list_tools_load_no_mcp_sdk() -> None:
    """The SDK takes most of a start's time; only serving needs it."""
    argvs = ["--version", "--help", *(f"--profile {name} --list-tools" for name in PROFILES)]
    assert probe(LOADED_SDK, *argvs).splitlines() == ["[]", "['mcp', 'mcp_types']"]


# Collections that start from the moment the SDK begins to load until serving would begin,
# and, at that moment, what the collector still tracks. ``anyio.run`` stands in for
# serving: the state is read there, and nothing is served.
COLLECTED_WHILE_LOADING = """
import gc, json, sys
import anyio

loading = []
loaded = []

def watch(phase, info):
    if phase == "start" and "mcp" in sys.modules and not loaded:
        loading.append(info["generation"])

gc.callbacks.append(watch)
found = {}

def serve(function, profile, handlers):
    loaded.append(True)
    made_now = [[]]
    tracked = gc.get_objects()
    found[profile.name] = {
        "collections while loading": len(loading),
        "collector on": gc.isenabled(),
        "SDK tracked": any(o is sys.modules["mcp.types"].Tool for o in tracked),
        "handlers tracked": any(o is type(handlers) for o in tracked),
        "made while serving tracked": any(o is made_now for o in gc.get_objects()),
    }
    return 0  # serving's exit status

if sys.argv[1] == "import":  # the control: the same load, collector on
    import tmux_contract_mcp.server
    loaded.append(True)
    print(json.dumps(len(loading)))
else:
    anyio.run = serve
    from tmux_contract_mcp.cli import main
    assert main([]) == 0
    (state,) = found.values()
    print(json.dumps(state))
"""


def test_serving_loads_with_the_collector_off_and_keeps_what_it_loaded_out_of_its_way() -> None:
    """The SDK and the handlers live as long as the process: walking them, again and again
    while they load and once more at exit, was about a fifth of a start's CPU."""
    assert json.loads(probe(COLLECTED_WHILE_LOADING, "import")) > 0  # the watch sees them
    assert json.loads(probe(COLLECTED_WHILE_LOADING, "serve")) == {
        "collections while loading": 0,
        "collector on": True,
        "SDK tracked": False,
        "handlers tracked": False,
        "made while serving tracked": True,
    }
