"""Process-local opaque references to tmux objects.

tmux reuses ids after a server restart (``%3`` of the old server is not ``%3``
of the new one). A ref binds an id to the server run it was seen on (the
server's pid and start time) and carries a MAC keyed by a secret of this
process, so a ref from another process, a hand-made one or one from an
earlier server run is refused instead of silently naming a different object.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass

from ....errors import InvalidArgument

PREFIX = "tmr1"
KINDS = {"pane": "p", "window": "w", "session": "s", "link": "l"}
_MAC_BYTES = 9


@dataclass(frozen=True)
class Ref:
    """What a ref stands for: an object of ``kind`` on the server run ``server_tag``."""

    kind: str
    object_id: str
    server_tag: str


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Refs:
    """Mints and checks refs with one secret per process."""

    def __init__(self, secret: bytes | None = None) -> None:
        self._secret = secret if secret is not None else secrets.token_bytes(32)

    def _mac(self, body: str) -> str:
        digest = hmac.new(self._secret, body.encode("utf-8"), hashlib.sha256).digest()
        return _b64(digest[:_MAC_BYTES])

    def make(self, kind: str, object_id: str, server_tag: str) -> str:
        body = f"{KINDS[kind]}.{_b64(f'{object_id}|{server_tag}'.encode())}"
        return f"{PREFIX}.{body}.{self._mac(body)}"

    def seal(self, payload: bytes) -> str:
        """An opaque token carrying ``payload`` that only this process will accept back."""
        body = _b64(payload)
        return f"{body}.{self._mac(body)}"

    def unseal(self, token: str) -> bytes | None:
        """The payload of a token from ``seal``; None when it is malformed or not ours."""
        body, _, mac = token.partition(".")
        if not body or not hmac.compare_digest(self._mac(body), mac):
            return None
        try:
            return _unb64(body)
        except ValueError:
            return None

    def kind_of(self, value: str) -> str | None:
        """The kind a ref claims to be (unchecked; ``parse`` checks)."""
        parts = value.split(".")
        if len(parts) != 4 or parts[0] != PREFIX:
            return None
        return next((name for name, code in KINDS.items() if code == parts[1]), None)

    def is_ref(self, value: str) -> bool:
        return value.startswith(PREFIX + ".")

    def parse(self, value: str, field: str, kinds: tuple[str, ...]) -> Ref:
        """The object a ref names; refuses a forged, foreign or wrong-kind ref."""
        parts = value.split(".")
        if len(parts) != 4 or parts[0] != PREFIX:
            raise self._bad(field, value, "is not a ref this server issued")
        letter, payload, mac = parts[1], parts[2], parts[3]
        if not hmac.compare_digest(self._mac(f"{letter}.{payload}"), mac):
            raise self._bad(
                field,
                value,
                "is not a ref this server process issued (refs do not survive a restart)",
            )
        kind = next((name for name, code in KINDS.items() if code == letter), None)
        try:
            object_id, _, server_tag = _unb64(payload).decode("utf-8").rpartition("|")
        except (ValueError, UnicodeDecodeError):
            raise self._bad(field, value, "is not a ref this server issued") from None
        if kind not in kinds:
            wanted = " or ".join(kinds)
            raise self._bad(field, value, f"is a {kind} ref where a {wanted} was expected")
        return Ref(kind, object_id, server_tag)

    @staticmethod
    def _bad(field: str, value: str, rule: str) -> InvalidArgument:
        return InvalidArgument(
            field, value, rule, "Pass a raw tmux id, or a ref from a recent result of this server."
        )
