"""Contract patterns mean what ECMA-262 says, in Python's ``re`` and in pydantic's regex crate.

The expected answers below are ECMA-262's (``new RegExp(pattern, "u").test(text)``).
Each pattern is run in both dialects: the one the schema checkers use and the
one the generated models use.
"""

from __future__ import annotations

import re
from typing import Annotated

import pytest
from pydantic import Field, TypeAdapter, ValidationError

from tmux_contract_mcp.ecma import Dialect, UnsupportedPattern, search, translate

# (pattern, text, whether ECMA-262 finds a match)
CASES: list[tuple[str, str, bool]] = [
    ("^[A-Za-z][A-Za-z0-9_]*$", "pane_1", True),
    ("^[A-Za-z][A-Za-z0-9_]*$", "pane_1\n", False),
    ("^[A-Za-z][A-Za-z0-9_]*$", "1pane", False),
    ("^x$", "x", True),
    ("^x$", "x\n", False),
    ("^x$", "\nx", False),
    ("x$", "x\r", False),
    ("^\\d+$", "123", True),
    ("^\\d$", "\u0663", False),  # ARABIC-INDIC DIGIT THREE is no digit to ECMA-262
    ("^\\D$", "\u0663", True),
    ("^\\w$", "\u00e9", False),
    ("^\\w+$", "a_Z9", True),
    ("^\\W$", "\u00e9", True),
    ("^\\s$", "\ufeff", True),
    ("^\\s$", "\u0085", False),  # NEXT LINE: Unicode white space, not ECMA-262's
    ("^\\s$", "\u2029", True),
    ("^\\S$", "\u0085", True),
    ("^.$", "\r", False),
    ("^.$", "\u2028", False),
    ("^.$", "\n", False),
    ("^.$", "\U0001f600", True),  # one code point is one character
    ("^.$", "\u0085", True),
    ("\\bx", "\u00e9x", True),  # é is no word character, so there is a boundary
    ("\\Bx", "\u00e9x", False),
    ("^[$]$", "$", True),
    ("^\\$$", "$", True),
    ("^[^a]$", "\n", True),
    ("^[\\d_]+$", "1_2", True),
    ("^[\\w-]+$", "a-b", True),
    ("^[a-]$", "-", True),
    ("^[\\b]$", "\b", True),
    ("^\\u{1F600}$", "\U0001f600", True),
    ("^\\uD83D\\uDE00$", "\U0001f600", True),
    ("^\\u00e9$", "\u00e9", True),
    ("^\\x41$", "A", True),
    ("^\\cJ$", "\n", True),
    ("^\\0$", "\0", True),
    ("^\\t\\n\\v\\f\\r$", "\t\n\v\f\r", True),
    ("^\\/\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\\\\\^$", "/.*+?()[]{}|\\^", True),
    ("^a{2}$", "aa", True),
    ("^a{2,}$", "a", False),
    ("^a{1,2}?b$", "aab", True),
    ("^(?:ab)+$", "abab", True),
    ("^(?<word>ab)|c$", "c", True),
    ("^a|b$", "xb", True),
    ("^[A-Z]&&[a-z]$", "B&&c", True),
    ("#x", "a#x", True),
    ("^ $", " ", True),
]

UNSUPPORTED = [
    "\\Z",  # not ECMA-262
    "\\z",
    "\\A",
    "\\a",
    "\\p{L}",
    "(a)\\1",
    "(?=a)",
    "(?!a)",
    "(?<=a)b",
    "(?i)a",
    "a**",
    "a*+",
    "a{2}{3}",
    "*a",
    "^*",
    "a{",
    "a}",
    "]",
    "(a",
    "a)",
    "[a",
    "[]",
    "[\\D]",
    "[a-\\d]",
    "[z-a]",
    "\\-",
    "\\u{110000}",
    "\\ud800",
    "\\",
    "\\x4",
]


def rust_search(pattern: str, text: str) -> bool:
    """The pattern as a generated model applies it (pydantic's ``pattern``, the regex crate)."""
    adapter: TypeAdapter[str] = TypeAdapter(
        Annotated[str, Field(pattern=translate(pattern, "regex-crate"))]
    )
    try:
        adapter.validate_python(text, strict=True)
    except ValidationError:
        return False
    return True


@pytest.mark.parametrize(("pattern", "text", "expected"), CASES)
def test_python_reads_the_pattern_as_ecma_262_does(pattern: str, text: str, expected: bool) -> None:
    assert search(pattern, text) is expected


@pytest.mark.parametrize(("pattern", "text", "expected"), CASES)
def test_the_regex_crate_reads_the_pattern_as_ecma_262_does(
    pattern: str, text: str, expected: bool
) -> None:
    assert rust_search(pattern, text) is expected


@pytest.mark.parametrize("pattern", UNSUPPORTED)
@pytest.mark.parametrize("dialect", ["re", "regex-crate"])
def test_a_pattern_not_ecma_262_or_not_read_alike_by_both_engines_is_refused(
    pattern: str, dialect: Dialect
) -> None:
    with pytest.raises(UnsupportedPattern, match=re.escape(repr(pattern))):
        translate(pattern, dialect)


def test_the_python_dialect_has_no_dollar_for_fastjsonschema_to_rewrite() -> None:
    # fastjsonschema turns every unescaped `$` into `\Z`, even inside a class.
    assert "$" not in translate("^[$]a$", "re")
