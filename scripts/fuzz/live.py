"""Live values for a call's fields: ids and names the lab's tmux server really has, and
values earlier results carried under the same key (cursors, refs, names).

A field is matched by the words of its name (``source_pane_id``, ``paneId``: pane, id),
never by tool: a new tool's fields are filled the same way. Then ``resolve`` turns a
drawn case into the arguments sent: the marker path in every injection string and, in
a case drawn ``live``, each field that has live values given one of them (the field the
case broke keeps its broken value, and a ``tool`` field keeps the tool its arguments were
drawn for).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scripts.fuzz.cases import LIVE, MARK, Case
from scripts.fuzz.lab import State

KEEP = 8  # values kept per result key
PATHS = {"path", "paths", "directory", "dir", "file"}
FORMAT_NAMES = ("pane_id", "session_name", "window_index", "pane_current_command")


def words(name: str) -> set[str]:
    """``source_pane_id`` and ``sourcePaneId`` alike: {"source", "pane", "id"}."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).replace("_", " ").replace("-", " ")
    return {word.lower() for word in spaced.split()}


class Pool:
    """The live values: the lab as last read, and what results carried."""

    def __init__(self, work: Path, socket: str, socket_path: Path) -> None:
        self.state = State(())
        self.work = work
        self.socket = socket
        self.socket_path = socket_path
        self.seen: dict[str, list[str]] = {}

    def harvest(self, value: Any, key: str | None = None) -> None:
        """Remember the short strings a result holds, under the key each sits at."""
        if isinstance(value, str) and key is not None and 0 < len(value) <= 200:
            kept = self.seen.setdefault(key, [])
            if value not in kept:
                kept.append(value)
                del kept[:-KEEP]
        elif isinstance(value, Mapping):
            for name, item in value.items():
                self.harvest(item, str(name))
        elif isinstance(value, list):
            for item in value[:KEEP]:
                self.harvest(item, key)

    def values(self, field: str) -> list[str]:
        state = self.state
        said = words(field)
        found = list(self.seen.get(field, []))
        refs = self.seen.get("ref", [])
        panes = [row[0] for row in state.panes]
        windows = [row[0] for row in state.windows]
        indexes = sorted({row[2] for row in state.windows if len(row) > 2})
        sessions = [row[0] for row in state.sessions]
        names = [row[1] for row in state.sessions if len(row) > 1]
        if "socket" in said:
            found += [str(self.socket_path)] if said & PATHS else [self.socket]
        elif "pane" in said:
            found += panes + refs
        elif "window" in said:
            if "index" in said:
                found += indexes
            elif "name" in said:
                found += [row[3] for row in state.windows if len(row) > 3]
            else:
                found += windows + indexes + refs
        elif "session" in said:
            found += names if "name" in said else sessions + names + refs
        elif "target" in said:
            found += panes + windows + sessions + names
        elif "buffer" in said:
            found += state.buffers
        elif "option" in said:
            found += state.words("=options")[:20]
        elif "hook" in said:
            found += state.words("=hooks")[:20]
        elif "channel" in said:
            found += ["fuzz-channel"]
        elif "layout" in said:
            found += ["tiled", "even-horizontal"] + [
                row[5] for row in state.windows if len(row) > 5
            ]
        elif "format" in said:
            found += ["#{pane_id} #{session_name}"]
        elif said & PATHS:
            found += [str(self.work), str(self.work / "fuzz-file")]
        elif said & {"name", "names"}:
            found += state.words("=environment")[:10] + list(FORMAT_NAMES)
        return found

    def pick(self, field: str, seed: int, path: tuple[str | int, ...]) -> str | None:
        values = self.values(field)
        if not values:
            return None
        return values[zlib.crc32(f"{seed}:{path}".encode()) % len(values)]


def confined(value: str, work: Path) -> str:
    """A path a call may write to, kept inside the lab's work directory."""
    if value.startswith(f"{work}/") or value == str(work):
        return value
    return f"{work}/{value.replace('/', '_')}"


def _inside(path: tuple[str | int, ...], target: tuple[str | int, ...] | None) -> bool:
    return target is not None and path[: len(target)] == target


def resolve(case: Case, pool: Pool, marker: str) -> dict[str, Any]:
    """The arguments ``case`` sends: sentinels filled, live values put in when it is live."""

    def text(value: str, field: str | None, path: tuple[str | int, ...]) -> str:
        if MARK in value or LIVE in value:  # an injection string: never rewritten
            live = pool.pick(field, case.live_seed, path) if field else None
            return value.replace(MARK, marker).replace(LIVE, live or "")
        if case.live and field not in (None, "tool") and not _inside(path, case.target):
            value = pool.pick(field, case.live_seed, path) or value
        if field is not None and words(field) & PATHS and "socket" not in words(field):
            value = confined(value, pool.work)
        return value

    def walk(value: Any, field: str | None, path: tuple[str | int, ...]) -> Any:
        if isinstance(value, str):
            return text(value, field, path)
        if isinstance(value, dict):
            return {
                key.replace(MARK, marker): walk(item, key, (*path, key))
                for key, item in value.items()
            }
        if isinstance(value, list):
            return [walk(item, field, (*path, index)) for index, item in enumerate(value)]
        return value

    resolved = walk(case.arguments, None, ())
    return resolved if isinstance(resolved, dict) else {}
