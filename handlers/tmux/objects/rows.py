"""The rows tmux reports: a pane, a session, a window at one place, a client.

Each listing asks for a fixed tuple of fields (``PANE_FIELDS``...) and reads
them back as rows (``transport.formats``) with typed readers; every listing
carries the server's pid and start time, so a row says which run of the server
it came from.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..transport.formats import as_flag, as_int, format_of, parse_rows

SERVER_FIELDS: tuple[str, ...] = ("pid", "start_time")
"""Asked with every listing: ids restart with the server, so a ref names its server too."""


PANE_FIELDS: tuple[str, ...] = (
    "pane_id",
    "pane_index",
    "pane_active",
    "pane_current_command",
    "pane_current_path",
    "pane_pid",
    "pane_title",
    "pane_width",
    "pane_height",
    "pane_tty",
    "pane_left",
    "pane_top",
    "pane_right",
    "pane_bottom",
    "pane_at_top",
    "pane_at_bottom",
    "pane_at_left",
    "pane_at_right",
    "pane_dead",
    "pane_dead_status",
    "pane_dead_signal",
    "pane_in_mode",
    "pane_synchronized",
    "window_id",
    "window_index",
    "window_active",
    "session_id",
    "session_name",
    "history_size",
    "history_limit",
    "cursor_y",
    *SERVER_FIELDS,
)
PANE_FORMAT = format_of(PANE_FIELDS)


@dataclass(frozen=True, slots=True)
class Row:
    """One object as tmux reported it: raw field values, with typed readers."""

    raw: dict[str, str]

    def __getitem__(self, field: str) -> str:
        return self.raw[field]

    def flag(self, field: str) -> bool | None:
        return as_flag(self.raw[field])

    def number(self, field: str) -> int | None:
        return as_int(self.raw[field])

    def count(self, field: str) -> int:
        """A number tmux always gives; 0 when it had nothing to say."""
        return as_int(self.raw[field]) or 0

    def text(self, field: str) -> str | None:
        """A string field, or None where tmux had nothing to say."""
        return self.raw[field] or None

    @property
    def server_tag(self) -> str:
        """Which server run this row came from: its pid and start time."""
        return f"{self.raw.get('pid', '')}.{self.raw.get('start_time', '')}"


@dataclass(frozen=True, slots=True)
class PaneRow(Row):
    """One pane, with the window and session it was listed under."""

    @property
    def pane_id(self) -> str:
        return self.raw["pane_id"]

    @property
    def window_id(self) -> str:
        return self.raw["window_id"]

    @property
    def session_id(self) -> str:
        return self.raw["session_id"]

    @property
    def index(self) -> int:
        return self.count("pane_index")

    @property
    def active(self) -> bool:
        return self.raw["pane_active"] == "1"

    @property
    def window_active(self) -> bool:
        return self.raw["window_active"] == "1"


FOLLOWED_FIELDS: tuple[str, ...] = (
    "pane_id",
    "window_id",
    "session_id",
    "pane_pid",
    "pane_active",
    "pane_dead",
    "pane_dead_status",
    "pane_current_command",
    "alternate_on",
    "history_size",
    "cursor_y",
    *SERVER_FIELDS,
)
"""The row a run or a wait reads while it follows a pane's output stream: what the
stream's watch needs (session and window), whether the pane is dead and how it ended,
which program is in front (a shell at its prompt, or a full-screen one), and where
the cursor is."""


SESSION_FIELDS: tuple[str, ...] = (
    "session_id",
    "session_name",
    "session_windows",
    "session_attached",
    "session_created",
    "session_activity",
    *SERVER_FIELDS,
)
SESSION_FORMAT = format_of(SESSION_FIELDS)


def each_pane_once(rows: Iterable[PaneRow]) -> list[PaneRow]:
    """The rows in order, each pane once: ``list-panes -a`` (and ``-s``) repeat a window's
    panes for every place it is linked at."""
    seen: dict[str, PaneRow] = {}
    for row in rows:
        seen.setdefault(row.pane_id, row)
    return list(seen.values())


@dataclass(frozen=True, slots=True)
class SessionRow(Row):
    @property
    def session_id(self) -> str:
        return self.raw["session_id"]

    @property
    def name(self) -> str:
        return self.raw["session_name"]


LINK_FIELDS: tuple[str, ...] = (
    "session_id",
    "session_name",
    "window_id",
    "window_index",
    "window_name",
    "window_panes",
    "window_width",
    "window_height",
    "window_active",
    "window_layout",
    *SERVER_FIELDS,
)
LINK_FORMAT = format_of(LINK_FIELDS)


@dataclass(frozen=True, slots=True)
class LinkRow(Row):
    """A window as linked into one session at one index (a window may have several)."""

    @property
    def session_id(self) -> str:
        return self.raw["session_id"]

    @property
    def window_id(self) -> str:
        return self.raw["window_id"]

    @property
    def index(self) -> int:
        return self.count("window_index")

    @property
    def target(self) -> str:
        return f"{self.session_id}:{self.index}"


CLIENT_FIELDS: tuple[str, ...] = (
    "client_pid",
    "client_name",
    "session_id",
    "window_id",
    "client_control_mode",
)
CLIENT_FORMAT = format_of(CLIENT_FIELDS)


@dataclass(frozen=True, slots=True)
class ClientRow(Row):
    """A tmux client attached to a session, looking at one of its windows."""

    @property
    def pid(self) -> int:
        return self.count("client_pid")

    @property
    def name(self) -> str:
        return self.raw["client_name"]

    @property
    def session_id(self) -> str:
        return self.raw["session_id"]

    @property
    def window_id(self) -> str:
        return self.raw["window_id"]

    @property
    def control(self) -> bool:
        """A control-mode client (a program, not a terminal someone looks at)."""
        return self.raw["client_control_mode"] == "1"


def client_rows(lines: Iterable[str]) -> list[ClientRow]:
    return [ClientRow(raw) for raw in parse_rows(lines, CLIENT_FIELDS)]


def session_rows(lines: Iterable[str]) -> list[SessionRow]:
    return [SessionRow(raw) for raw in parse_rows(lines, SESSION_FIELDS)]


def link_rows(lines: Iterable[str]) -> list[LinkRow]:
    return [LinkRow(raw) for raw in parse_rows(lines, LINK_FIELDS)]


def pane_rows(lines: Iterable[str], fields: Sequence[str] = PANE_FIELDS) -> list[PaneRow]:
    return [PaneRow(raw) for raw in parse_rows(lines, fields)]
