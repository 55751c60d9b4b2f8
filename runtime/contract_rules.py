"""What a contract means that both the generator (codegen/) and the server read.

codegen is a development tool and imports nothing else of this package; the
server has this module in every install. So it imports only the standard
library (tests/codegen/test_codegen_imports.py keeps both rules).

- ``UTF8_KEYWORD``: the one schema keyword of our own, a string's length limit in
  UTF-8 bytes. The server's schema engine checks it (``validation``); codegen has
  each generated model check it too.
- JSON pointers (RFC 6901) to lists of tool names inside an advertised tool. A
  contract may name, under its project metadata, pointers to such lists (a read
  batch's nested authority, say); the tool as served keeps only the names of
  tools served, so what it advertises follows the tool selection. Codegen checks
  the pointers with ``resolve``; the runtime cuts with ``cut_lists``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

UTF8_KEYWORD = "x-libtmux-max-utf8-bytes"


class PointerError(ValueError):
    """A pointer that does not lead to a list of names in the document."""


def steps(pointer: str) -> list[str]:
    """The keys a pointer walks, unescaped (``~1`` is ``/``, ``~0`` is ``~``)."""
    if not pointer.startswith("/"):
        raise PointerError(f"{pointer!r} is not a JSON pointer: it must start with '/'")
    return [part.replace("~1", "/").replace("~0", "~") for part in pointer[1:].split("/")]


def resolve(document: Any, pointer: str) -> list[str]:
    """The list of names at ``pointer`` (objects only along the way: no array indices)."""
    target = document
    for key in steps(pointer):
        if not isinstance(target, dict) or key not in target:
            raise PointerError(f"{pointer!r} leads nowhere: no key {key!r}")
        target = target[key]
    if not isinstance(target, list) or not all(isinstance(name, str) for name in target):
        raise PointerError(f"{pointer!r} does not lead to a list of tool names")
    return list(target)


def cut_lists(
    document: dict[str, Any], pointers: Sequence[str], keep: Collection[str]
) -> dict[str, Any]:
    """A copy of ``document`` where each list at ``pointers`` holds only the names in
    ``keep``, in its own order; the rest is shared with ``document``, not copied."""
    result = dict(document)
    for pointer in pointers:
        names = resolve(result, pointer)
        *path, last = steps(pointer)
        parent = result
        for key in path:  # copy each object on the way, so the original stays as it is
            parent[key] = dict(parent[key])
            parent = parent[key]
        parent[last] = [name for name in names if name in keep]
    return result
