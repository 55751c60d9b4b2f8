"""Self-protection: the destructive tools never remove what this MCP server runs in.

kill_server, kill_session, kill_window, kill_pane and respawn_pane (and the rust
family's clear_pane_scrollback) ask ``Guard`` before they act. It refuses when the target is, or holds, the pane this process
runs in, and also when that cannot be ruled out. The facts come from the two
variables tmux gives every process it starts in a pane:

- ``TMUX`` = ``<socket path>,<server pid>,<session>``: which tmux server;
- ``TMUX_PANE`` = ``%<n>``: which pane of it (ids are unique per server only).

The rules, in order:

1. ``TMUX`` unset or empty: this process is not inside tmux, nothing to protect.
   (A process that unset ``TMUX`` itself has chosen to be treated as outside.)
2. ``TMUX`` set but not the ``path,pid,session`` tmux writes (no absolute path,
   no numeric pid): which server it names is unknown, so every target might be
   ours: refuse.
3. Is the target the server in ``TMUX``? The one rule of ``transport.identity`` answers:
   the same socket file, or the pid in ``TMUX`` (asked of the target server when
   the files differ). Either counts: a false "same" only costs a refusal.
   Neither: another server, allow.
4. Same server, ``kill_server``: refuse.
5. Same server, other tools: ``TMUX_PANE`` must be a pane id that exists on that
   server right now. Unset, malformed, or naming no pane (a stale or forged
   environment, or a server restarted on the same socket so ids were reused):
   where this process runs is unknown, so every pane, window and session might
   hold it: refuse.
6. Otherwise refuse exactly when the target is that pane (kill_pane,
   respawn_pane), the window holding it (kill_window), or a session the window is
   linked into (kill_session: ``list-panes -a`` lists a linked window once per
   session, so each such session is seen).

With tmux on another host (``--ssh``), rule 3 asks that host's server for its host
name, socket path and pid, and it is the server in ``TMUX`` only when all three are
this machine's (``transport.identity.Host.same_server_here``): a process started in a pane of a
server it then reaches through ssh is protected as locally; a server elsewhere that
merely shares a socket path or pid is another server.

A profile may add what lifts a refusal (``override``: the swift family's ``force``),
and may ask for the stricter rule its family keeps (``whole_server``): every target
on the caller's own server is refused, since what a window or session holds can
change between the check and the kill.

What is not covered: a process started in a pane whose environment was
rewritten to name another existing pane (rule 5 trusts a live ``TMUX_PANE``),
and a pane moved into the target between the check and the kill (one tmux
round trip apart).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from ..errors import Refused
from ..transport.formats import format_of, parse_rows
from ..transport.identity import Host
from ..transport.sockets import Socket
from ..transport.ssh import remote_for

_LOCATION_FIELDS = ("session_id", "window_id", "pane_id")
_LOCATION_FORMAT = format_of(_LOCATION_FIELDS)
_SERVER_FIELDS = ("host", "socket_path", "pid")
_SERVER_FORMAT = format_of(_SERVER_FIELDS)


class Server(Protocol):
    """What the guard asks of a tmux server (``objects.Server`` is one): its socket, and
    the answer to a command. Typed so, the policy layer depends on nothing above the
    transport."""

    @property
    def socket(self) -> Socket: ...

    async def run(self, *args: str) -> list[str]: ...


class Place(enum.Enum):
    OUTSIDE = "outside"  # not inside tmux at all
    ELSEWHERE = "elsewhere"  # inside another tmux server
    HERE = "here"  # inside this server, at a known pane
    UNSURE = "unsure"  # this server or maybe this server, pane unknown


@dataclass(frozen=True, slots=True)
class Location:
    """Where this process is relative to one tmux server."""

    place: Place
    reason: str = ""  # why UNSURE
    pane_id: str = ""
    window_id: str = ""
    session_ids: frozenset[str] = frozenset()


class Guard:
    """Answers, for one server, whether a destructive call may go ahead (else ``Refused``)."""

    def __init__(
        self,
        server: Server,
        environ: Mapping[str, str],
        *,
        caller_shown: str = "list_panes shows it with is_caller: true",
    ) -> None:
        self.server = server
        self.host = Host.from_environ(environ)
        self.remote = remote_for(environ) is not None
        self.caller_shown = caller_shown  # how the profile's listings mark the caller's pane

    async def kill_server(self) -> None:
        place, reason = await self._server_place()
        if place is Place.HERE:
            raise Refused(
                f"Refused: kill_server would kill tmux {self.server.socket}, the tmux server "
                f"this MCP server runs inside (TMUX={self.host.tmux!r}), and end this MCP server "
                "with it. Remove what you need with kill_session, kill_window or kill_pane, or run "
                "the MCP server outside this tmux server to kill the whole server."
            )
        if place is Place.UNSURE:
            raise self._unsure("kill_server", "the tmux server", reason)

    async def kill_session(self, session_id: str, session_name: str, *, override: str = "") -> None:
        where = await self.locate()
        what = f"session '{session_name}' ({session_id})"
        if where.place is Place.UNSURE:
            raise self._unsure("kill_session", what, where.reason, override)
        if where.place is Place.HERE and session_id in where.session_ids:
            raise Refused(
                f"Refused: kill_session would kill {what} on tmux {self.server.socket}: its "
                f"window {where.window_id} holds pane {where.pane_id}, where this MCP server runs "
                "(TMUX_PANE), and killing it would end this MCP server. Kill the session's other "
                "windows with kill_window, or run the MCP server outside this session."
                + _then(override)
            )

    async def kill_window(self, window_id: str, *, override: str = "") -> None:
        where = await self.locate()
        if where.place is Place.UNSURE:
            raise self._unsure("kill_window", f"window {window_id}", where.reason, override)
        if where.place is Place.HERE and window_id == where.window_id:
            raise Refused(
                f"Refused: kill_window would kill window {window_id} on tmux "
                f"{self.server.socket}: it holds pane {where.pane_id}, where this MCP server runs "
                "(TMUX_PANE), and killing it would end this MCP server. Kill the window's other "
                "panes with kill_pane, or run the MCP server outside this window." + _then(override)
            )

    async def pane(self, tool: str, pane_id: str, *, override: str = "") -> None:
        """For the tools that end or wipe what runs in ``pane_id`` (kill_pane, respawn_pane,
        a history clear)."""
        where = await self.locate()
        if where.place is Place.UNSURE:
            raise self._unsure(tool, f"pane {pane_id}", where.reason, override)
        if where.place is Place.HERE and pane_id == where.pane_id:
            raise Refused(
                f"Refused: {tool} would act on pane {pane_id} on tmux {self.server.socket}, and "
                f"that is where this MCP server itself runs ({self._caller_named()}). "
                "Target another pane, or run the MCP server outside this pane to act on it."
                + _then(override)
            )

    async def whole_server(self, tool: str, what: str, *, override: str = "") -> None:
        """Refuse ``tool`` on any target of the server this process runs inside (or may)."""
        place, reason = await self._server_place()
        if place is Place.UNSURE:
            raise self._unsure(tool, what, reason, override)
        if place is Place.HERE:
            raise Refused(
                f"Refused: {tool} on {what} of tmux {self.server.socket}: this MCP server runs "
                f"inside that same tmux server (TMUX={self.host.tmux!r}), and which window or "
                "session holds its pane can change at any moment, so nothing there is ended "
                "without force. Nothing was changed." + _then(override)
            )

    async def locate(self) -> Location:
        """Where this process runs relative to the server (module rules 1, 2, 3 and 5)."""
        place, reason = await self._server_place()
        if place is not Place.HERE:
            return Location(place, reason)
        pane_id = self.host.pane_id
        if pane_id is None:
            shown = repr(self.host.pane) if self.host.pane else "unset"
            return Location(
                Place.UNSURE, f"TMUX names this server but TMUX_PANE is {shown}, not a pane id"
            )
        rows = parse_rows(
            await self.server.run("list-panes", "-a", "-F", _LOCATION_FORMAT), _LOCATION_FIELDS
        )
        mine = [row for row in rows if row["pane_id"] == pane_id]
        if not mine:
            return Location(
                Place.UNSURE,
                f"TMUX names this server but its pane {pane_id} (TMUX_PANE) does not exist on it",
            )
        return Location(
            Place.HERE,
            pane_id=pane_id,
            window_id=mine[0]["window_id"],
            session_ids=frozenset(row["session_id"] for row in mine),
        )

    async def _server_place(self) -> tuple[Place, str]:
        """OUTSIDE, ELSEWHERE, HERE (this server, pane not yet looked at) or UNSURE."""
        host = self.host
        if not host.inside_tmux:
            return Place.OUTSIDE, ""
        if host.socket_path is None:
            return (
                Place.UNSURE,
                f"TMUX={host.tmux!r} is not the 'socket,pid,session' value tmux sets, so which "
                "tmux server this MCP server runs in is unknown",
            )
        if self.remote:
            rows = parse_rows(
                await self.server.run("list-sessions", "-F", _SERVER_FORMAT), _SERVER_FIELDS
            )
            if rows and host.same_server_here(
                rows[0]["host"], rows[0]["socket_path"], rows[0]["pid"]
            ):
                return Place.HERE, ""
            return Place.ELSEWHERE, ""
        path = self.server.socket.path
        if host.same_server(path):
            return Place.HERE, ""
        # Another socket file; the same server only if it was reached by a moved socket.
        pids = await self.server.run("list-sessions", "-F", "#{pid}")
        if pids and host.same_server(path, pids[0]):
            return Place.HERE, ""
        return Place.ELSEWHERE, ""

    def _caller_named(self) -> str:
        return f"TMUX_PANE; {self.caller_shown}" if self.caller_shown else "TMUX_PANE"

    def _unsure(self, tool: str, what: str, reason: str, override: str = "") -> Refused:
        return Refused(
            f"Refused: {tool} on tmux {self.server.socket}: cannot rule out that this MCP server "
            f"runs in {what}, and killing it would end this MCP server ({reason}). Start the MCP "
            "server from a pane with the TMUX and TMUX_PANE tmux sets there, or outside tmux, "
            "or target another tmux server." + _then(override)
        )


def _then(override: str) -> str:
    """The profile's way past a refusal, as the message's last sentence."""
    return f" {override}" if override else ""
