"""tmux failures, worded for the agent: which target, which socket, what next."""

from __future__ import annotations

from ...errors import ToolError


class TmuxError(ToolError):
    """Any tmux failure that reaches the agent."""


class CommandFailed(TmuxError):
    """tmux ran and answered with an error; ``stderr`` is tmux's own text."""

    kind = "refused"

    def __init__(self, args: tuple[str, ...], stderr: str, socket_label: str) -> None:
        self.stderr = stderr.strip()
        super().__init__(f"tmux {args[0] if args else ''} failed on {socket_label}: {self.stderr}")


class NoServer(TmuxError):
    """Nothing listens on the socket."""

    kind = "server_gone"


class UnknownTarget(TmuxError):
    """A pane, window or session that does not exist on the socket."""

    kind = "object_gone"


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


class Refused(ToolError):
    """The target is, holds or may hold the pane this MCP server runs in (``policy.guard``)."""

    kind = "self_protection"
