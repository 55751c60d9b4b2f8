"""Stand-ins for the tmux transport, so the benchmark can time the server without tmux.

``RecordingTransport`` sends every command (reads and writes alike) through the real
transport and appends the answer to a file. ``ReplayTransport`` answers every
command from such files alone: it starts no tmux process and opens no connection,
and a command it was never shown fails, so a timed call cannot reach tmux unseen.
Neither is part of the installed package; ``scripts.bench.stubbed`` puts them in.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tmux_contract_mcp.handlers.tmux import errors
from tmux_contract_mcp.handlers.tmux.transport.kinds import Transport
from tmux_contract_mcp.handlers.tmux.transport.sockets import Socket

Key = tuple[str, ...]


class NotRecorded(errors.TmuxError):
    """The replay was asked a command the recording never saw."""


@dataclass(frozen=True)
class Answer:
    """What tmux said to one command: its lines, or the failure it raised."""

    lines: tuple[str, ...] = ()
    error: str | None = None  # the name of a class in the tmux core's errors module
    message: str = ""
    attributes: Mapping[str, Any] | None = None

    def give(self) -> list[str]:
        if self.error is None:
            return list(self.lines)
        cls = getattr(errors, self.error)
        exc = cls.__new__(cls)
        Exception.__init__(exc, self.message)
        exc.__dict__.update(self.attributes or {})
        raise exc


class RecordingTransport:
    """The real transport, writing one JSON line per command to ``path`` as it goes."""

    def __init__(self, inner: Transport, path: Path) -> None:
        self.inner = inner
        self.socket: Socket = inner.socket
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)

    def _write(self, record: dict[str, Any]) -> None:
        with self.path.open("a") as file:
            file.write(json.dumps(record) + "\n")

    async def run(self, args: Sequence[str], *, retry: bool = False) -> list[str]:
        try:
            lines = await self.inner.run(args, retry=retry)
        except errors.TmuxError as exc:
            self._write(failure(args, exc))
            raise
        self._write({"args": list(args), "lines": lines})
        self._write({"own_client_pids": sorted(self.inner.own_client_pids())})
        return lines

    async def run_many(
        self, commands: Sequence[Sequence[str]], *, retry: bool = False
    ) -> list[list[str]]:
        try:
            answers = await self.inner.run_many(commands, retry=retry)
        except errors.TmuxError as exc:
            self._write(failure(commands[0], exc))
            raise
        for args, lines in zip(commands, answers, strict=True):
            self._write({"args": list(args), "lines": lines})
        self._write({"own_client_pids": sorted(self.inner.own_client_pids())})
        return answers

    def own_client_pids(self) -> frozenset[int]:
        return self.inner.own_client_pids()

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()


def failure(args: Sequence[str], exc: errors.TmuxError) -> dict[str, Any]:
    return {
        "args": list(args),
        "error": type(exc).__name__,
        "message": str(exc),
        "attributes": {k: v for k, v in vars(exc).items() if isinstance(v, str | int)},
    }


@dataclass(frozen=True)
class Recording:
    """Every answer in a set of recordings (the last one wins) and the hidden client pids."""

    answers: Mapping[Key, Answer]
    own_client_pids: frozenset[int]

    @classmethod
    def load(cls, files: Iterable[Path]) -> Recording:
        answers: dict[Key, Answer] = {}
        own: set[int] = set()
        for path in files:
            for line in path.read_text().splitlines():
                record = json.loads(line)
                if "own_client_pids" in record:
                    own.update(record["own_client_pids"])
                    continue
                answers[tuple(record["args"])] = Answer(
                    lines=tuple(record.get("lines", ())),
                    error=record.get("error"),
                    message=record.get("message", ""),
                    attributes=record.get("attributes"),
                )
        return cls(answers, frozenset(own))


class ReplayTransport:
    """Answers from a recording; nothing reaches tmux."""

    def __init__(self, socket: Socket, recording: Recording) -> None:
        self.socket = socket
        self.recording = recording

    async def run(self, args: Sequence[str], *, retry: bool = False) -> list[str]:
        answer = self.recording.answers.get(tuple(args))
        if answer is None:
            raise NotRecorded(f"not recorded, so not replayed: tmux {' '.join(args)}")
        return answer.give()

    async def run_many(
        self, commands: Sequence[Sequence[str]], *, retry: bool = False
    ) -> list[list[str]]:
        return [await self.run(args) for args in commands]

    def own_client_pids(self) -> frozenset[int]:
        """The recording client's pids, so its answers hide it exactly as they did live."""
        return self.recording.own_client_pids
