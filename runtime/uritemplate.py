"""Matching a URI against an RFC 6570 template: ``{name}`` path segments, ``{?a,b}`` queries.

Only those two expression forms are understood; they are all a resource
contract may use (the generator checks). A path variable matches one whole
segment or part of one, never a ``/``; the query may list the declared names
in any order, each at most once.

Percent-decoding follows RFC 3986, with one allowance for what agents type:
a tmux id written bare (``%12``) is also a valid escape, so a value is decoded
unless the decoded text is not acceptable for the variable and the text as
written is (``accepts`` tells). ``%2512`` therefore reads as ``%12``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from urllib.parse import unquote

EXPRESSION = re.compile(r"\{([?]?)([A-Za-z_][A-Za-z0-9_]*(?:,[A-Za-z_][A-Za-z0-9_]*)*)\}")
QUERY_GROUP = "_query"


class BadUri(ValueError):
    """The URI has this template's shape but not acceptable values; ``field`` names the part."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass(frozen=True)
class UriTemplate:
    template: str
    pattern: re.Pattern[str]
    path_names: tuple[str, ...]
    query_names: tuple[str, ...]

    @classmethod
    def parse(cls, template: str) -> UriTemplate:
        regex = ""
        path: list[str] = []
        query: list[str] = []
        position = 0
        for match in EXPRESSION.finditer(template):
            regex += re.escape(template[position : match.start()])
            operator, names = match.group(1), match.group(2).split(",")
            if operator == "?":
                query.extend(names)
                regex += rf"(?:\?(?P<{QUERY_GROUP}>[^#]*))?"
            else:
                for name in names:  # {a,b} would join with commas; contracts use one name each
                    path.append(name)
                    regex += rf"(?P<{name}>[^/?#]+)"
            position = match.end()
        regex += re.escape(template[position:])
        return cls(template, re.compile(regex + r"\Z"), tuple(path), tuple(query))

    @property
    def names(self) -> tuple[str, ...]:
        return (*self.path_names, *self.query_names)

    def match(
        self, uri: str, accepts: Callable[[str, str], bool] = lambda name, value: True
    ) -> dict[str, str] | None:
        """The variables ``uri`` gives, decoded; None when it is not of this template's shape.

        ``accepts(name, value)`` says whether a value is acceptable for a variable;
        it only decides how a bare ``%`` is read. Raises BadUri for a query
        parameter the template does not declare, or one given twice.
        """
        found = self.pattern.match(uri)
        if found is None:
            return None
        values = {
            name: _decoded(found.group(name), partial(accepts, name)) for name in self.path_names
        }
        query = found.groupdict().get(QUERY_GROUP)
        if query:
            for part in query.split("&"):
                if not part:
                    continue
                raw_name, _, raw_value = part.partition("=")
                name = unquote(raw_name)
                if name not in self.query_names:
                    accepted = ", ".join(self.query_names) or "none"
                    raise BadUri(
                        name,
                        f"the query parameter `{name}` is not one this resource takes "
                        f"(accepted: {accepted})",
                    )
                if name in values:
                    raise BadUri(name, f"the query parameter `{name}` is given twice")
                values[name] = _decoded(raw_value, partial(accepts, name))
        return values


def _decoded(raw: str, accepts: Callable[[str], bool]) -> str:
    if "%" not in raw:
        return raw
    try:
        decoded = unquote(raw, errors="strict")
    except UnicodeDecodeError:  # not UTF-8 once decoded: the escapes were not meant as such
        return raw
    if decoded != raw and not accepts(decoded) and accepts(raw):
        return raw
    return decoded
