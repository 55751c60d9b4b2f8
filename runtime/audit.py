"""The audit log: one JSON line per call that changes tmux, in a file the user names.

Off unless the configuration file has an ``[audit]`` table. Each line holds the time, the
tool, its arguments (every string longer than ``text_bytes`` cut, saying how much was
left out), its targets, the host (``local`` or the configured host a ``host/socket``
names), the outcome (``ok``, ``error`` or ``refused``, with the first line of the error),
the duration in milliseconds, and who called (``stdio`` or the HTTP client's address).
The file is rotated by size (the standard library's ``RotatingFileHandler``). A file that
cannot be opened stops startup with one line (``ConfigRefused``).
"""

from __future__ import annotations

import json
import logging
import logging.handlers
import time
from collections.abc import Mapping
from typing import Any

from .config import AuditSettings, ConfigRefused, audit_problem

CUT = "…[{} more bytes]"
ERROR_BYTES = 500  # an error's first line is kept up to this many bytes


def cut(value: Any, limit: int) -> Any:
    """``value`` with every string longer than ``limit`` UTF-8 bytes cut to that length."""
    if isinstance(value, str):
        data = value.encode("utf-8")
        if len(data) <= limit:
            return value
        kept = data[:limit].decode("utf-8", "ignore")
        return kept + CUT.format(len(data) - len(kept.encode("utf-8")))
    if isinstance(value, Mapping):
        return {key: cut(item, limit) for key, item in value.items()}
    if isinstance(value, list):
        return [cut(item, limit) for item in value]
    return value


class AuditLog:
    """The open log file; ``record`` writes one line and flushes it."""

    def __init__(self, settings: AuditSettings, where: str) -> None:
        problem = audit_problem(settings.path)
        if problem is not None:
            raise ConfigRefused(f"{where}: [audit] path: {problem}")
        try:
            self.handler = logging.handlers.RotatingFileHandler(
                settings.path,
                maxBytes=settings.max_bytes,
                backupCount=settings.keep,
                encoding="utf-8",
            )
        except OSError as exc:
            raise ConfigRefused(
                f"{where}: [audit] path: cannot be written ({exc.strerror}); name another path"
            ) from None
        self.handler.setFormatter(logging.Formatter("%(message)s"))
        self.text_bytes = settings.text_bytes

    def record(
        self,
        *,
        tool: str,
        arguments: Mapping[str, Any],
        targets: list[str],
        host: str,
        outcome: str,
        error: str | None,
        seconds: float,
        client: str,
    ) -> None:
        line: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "tool": tool,
            "arguments": cut(dict(arguments), self.text_bytes),
            "targets": targets,
            "host": host,
            "outcome": outcome,
            "ms": round(seconds * 1000, 1),
            "client": client,
        }
        if error is not None:
            line["error"] = cut(error.splitlines()[0] if error else error, ERROR_BYTES)
        record = logging.LogRecord(
            "audit", logging.INFO, __file__, 0, json.dumps(line, ensure_ascii=False), None, None
        )
        self.handler.emit(record)

    def close(self) -> None:
        self.handler.close()
