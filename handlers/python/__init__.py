"""The python profile (the libtmux-mcp surface): one handler object composed from parts.

Each part is built here from the services it needs, once per server process:
the tmux core (``Tmux``), the caller's identity and core lifecycle
(``TmuxHandlers``), the secret that seals capture_since cursors, and the
listing and reading parts the resources answer with. Every tool method runs
the session pair check first (``sessions.session_pair_check``).
"""

from __future__ import annotations

from collections.abc import Mapping

from ...generated.python.interface import PythonProfileHandlers
from ...generated.python.registry import TOOLS
from ..compose import compose
from ..lifecycle import TmuxHandlers
from ..services import Runtime
from ..tmux.objects.refs import Refs
from ..tmux.objects.server import Tmux
from .batch import BatchTools
from .commands import RunCommandTools
from .config import ConfigTools
from .creating import CreatingTools
from .keys import KeyTools
from .listing import ListingTools
from .panes import PaneTools
from .pasting import PasteTools
from .prompts import PromptTools
from .reading import ReadingTools
from .resources import ResourceTools
from .selecting import SelectingTools
from .sessions import session_pair_check
from .teardown import TeardownTools
from .waiting import WaitingTools
from .windows import WindowTools


def create_handlers(environ: Mapping[str, str], runtime: Runtime) -> PythonProfileHandlers:
    """The profile's handler object; ``runtime`` serves the batch's nested calls."""
    tmux = Tmux(environ)
    listing = ListingTools(tmux)
    reading = ReadingTools(tmux, Refs())
    parts = [
        TmuxHandlers(tmux),
        listing,
        reading,
        ResourceTools(tmux, listing, reading),
        WaitingTools(tmux),
        ConfigTools(tmux),
        BatchTools(runtime),
        WindowTools(tmux),
        PaneTools(tmux),
        SelectingTools(tmux),
        CreatingTools(tmux),
        KeyTools(tmux),
        PasteTools(tmux),
        RunCommandTools(tmux),
        TeardownTools(tmux),
        PromptTools(),
    ]
    handlers: PythonProfileHandlers = compose(
        PythonProfileHandlers,
        parts,
        wrap=session_pair_check(tmux),
        wrapped=[entry.method for entry in TOOLS],
    )
    return handlers
