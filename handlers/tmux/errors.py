"""Every error of the tmux core, each worded for the agent: what, where, what next.

The hierarchy (``ToolError`` and ``NotFound`` are the runtime's, ``runtime/errors.py``)::

    ToolError                    answered as a tool result with isError: true
    ├── TmuxError                a tmux failure that reaches the agent
    │   ├── CommandFailed        tmux ran and answered with an error (``stderr``)
    │   │   └── InAMode          keys not typed: their pane is in a mode       refused
    │   ├── NoServer             nothing listens on the socket            server_gone
    │   ├── TmuxUnavailable      tmux cannot be run, or did not answer    unreachable
    │   │   └── ConnectionLost   the ssh connection under it ended
    │   ├── ControlClientGone    a control client ended (``sent``: the command may have run)
    │   ├── WatchLost            a wait's output client ended
    │   └── NotFound ──────────┐ a pane, window, session or buffer is not there   object_gone
    ├── NotFound (runtime) ◄───┘ a resource read answers it as resource-not-found
    ├── Refused                  the target is, holds or may hold this process's pane
    └── InputRefused             a recipient cannot take typed input now          refused

The word after each class is its ``kind``, which the rust family's envelope sends
(``{"message", "data": {"kind", ...}}``). ``NotFound`` carries what was looked
for and words its own message, so "no such pane" reads the same from every
tool and every profile: which object, by which id or name, from which argument,
on which socket (and host), and which tool lists what exists.
"""

from __future__ import annotations

from ... import errors as runtime_errors
from ...errors import ToolError

# The note of a target found at the start of a call and gone before the call could act on it.
GONE_DURING_CALL = "it went away during the call"
# Each listing tool, and what it lists: the last sentence of a not-found message.
LISTED_BY = {"list_panes": "panes", "list_windows": "windows", "list_sessions": "sessions"}
# The tool that lists each kind of object, when there is one.
LISTER = {"pane": "list_panes", "window": "list_windows", "session": "list_sessions"}


class TmuxError(ToolError):
    """Any tmux failure that reaches the agent."""


class CommandFailed(TmuxError):
    """tmux ran and answered with an error; ``stderr`` is tmux's own text."""

    kind = "refused"

    def __init__(self, args: tuple[str, ...], stderr: str, socket_label: str) -> None:
        self.stderr = stderr.strip()
        super().__init__(f"tmux {args[0] if args else ''} failed on {socket_label}: {self.stderr}")

    @property
    def not_found(self) -> bool:
        """tmux's answer for a target it has not got (3.3a: "can't find pane: %9",
        "no such session: @9", by command)."""
        return "can't find" in self.stderr or "no such" in self.stderr


class InAMode(CommandFailed):
    """A ``send-keys`` the transport did not run: its pane is in a mode, whose key bindings
    would take the keys (``transport.keyguard``)."""

    def __init__(self, args: tuple[str, ...], pane_id: str, mode: str, socket_label: str) -> None:
        self.pane_id = pane_id
        self.mode = mode
        super().__init__(
            args,
            f"pane {pane_id or '(current)'} is in {mode or 'a mode'}, whose key bindings would "
            "take the keys instead of its program; nothing was typed. Leave the mode first "
            f"(`tmux send-keys -X -t {pane_id or '<pane>'} cancel`).",
            socket_label,
        )


class NoServer(TmuxError):
    """Nothing listens on the socket."""

    kind = "server_gone"


class TmuxUnavailable(TmuxError):
    """The tmux binary cannot be run, or did not answer in time."""

    kind = "unreachable"


class ConnectionLost(TmuxUnavailable):
    """The ssh connection to the remote host ended under a command or a wait."""


class ControlClientGone(TmuxError):
    """The control client ended; ``sent`` tells whether the command may have reached tmux."""

    def __init__(self, message: str, *, sent: bool) -> None:
        super().__init__(message)
        self.sent = sent


class WatchLost(TmuxError):
    """The client delivering output ended, or could not attach (its session or server
    went away): read the pane again to learn which, then watch again."""


class NotFound(TmuxError, runtime_errors.NotFound):
    """A pane, window, session or paste buffer that is not (or no longer) there.

    ``what`` is the kind of object; ``target`` what the agent named it by, shown as
    ``by`` says (an ``id`` as it is, a ``name`` quoted after "named", an ``id or name``
    quoted, an ``index`` or a ``corner`` in words); ``within`` the object it was looked
    for in; ``socket`` the tmux server's label (it names the host when tmux runs on
    another one); ``field`` the argument that named it; ``lister`` the tool that lists
    what exists (by default the one for ``what``). ``note`` follows the place, when
    more is known ("it went away during the call"); ``next_step`` replaces the last
    sentence where no tool lists such objects.
    """

    kind = "object_gone"

    def __init__(
        self,
        what: str,
        target: str | None,
        *,
        socket: object,
        field: str | None = None,
        by: str = "id",
        within: str | None = None,
        lister: str | None = None,
        note: str = "",
        next_step: str | None = None,
    ) -> None:
        self.what = what
        self.target = target
        self.socket = str(socket)
        self.field = field
        self.by = by
        self.within = within
        self.lister = lister if lister is not None else LISTER.get(what)
        self.note = note
        super().__init__(self._worded(next_step))

    def _worded(self, next_step: str | None) -> str:
        named = f" (from `{self.field}`)" if self.field else ""
        if next_step is None and self.lister is not None:
            listed = LISTED_BY.get(self.lister, f"{self.what}s")
            next_step = f"Call {self.lister} to see the {listed} that exist."
        note = f": {self.note}" if self.note else ""
        return f"No {self._shown()}{named} on tmux {self.socket}{note}. {next_step or ''}".rstrip()

    def _shown(self) -> str:
        """The object as the agent named it: ``pane %9``, ``session named 'x'``..."""
        if self.target is None:
            return f"{self.what}s"
        shown = {
            "id": self.target,
            "name": f"named {self.target!r}",
            "id or name": repr(self.target),
            "index": f"with index {self.target}",
            "corner": f"at the {self.target} corner",
        }[self.by]
        within = f" in {self.within}" if self.within else ""
        return f"{self.what} {shown}{within}"


class Refused(ToolError):
    """The target is, holds or may hold the pane this MCP server runs in (``policy.guard``)."""

    kind = "self_protection"


class InputRefused(ToolError):
    """A recipient cannot take input now (dead, input off, in a mode, watched, held), or
    input meant for one pane would reach several."""

    kind = "refused"


def no_sessions(socket: object) -> NotFound:
    """A listing that needs a session, on a server that has none."""
    return NotFound("session", None, socket=socket, next_step="Create a session first.")


NO_SERVER_MARKERS = ("no server running on", "error connecting to", "server exited unexpectedly")


def no_server(socket: object) -> NoServer:
    """The one wording of "nothing listens on ``socket``", whichever command found it."""
    return NoServer(
        f"no tmux server is running on {socket}; start one, or point "
        "LIBTMUX_SOCKET / LIBTMUX_SOCKET_PATH (or socket_name) at a running server"
    )


def is_no_server(stderr: str) -> bool:
    return any(marker in stderr for marker in NO_SERVER_MARKERS)


def unrunnable(tmux_bin: str, exc: OSError) -> TmuxUnavailable:
    """The tmux binary could not be started (missing, not executable, a directory...)."""
    return TmuxUnavailable(
        f"the tmux binary {tmux_bin!r} cannot be run ({exc.strerror or exc}); "
        "install tmux, or set LIBTMUX_TMUX_BIN to the path of a working tmux"
    )
