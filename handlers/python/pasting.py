"""paste_text: text into a pane through a paste buffer of its own.

The buffer has a random name and is deleted by ``paste-buffer -d``. The text is
written with ``set-buffer`` (which expands nothing), long text a piece at a time
with ``set-buffer -a``: no file is involved, so the same commands fill a buffer on
a tmux server reached through ssh.
"""

from __future__ import annotations

import contextlib
import secrets

import anyio

from ...errors import InvalidArgument, ToolError
from ...generated.python.models.paste_text import PasteTextInput, PasteTextOutput
from ..tmux.objects.server import Tmux
from .targeting import aim, typeable


class PasteTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def paste_text(self, params: PasteTextInput) -> PasteTextOutput:
        text = typeable("text", params.text, nul=True)
        if not text:
            raise InvalidArgument("text", text, "is empty", "Pass the text to paste.")
        server, pane_id = await aim(self.tmux, params)
        buffer = server.buffer(f"tcm-paste-{secrets.token_hex(8)}")
        await buffer.set_buffer(text)
        try:
            await buffer.paste_buffer(
                server.pane(pane_id), bracket=params.bracket is not False, delete=True
            )
        except BaseException:
            with anyio.CancelScope(shield=True), contextlib.suppress(ToolError):
                await buffer.delete_buffer()
            raise
        return PasteTextOutput(result=f"Text pasted to pane {pane_id}")
