"""A profile whose error text is the family's envelope sends every failure as
``{"message", "data": {"kind", "retryable", "stale"}}``; the others send the message."""

from __future__ import annotations

import pytest

from scripts.lab.client import Client
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.family import error_envelope as envelope

pytestmark = pytest.mark.anyio


async def test_rust_refused_arguments_are_invalid_input_not_retryable_not_stale(
    shared: TmuxServer, rust_client: Client
) -> None:
    sent = envelope(await rust_client.error("select_pane", {"pane": 3}))
    assert sent["data"] == {"kind": "invalid_input", "retryable": False, "stale": False}
    assert "pane" in str(sent["message"])


async def test_rust_unknown_pane_is_object_gone_and_stale_naming_pane_and_socket(
    shared: TmuxServer, rust_client: Client
) -> None:
    sent = envelope(await rust_client.error("select_pane", {"pane": "%999", "direction": "up"}))
    assert sent["data"] == {"kind": "object_gone", "retryable": False, "stale": True}
    assert "%999" in str(sent["message"]) and shared.name in str(sent["message"])


async def test_python_errors_stay_plain_messages(shared: TmuxServer, python_client: Client) -> None:
    message = await python_client.error("select_pane", {"pane_id": "%999"})
    assert "%999" in message and not message.startswith("{")
