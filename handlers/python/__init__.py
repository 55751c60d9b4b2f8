"""The python profile (the libtmux-mcp surface): one handler object composed from parts.

Each part holds the tools of one kind of tmux object (``server``, ``sessions``,
``windows``, ``panes``, ``buffers``; a pane's text, input, waits and commands),
the options, the channels, the agents tool set (``agents``), or a surface that is not a tool (``resources``,
``prompts``), and is built here from the services it needs, once per server
process: the tmux core (``Tmux``), the secret that seals capture_since cursors,
and the parts the resources answer with. Every tool method runs the session
pair check first (``targets.session_pair_check``).
"""

from __future__ import annotations

from collections.abc import Mapping

from ...generated.python.interface import PythonProfileHandlers
from ...generated.python.registry import TOOLS
from ..compose import compose
from ..lifecycle import Lifecycle
from ..services import Runtime
from ..tmux.objects import Tmux
from ..tmux.objects.refs import Refs
from ..tmux.transport.hosts import Hosts
from .agents import AgentTools
from .batch import BatchTools
from .buffers import BufferTools
from .channels import ChannelTools
from .options import OptionTools
from .pane_commands import PaneCommandTools
from .pane_input import PaneInputTools
from .pane_text import PaneTextTools
from .pane_waits import PaneWaitTools
from .panes import PaneTools
from .prompts import Prompts
from .resources import Resources
from .server import ServerTools
from .sessions import SessionTools
from .targets import session_pair_check
from .windows import WindowTools


def create_handlers(environ: Mapping[str, str], runtime: Runtime) -> PythonProfileHandlers:
    """The profile's handler object; ``runtime`` serves the batch's nested calls."""
    hosts = runtime.hosts
    tmux = Tmux(environ, hosts=Hosts(hosts.ssh, hosts.idle_seconds, hosts.list_seconds))
    sessions, windows, panes = SessionTools(tmux), WindowTools(tmux), PaneTools(tmux)
    text = PaneTextTools(tmux, Refs())
    parts = [
        Lifecycle(tmux),
        ServerTools(tmux),
        sessions,
        windows,
        panes,
        text,
        PaneInputTools(tmux),
        PaneWaitTools(tmux),
        PaneCommandTools(tmux),
        BufferTools(tmux),
        OptionTools(tmux),
        ChannelTools(tmux),
        AgentTools(tmux),
        BatchTools(runtime),
        Resources(tmux, sessions, windows, panes, text),
        Prompts(),
    ]
    handlers = compose(
        PythonProfileHandlers,
        parts,
        wrap=session_pair_check(tmux),
        wrapped=[entry.method for entry in TOOLS],
    )
    assert isinstance(handlers, PythonProfileHandlers)  # compose built it from this interface
    return handlers
