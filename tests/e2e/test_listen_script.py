"""``python -m scripts.listen``: a 2026-07-28 session (the SDK ``Client`` in mode ``auto``)
that listens to a pane, sees it print, reads it and closes the stream, leaving nothing in
tmux."""

from __future__ import annotations

import io

import pytest

from scripts.listen import main_async


@pytest.mark.anyio
async def test_the_transcript_listens_sees_a_print_reads_it_and_lets_go() -> None:
    out = io.StringIO()
    await main_async(out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("connected: protocol 2026-07-28")
    assert "capabilities: resources.subscribe=True" in lines
    assert any(line.startswith("<- acknowledged: ['tmux://panes/%") for line in lines)
    assert "tmux: 1 output client(s) watching" in lines
    assert any(
        line.startswith("<- notifications/resources/updated tmux://panes/") for line in lines
    )
    assert "<- 'make test'" in lines
    assert lines[-2:] == ["closing the stream", "tmux: 0 output client(s) watching"]
