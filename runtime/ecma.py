"""JSON Schema ``pattern`` as ECMA-262 reads it, for Python's ``re`` and for Rust's regex crate.

A contract's patterns are ECMA-262 regular expressions (read with the ``u``
flag, as JSON Schema 2020-12 asks: one code point is one character). Python
and the regex crate pydantic uses read the same text differently: Python's
``$`` also matches before a trailing newline, both engines' ``\\d`` and
``\\w`` take any Unicode digit or letter where ECMA-262 takes ASCII, and
``.`` stops at different line ends. So each engine gets the pattern
rewritten into its own dialect, with the meaning ECMA-262 gives it. What
cannot be rewritten to mean the same in both (lookarounds, back references,
``\\p{...}``, escapes ECMA-262 does not have such as ``\\Z``) is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

Dialect = Literal["re", "regex-crate"]

Ranges = tuple[tuple[int, int], ...]

_DIGIT: Ranges = ((0x30, 0x39),)
_WORD: Ranges = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
# WhiteSpace and LineTerminator of ECMA-262: not Python's or Unicode's White_Space.
_SPACE: Ranges = (
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
)
_LINE_TERMINATORS: Ranges = ((0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029))
_CLASS_ESCAPES: dict[str, tuple[Ranges, bool]] = {
    "d": (_DIGIT, False),
    "D": (_DIGIT, True),
    "w": (_WORD, False),
    "W": (_WORD, True),
    "s": (_SPACE, False),
    "S": (_SPACE, True),
}
_CONTROL_ESCAPES = {"t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D}
_SYNTAX_CHARACTERS = frozenset("^$\\.*+?()[]{}|/")
_END_OF_TEXT: dict[Dialect, str] = {"re": r"\Z", "regex-crate": "$"}  # the crate's $ is the end
_WORD_BOUNDARY: dict[Dialect, str] = {"re": r"(?a:\b)", "regex-crate": r"(?-u:\b)"}
_NOT_WORD_BOUNDARY: dict[Dialect, str] = {"re": r"(?a:\B)", "regex-crate": r"(?-u:\B)"}
_QUANTIFIER = re.compile(r"\{([0-9]+)(,([0-9]*))?\}")
_GROUP_NAME = re.compile(r"\?<([A-Za-z_][A-Za-z0-9_]*)>")


class UnsupportedPattern(ValueError):
    """A pattern that is not ECMA-262, or that the engines cannot be told to read alike."""


@dataclass(frozen=True)
class _Set:
    ranges: Ranges
    negated: bool


def literal(code: int) -> str:
    """One code point as both dialects read it literally, anywhere in a pattern."""
    char = chr(code)
    if char.isascii() and (char.isalnum() or char == "_"):
        return char
    if code < 0x80:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _members(ranges: Ranges) -> str:
    return "".join(
        literal(low) if low == high else f"{literal(low)}-{literal(high)}" for low, high in ranges
    )


class _Reader:
    """Reads one pattern left to right and writes it in one dialect."""

    def __init__(self, pattern: str, dialect: Dialect) -> None:
        self.pattern = pattern
        self.dialect = dialect
        self.at = 0

    def fail(self, why: str) -> UnsupportedPattern:
        return UnsupportedPattern(f"pattern {self.pattern!r} at {self.at}: {why}")

    def literal(self, code: int) -> str:
        if 0xD800 <= code <= 0xDFFF:
            raise self.fail(f"a lone surrogate U+{code:04X} (the regex crate has none)")
        return literal(code)

    def peek(self, ahead: int = 0) -> str:
        index = self.at + ahead
        return self.pattern[index] if index < len(self.pattern) else ""

    def translate(self) -> str:
        out: list[str] = []
        depth = 0
        repeatable = False  # whether a quantifier may follow what was just read
        while self.at < len(self.pattern):
            char = self.peek()
            if char in "*+?{":
                if not repeatable:
                    raise self.fail("a quantifier with nothing to repeat")
                out.append(self.quantifier())
                repeatable = False
                continue
            repeatable = True
            if char == "\\":
                out.append(self.escape_outside())
                repeatable = out[-1] not in (
                    _WORD_BOUNDARY[self.dialect],
                    _NOT_WORD_BOUNDARY[self.dialect],
                )
            elif char == "[":
                out.append(self.character_class())
            elif char == "(":
                out.append(self.group_open())
                depth += 1
                repeatable = False
            elif char == ")":
                if depth == 0:
                    raise self.fail("')' closes no group")
                depth -= 1
                out.append(")")
                self.at += 1
            elif char in "^$|":
                out.append(_END_OF_TEXT[self.dialect] if char == "$" else char)
                self.at += 1
                repeatable = False
            elif char == ".":
                out.append(f"[^{_members(_LINE_TERMINATORS)}]")
                self.at += 1
            elif char in "]}":
                raise self.fail(f"a lone {char!r} (escape it)")
            else:
                out.append(self.literal(ord(char)))
                self.at += 1
        if depth:
            raise self.fail("a group is never closed")
        return "".join(out)

    def quantifier(self) -> str:
        char = self.peek()
        if char == "{":
            found = _QUANTIFIER.match(self.pattern, self.at)
            if found is None:
                raise self.fail("'{' that starts no {n}, {n,} or {n,m} (escape it)")
            low, high = found.group(1), found.group(3)
            if high and int(high) < int(low):
                raise self.fail("a {n,m} quantifier with m below n")
            text = found.group(0)
            self.at = found.end()
        else:
            text = char
            self.at += 1
        if self.peek() == "?":  # lazy
            text += "?"
            self.at += 1
        if self.peek() and self.peek() in "*+?{":
            raise self.fail("a quantifier after a quantifier")
        return text

    def group_open(self) -> str:
        self.at += 1
        if self.peek() != "?":
            return "("
        if self.peek(1) == ":":
            self.at += 2
            return "(?:"
        named = _GROUP_NAME.match(self.pattern, self.at)
        if named is not None:
            self.at = named.end()
            return f"(?P<{named.group(1)}>"
        raise self.fail("lookarounds and inline flags are not supported")

    def escape_outside(self) -> str:
        atom = self.escape(in_class=False)
        if isinstance(atom, _Set):
            return f"[{'^' if atom.negated else ''}{_members(atom.ranges)}]"
        if isinstance(atom, str):
            return atom
        return self.literal(atom)

    def escape(self, in_class: bool) -> int | _Set | str:
        """The escape at ``self.at`` (a backslash): a code point, a set, or an assertion."""
        self.at += 1
        char = self.peek()
        if not char:
            raise self.fail("a pattern ending in a backslash")
        self.at += 1
        if char in _CLASS_ESCAPES:
            ranges, negated = _CLASS_ESCAPES[char]
            return _Set(ranges, negated)
        if char in _CONTROL_ESCAPES:
            return _CONTROL_ESCAPES[char]
        if char == "b":
            return 0x08 if in_class else _WORD_BOUNDARY[self.dialect]
        if char == "B" and not in_class:
            return _NOT_WORD_BOUNDARY[self.dialect]
        if char == "0" and not self.peek().isdigit():
            return 0
        if char == "c" and self.peek().isascii() and self.peek().isalpha():
            self.at += 1
            return ord(self.pattern[self.at - 1]) % 32
        if char == "x":
            return self.hex_digits(2)
        if char == "u":
            return self.unicode_escape()
        if char in _SYNTAX_CHARACTERS or (in_class and char == "-"):
            return ord(char)
        raise self.fail(f"\\{char} is not an ECMA-262 escape the engines read alike")

    def hex_digits(self, count: int) -> int:
        digits = self.pattern[self.at : self.at + count]
        if len(digits) != count or not all(c in "0123456789abcdefABCDEF" for c in digits):
            raise self.fail(f"expected {count} hex digits")
        self.at += count
        return int(digits, 16)

    def unicode_escape(self) -> int:
        if self.peek() == "{":
            end = self.pattern.find("}", self.at)
            digits = self.pattern[self.at + 1 : end] if end > 0 else ""
            if not digits or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise self.fail("expected \\u{hex digits}")
            code = int(digits, 16)
            if code > 0x10FFFF:
                raise self.fail("a code point above U+10FFFF")
            self.at = end + 1
            return code
        code = self.hex_digits(4)
        if 0xD800 <= code <= 0xDBFF and self.pattern.startswith("\\u", self.at):
            saved = self.at
            self.at += 2
            low = self.hex_digits(4)
            if 0xDC00 <= low <= 0xDFFF:  # a surrogate pair is one code point
                return 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            self.at = saved
        return code

    def character_class(self) -> str:
        self.at += 1
        negated = self.peek() == "^"
        if negated:
            self.at += 1
        members: list[str] = []
        while self.peek() != "]":
            if not self.peek():
                raise self.fail("a character class is never closed")
            low = self.class_atom()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.at += 1
                high = self.class_atom()
                if isinstance(low, _Set) or isinstance(high, _Set):
                    raise self.fail("a range with a class escape at one end")
                if high < low:
                    raise self.fail("a range out of order")
                members.append(f"{self.literal(low)}-{self.literal(high)}")
            elif isinstance(low, _Set):
                if low.negated:
                    raise self.fail("\\D, \\W or \\S inside a character class")
                members.append(_members(low.ranges))
            else:
                members.append(self.literal(low))
        self.at += 1
        if not members:
            raise self.fail("an empty character class")
        return f"[{'^' if negated else ''}{''.join(members)}]"

    def class_atom(self) -> int | _Set:
        if self.peek() == "\\":
            atom = self.escape(in_class=True)
            assert not isinstance(atom, str)  # assertions do not exist inside a class
            return atom
        self.at += 1
        return ord(self.pattern[self.at - 1])


@lru_cache(maxsize=256)
def translate(pattern: str, dialect: Dialect) -> str:
    """``pattern`` (ECMA-262) in ``dialect``, with the same meaning; raises UnsupportedPattern."""
    text = _Reader(pattern, dialect).translate()
    if dialect == "re":
        try:
            re.compile(text)
        except re.error as exc:
            raise UnsupportedPattern(f"pattern {pattern!r}: {exc}") from None
    return text


@lru_cache(maxsize=256)
def compiled(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled for Python with its ECMA-262 meaning."""
    return re.compile(translate(pattern, "re"))


def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches anywhere in ``text``, as JSON Schema's ``pattern`` asks."""
    return compiled(pattern).search(text) is not None
