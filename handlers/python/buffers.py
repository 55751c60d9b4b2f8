"""Paste buffers: loading one, showing one, pasting one into a pane, deleting one.

Buffer text reaches tmux through ``set-buffer``, long text a piece at a time (a tmux
client refuses one command line past about 16 KB): no file is involved, so it
works as well on a server reached through ssh.
"""

from __future__ import annotations

import re
import uuid

from ...errors import InvalidArgument
from ...generated.python.models.delete_buffer import DeleteBufferInput, DeleteBufferOutput
from ...generated.python.models.load_buffer import LoadBufferInput, LoadBufferOutput
from ...generated.python.models.paste_buffer import PasteBufferInput, PasteBufferOutput
from ...generated.python.models.show_buffer import ShowBufferInput, ShowBufferOutput
from ...seam import Call
from ..tmux.objects import capture
from ..tmux.objects.server import Tmux
from ..tmux.objects.spawn import no_nul
from .arguments import checked_cap
from .pane_input import typing_check
from .targets import selector_of

# load_buffer's names (as libtmux-mcp allocates them): own prefix, a nonce, a label.
BUFFER_PREFIX = "libtmux_mcp_"

LOGICAL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}\Z")

DEFAULT_LOGICAL_NAME = "buf"


class BufferTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def load_buffer(self, call: Call, params: LoadBufferInput) -> LoadBufferOutput:
        """The content reaches tmux through ``set-buffer``, long content a piece at a time
        (a tmux client refuses one command line past about 16 KB): no file is involved,
        so it works as well on a server reached through ssh."""
        if params.content == "":
            raise InvalidArgument(
                "content",
                "",
                "is empty; tmux keeps no empty paste buffers (it would silently make none)",
                "Pass at least one character.",
            )
        label = params.logical_name or DEFAULT_LOGICAL_NAME
        if not LOGICAL_NAME.fullmatch(label):
            raise InvalidArgument(
                "logical_name",
                params.logical_name,
                "may only hold letters, digits, '_', '.' and '-' (1 to 64 of them)",
                "Pass a short label such as 'clip' or 'patch-1', or leave it out.",
            )
        server = self.tmux.server(params.socket_name)
        name = f"{BUFFER_PREFIX}{uuid.uuid4().hex}_{label}"
        content = params.content.encode("utf-8", "replace").decode()  # a lone surrogate: "?"
        await server.buffer(name).set_buffer(content)
        return LoadBufferOutput(buffer_name=name, logical_name=params.logical_name)

    async def show_buffer(self, call: Call, params: ShowBufferInput) -> ShowBufferOutput:
        max_lines = checked_cap("max_lines", params.max_lines)
        name = params.buffer_name
        if not name:
            raise InvalidArgument(
                "buffer_name",
                name,
                "is empty",
                "Pass the name of a paste buffer (see them with `tmux list-buffers`).",
            )
        server = self.tmux.server(params.socket_name)
        lines, size_bytes = await server.buffer(name).show_buffer()
        # The transport splits output at newlines; the buffer's size tells whether its
        # text ended with one.
        text = "\n".join(lines)
        ending = "\n" if len(text.encode("utf-8")) + 1 == size_bytes else ""
        kept = capture.newest(lines, max_lines)
        return ShowBufferOutput(
            buffer_name=name,
            content="\n".join(kept.lines) + ending,
            truncated_lines=kept.dropped,
            size_bytes=size_bytes,
        )

    async def paste_buffer(self, call: Call, params: PasteBufferInput) -> PasteBufferOutput:
        name = no_nul("buffer_name", params.buffer_name)
        selector = selector_of(params.window_id, params.session_name, params.session_id)
        server = self.tmux.server(params.socket_name)
        pane = await selector.resolve_pane(server, params.pane_id)
        target = server.pane(pane.pane_id)
        await server.buffer(name).paste_buffer(
            target, bracket=bool(params.bracket), check=typing_check("paste_buffer", cohort=False)
        )
        return PasteBufferOutput(result=f"Pasted buffer {name!r} into pane {pane.pane_id}.")

    async def delete_buffer(self, call: Call, params: DeleteBufferInput) -> DeleteBufferOutput:
        name = no_nul("buffer_name", params.buffer_name)
        server = self.tmux.server(params.socket_name)
        await server.buffer(name).delete_buffer("nothing was deleted")
        return DeleteBufferOutput(result=f"Buffer deleted: {name!r}")
