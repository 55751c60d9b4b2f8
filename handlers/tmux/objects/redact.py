"""Secrets left out of what a tool reports from a pane's screen.

A pane shows what its programs print, tokens and passwords among them, and a tool
that returns lines of it hands them to a model and its logs. ``redact`` replaces what
looks like a credential with ``[redacted]``: well-known token shapes (OpenAI and
Anthropic keys, GitHub and GitLab tokens, AWS access key ids, Slack tokens, JWTs),
a bearer token, and the value of an assignment whose name says key, token, secret or
password.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MASK = "[redacted]"

_SHAPES = re.compile(
    r"(sk-(?:ant-)?[A-Za-z0-9_-]{16,}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,}"
    r"|glpat-[A-Za-z0-9_-]{16,}"
    r"|AKIA[0-9A-Z]{16}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"
)
_BEARER = re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}")
_ASSIGNED = re.compile(
    r"(?i)(\b[A-Za-z0-9_]*(?:api[_-]?key|token|secret|passw(?:or)?d)[A-Za-z0-9_]*"
    r"[\"']?\s*[:=]\s*[\"']?)[^\s\"']{4,}"
)


def redact(line: str) -> str:
    """``line`` with every credential it seems to hold replaced by ``[redacted]``."""
    line = _SHAPES.sub(MASK, line)
    line = _BEARER.sub(lambda m: m.group(1) + MASK, line)
    return _ASSIGNED.sub(lambda m: m.group(1) + MASK, line)


def redacted(lines: Iterable[str]) -> list[str]:
    return [redact(line) for line in lines]
