"""A transport that answers every repeated read from memory: tmux stubbed out.

Only for measuring: ``make bench`` runs the server over it to find the cost
of everything except tmux (MCP, validation, shaping), so the benchmark can
show how much of a call tmux itself takes. Writes still reach tmux.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .sockets import Socket
from .transport import Transport


class MemoTransport:
    def __init__(self, inner: Transport, is_read: Callable[[Sequence[str]], bool]) -> None:
        self.inner = inner
        self.socket: Socket = inner.socket
        self.is_read = is_read
        self._memo: dict[tuple[str, ...], list[str]] = {}

    async def run(self, args: Sequence[str], *, retry: bool = False) -> list[str]:
        key = tuple(args)
        known = self._memo.get(key)
        if known is not None:
            return list(known)
        lines = await self.inner.run(args, retry=retry)
        if self.is_read(args):
            self._memo[key] = list(lines)
        return lines

    async def run_many(
        self, commands: Sequence[Sequence[str]], *, retry: bool = False
    ) -> list[list[str]]:
        return [await self.run(args, retry=retry) for args in commands]

    def own_client_pids(self) -> frozenset[int]:
        return self.inner.own_client_pids()

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()
