"""The objects layer: tmux's server, sessions, windows, panes and paste buffers as objects.

Each object is an id on one server and the argument that named it, and its methods
are named after the tmux commands they run: ``Server.list_sessions()``,
``Session.kill_session()``, ``Window.kill_window()``, ``Pane.capture_pane()``,
``Pane.split_window()``, ``Buffer.paste_buffer()``. A target that is not there is a
``NotFound`` naming that argument. What tmux reports comes back as rows (``rows``);
how the ids and names an agent gives resolve to objects is ``targets``.

Around the objects, what the profiles share about them: captures and continued reads
(``capture``), bounded searches (``search``), options, environment and hooks
(``settings``), what a new process takes (``spawn``), layouts, titles, refs, typed
input (``input``), commands run at a shell's prompt (``shell``) and waits for text
(``textwait``, ``patterns``, ``waits``).

Profiles call objects. Objects run commands through the transport
(``tmux.transport``) and ask the policy (``tmux.policy``) before they act; neither
imports this package.
"""

from .buffer import Buffer
from .pane import ACTIVE_ONLY, ONE_TRIP, Direction, Pane
from .rows import (
    FOLLOWED_FIELDS,
    PANE_FIELDS,
    SERVER_FIELDS,
    ClientRow,
    LinkRow,
    PaneRow,
    Row,
    SessionRow,
    each_pane_once,
)
from .server import HISTORY_LIMIT_MAXIMUM, Server, Tmux
from .session import Session
from .targets import (
    TARGET_FIELDS,
    WindowSelector,
    check_pane_id,
    check_session_id,
    check_session_pair,
    check_window_id,
    check_window_index,
    session_named,
    session_row,
)
from .window import CORNER_ONLY, Corner, Window, WindowPanes

__all__ = [
    "ACTIVE_ONLY",
    "CORNER_ONLY",
    "FOLLOWED_FIELDS",
    "HISTORY_LIMIT_MAXIMUM",
    "ONE_TRIP",
    "PANE_FIELDS",
    "SERVER_FIELDS",
    "TARGET_FIELDS",
    "Buffer",
    "ClientRow",
    "Corner",
    "Direction",
    "LinkRow",
    "Pane",
    "PaneRow",
    "Row",
    "Server",
    "Session",
    "SessionRow",
    "Tmux",
    "Window",
    "WindowPanes",
    "WindowSelector",
    "check_pane_id",
    "check_session_id",
    "check_session_pair",
    "check_window_id",
    "check_window_index",
    "each_pane_once",
    "session_named",
    "session_row",
]
