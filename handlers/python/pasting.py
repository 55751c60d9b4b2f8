"""paste_text: text into a pane through a paste buffer of its own.

The buffer has a random name and is deleted by ``paste-buffer -d``:
``set-buffer`` for short text, ``load-buffer`` from a private file for long text
or text holding NUL (load-buffer expands formats in its path, so the path is
spelled with ``formats.literal_format`` and passed after ``--``).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile

import anyio

from ...errors import InvalidArgument, ToolError
from ...generated.python.models.paste_text import PasteTextInput, PasteTextOutput
from ..tmux.core import Server, Tmux
from ..tmux.formats import literal_format
from .targeting import aim, on_pane, typeable

SET_BUFFER_BYTES = 8000  # longer paste text is loaded from a private file instead


class PasteTools:
    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux

    async def paste_text(self, params: PasteTextInput) -> PasteTextOutput:
        text = typeable("text", params.text, nul=True)
        if not text:
            raise InvalidArgument("text", text, "is empty", "Pass the text to paste.")
        server, pane_id = await aim(self.tmux, params)
        buffer = f"tcm-paste-{secrets.token_hex(8)}"
        await load_buffer(server, buffer, text)
        paste = ["paste-buffer", "-d", "-b", buffer, "-t", pane_id]
        if params.bracket is not False:
            paste.append("-p")
        try:
            await on_pane(server, pane_id, paste)
        except BaseException:
            with anyio.CancelScope(shield=True), contextlib.suppress(ToolError):
                await server.run("delete-buffer", "-b", buffer)
            raise
        return PasteTextOutput(result=f"Text pasted to pane {pane_id}")


async def load_buffer(server: Server, buffer: str, text: str) -> None:
    data = text.encode("utf-8")
    if len(data) <= SET_BUFFER_BYTES and "\0" not in text:
        await server.run("set-buffer", "-b", buffer, "--", text)
        return
    folder = tempfile.mkdtemp(prefix="tcm-paste-")  # private: mode 0700
    path = os.path.join(folder, "text")
    try:
        with open(path, "wb") as file:
            file.write(data)
        await server.run("load-buffer", "-b", buffer, "--", literal_format(path))
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
        with contextlib.suppress(OSError):
            os.rmdir(folder)
