"""A paste buffer as an object: the tmux commands that act on one buffer, named after them.

A buffer's text reaches tmux through ``set-buffer`` (which expands nothing), long
text a piece at a time with ``set-buffer -a``: no file is involved, so the same
commands fill a buffer on a tmux server reached through ssh.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import CommandFailed, NotFound
from ..transport.formats import format_of, parse_rows
from ..transport.quoting import pieces
from .blocked import InputCheck, type_checked

if TYPE_CHECKING:
    from .pane import Pane
    from .server import Server

_LISTED = ("buffer_size", "buffer_name")
_LISTED_FORMAT = format_of(_LISTED)
NO_BUFFER = ("no buffer", "unknown buffer")  # tmux's words for a buffer it has not got


@dataclass(frozen=True, slots=True)
class Buffer:
    """Paste buffer ``name`` of ``server``, as argument ``field`` named it."""

    server: Server
    name: str
    field: str = "buffer_name"

    def not_found(self, note: str = "") -> NotFound:
        return NotFound(
            "paste buffer",
            self.name,
            socket=self.server.socket,
            field=self.field,
            by="name",
            note=note,
            next_step="See the buffers that exist with `tmux list-buffers`; load_buffer makes one.",
        )

    def set_buffer_commands(self, data: str) -> Iterator[tuple[str, ...]]:
        """``set-buffer`` commands filling the buffer with ``data``: the first sets, the
        rest append (a tmux command carries a few KB at most)."""
        for at, piece in enumerate(pieces(data)):
            yield ("set-buffer", *(("-a",) if at else ()), "-b", self.name, "--", piece)

    async def set_buffer(self, data: str) -> None:
        await self.server.run_many(*self.set_buffer_commands(data))

    async def show_buffer(self) -> tuple[list[str], int]:
        """The buffer's lines (``show-buffer``) and its size in bytes (``list-buffers``),
        which tells whether the text ended with a newline."""
        listed = parse_rows(await self.server.run("list-buffers", "-F", _LISTED_FORMAT), _LISTED)
        size = next((row["buffer_size"] for row in listed if row["buffer_name"] == self.name), None)
        if size is None:
            raise self.not_found()
        try:
            lines = await self.server.run("show-buffer", "-b", self.name)
        except CommandFailed as exc:
            if any(words in exc.stderr for words in NO_BUFFER):
                raise self.not_found() from None
            raise
        return lines, int(size) if size.isdigit() else 0

    async def delete_buffer(self, note: str = "") -> None:
        try:
            await self.server.run("delete-buffer", "-b", self.name)
        except CommandFailed as exc:
            if any(words in exc.stderr for words in NO_BUFFER):
                raise self.not_found(note) from None
            raise

    async def paste_buffer(
        self, pane: Pane, *, bracket: bool, delete: bool = False, check: InputCheck | None = None
    ) -> None:
        """``paste-buffer`` into ``pane`` (``-p``: bracketed, ``-d``: the buffer deleted after);
        with ``check``, only while tmux finds the pane able to take input, in the same
        command (``blocked``: nothing is pasted and the buffer stays otherwise)."""
        args = ["paste-buffer", *(["-d"] if delete else []), "-b", self.name, "-t", pane.pane_id]
        args += ["-p"] if bracket else []
        try:
            if check is None:
                await self.server.run(*args)
            else:
                await type_checked(self.server, pane.pane_id, [args], check)
        except CommandFailed as exc:
            if any(words in exc.stderr for words in NO_BUFFER):
                raise self.not_found() from None
            if exc.not_found:
                raise pane.not_found() from None
            raise
