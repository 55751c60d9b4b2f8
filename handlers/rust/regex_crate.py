"""The rust family's regexes, read and run by Rust's own ``regex`` crate.

Why this way: the family is a Rust server, so a pattern means what the
``regex`` crate makes of it, refusal and error text included. A reader written
here in front of Python's engine disagreed with the crate both ways (it refused
``a++`` and ``\\p{L}+``, accepted ``\\Z``, ``\\K`` and ``a{,3}``) and then ran
the pattern with Python's meaning (``$`` also before a final newline,
``[a-z&&[^aeiou]]`` not an intersection). The crate itself is already
here: pydantic-core, which pydantic needs, links it (regex 1.x). For a ``str``
schema whose ``pattern`` is a ``str`` and whose ``regex_engine`` is
``"rust-regex"`` it builds the pattern with ``Regex::new`` (default limits: 10
MiB compiled, nesting 250) and answers ``Regex::is_match`` on each string
validated: unanchored, a search anywhere in it, never handed to Python's ``re``
(only an ``re.Pattern`` object or ``"python-re"`` is). A pattern the crate
refuses is a ``SchemaError`` whose text, after pydantic-core's preamble, is the
crate's own error. So the verdict, the error text and the matches are the
crate's, in linear time; ``tests/test_rust_regex_crate.py`` holds a corpus to it.

``match_case: false`` is the crate's ``(?i)`` (what ``RegexBuilder::
case_insensitive`` sets): Unicode simple case folding, so ``ſ`` matches ``s``
and ``Σ`` matches ``ς`` but ``ß`` never matches ``ss``. The verdict and the
error text come from the pattern as given, so the caret under an error points
into the caller's text. A literal (``regex: false``) is a plain substring test
when case matters, which is exactly what the crate does with the escaped text;
when case is ignored it is the escaped text under ``(?i)``, run by the crate,
so literal and regex searches fold case alike.

Matching needs no timeout inside a line: the crate takes time linear in the
line's length. The callers bound a whole search or wait in time between lines.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import anyio
from pydantic_core import SchemaError, SchemaValidator, core_schema

from ...errors import InvalidArgument
from ..tmux.objects.patterns import MATCH_BUDGET

MAX_PATTERN_BYTES = 4096
# What the crate's ``regex::escape`` escapes: its meta characters, and no others (an
# escaped ``<`` or ``>`` is a word-edge assertion, not the character).
META = frozenset("\\.+*?()|[]{}^$#&-~")
# What pydantic-core writes before the crate's text in a SchemaError.
PREAMBLE = "SchemaError: "
NOT_VALID = "is not a valid regex for Rust's regex crate"


class RegexRefused(Exception):
    """The crate refused a pattern; ``str()`` is the crate's own error text."""


def crate_error(error: SchemaError) -> str:
    """The crate's error text in a SchemaError pydantic-core raised while compiling."""
    text = str(error)
    _, found, rest = text.partition(PREAMBLE)
    return rest if found else text


def escape(text: str) -> str:
    """``text`` as a crate regex matching it literally (the crate's ``regex::escape``)."""
    return "".join(f"\\{char}" if char in META else char for char in text)


@dataclass(frozen=True)
class CrateRegex:
    """One pattern compiled by the crate."""

    source: str
    validator: SchemaValidator

    def is_match(self, line: str) -> bool:
        """The crate's ``is_match``: the pattern matches somewhere in ``line``."""
        return self.validator.isinstance_python(line)


def compile_regex(pattern: str, *, match_case: bool = True) -> CrateRegex:
    """``pattern`` compiled by the crate, under ``(?i)`` unless ``match_case``.

    Raises ``RegexRefused`` with the crate's text. The pattern as given decides the
    verdict and the text; the ``(?i)`` form can only fail on the crate's size limit
    (case folding makes classes bigger), and is refused then with that text.
    """
    compiled = _compile(pattern)
    return compiled if match_case else _compile(f"(?i){pattern}")


def _compile(pattern: str) -> CrateRegex:
    schema = core_schema.str_schema(pattern=pattern, regex_engine="rust-regex")
    try:
        return CrateRegex(pattern, SchemaValidator(schema))
    except SchemaError as exc:
        raise RegexRefused(crate_error(exc)) from None


def check_pattern_size(pattern: str, field: str = "pattern") -> None:
    size = len(pattern.encode("utf-8"))
    if size > MAX_PATTERN_BYTES:
        raise InvalidArgument(
            field,
            f"{size} bytes",
            f"is longer than {MAX_PATTERN_BYTES:,} bytes of UTF-8",
            "Shorten the pattern.",
        )


def line_test(
    pattern: str, is_regex: bool, *, match_case: bool, field: str = "pattern"
) -> Callable[[str], bool]:
    """A test of one line for ``pattern``, as a regex or literally, caseless unless
    ``match_case``; checked and compiled now, refused as invalid_input naming ``field``."""
    if not pattern:
        raise InvalidArgument(field, pattern, "is empty", "Pass the text to look for.")
    if not is_regex and match_case:
        return lambda line: pattern in line
    try:
        compiled = compile_regex(pattern if is_regex else escape(pattern), match_case=match_case)
    except RegexRefused as refused:
        if is_regex:
            rule, step = NOT_VALID, "Fix the pattern, or pass regex: false to match it literally."
        else:  # only the crate's size limit refuses an escaped text
            rule, step = "cannot be matched without case", "Shorten it, or pass match_case: true."
        raise InvalidArgument(field, pattern, f"{rule} ({refused})", step) from None
    return compiled.is_match


@dataclass(frozen=True)
class CratePatterns:
    """The patterns of one wait_for_text argument (``patterns`` or ``stop``), compiled."""

    field: str
    sources: tuple[str, ...]
    tests: tuple[Callable[[str], bool], ...]

    @classmethod
    def build(
        cls, field: str, given: Sequence[str] | None, is_regex: bool, match_case: bool
    ) -> CratePatterns:
        tests: list[Callable[[str], bool]] = []
        for index, pattern in enumerate(given or ()):
            name = f"{field}[{index}]"
            if not pattern:
                raise InvalidArgument(
                    name,
                    pattern,
                    "is empty (it would match every line)",
                    f"Remove it from {field}.",
                )
            tests.append(line_test(pattern, is_regex, match_case=match_case, field=name))
        return cls(field, tuple(given or ()), tuple(tests))

    def __bool__(self) -> bool:
        return bool(self.tests)

    def which(self, line: str, deadline: float) -> int | None:
        """Index of the first pattern that matches ``line``, if any; refused once the
        patterns have spent ``MATCH_BUDGET`` on one read's lines."""
        for index, test in enumerate(self.tests):
            if anyio.current_time() >= deadline:
                raise InvalidArgument(
                    f"{self.field}[{index}]",
                    self.sources[index],
                    f"took over {MATCH_BUDGET:g}s to match the pane's new lines",
                    "Use fewer or simpler patterns (large counted repeats of Unicode "
                    "classes are the slowest).",
                )
            if test(line):
                return index
        return None
