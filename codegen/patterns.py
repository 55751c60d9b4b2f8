"""A contract's ``pattern`` must mean the same to every engine that reads it.

A pattern is ECMA-262 (JSON Schema says so), and jsonschema-rs reads it that way at run
time. The generated models hand the same pattern, as written, to pydantic, whose engine
is Rust's regex crate. The two agree on plain patterns and part ways on some constructs:
``\\d``, ``\\w``, ``\\s`` and ``\\b`` are ASCII in ECMA-262 and Unicode in the crate; ``.``
stops at more line ends in ECMA-262; outside the ``u`` flag ECMA-262 reads a character
beyond U+FFFF as two code units; the crate has no look-around or back-references, and
ECMA-262 has no possessive quantifiers, inline flags or nested classes. So the generator
refuses any pattern that uses such a construct, naming it, rather than let two checkers
of one call give two verdicts.

No library says which constructs two regex dialects read alike, so this small scanner is
written here; it accepts a deliberately plain subset and names the first construct outside
it.
"""

from __future__ import annotations

import re
from typing import NoReturn

# Escapes both engines read as the same single character.
PLAIN_ESCAPES = frozenset("\\.*+?()[]{}|^$-/tnrfv")
HEX_ESCAPE = re.compile(r"x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}")
QUANTIFIER = re.compile(r"\{(\d+)(,(\d*))?\}")

CLASS_ESCAPES = {
    "d": "`\\d` (ASCII digits in ECMA-262, Unicode digits in the regex crate)",
    "D": "`\\D` (the complement of ASCII digits in ECMA-262, of Unicode digits in the regex crate)",
    "w": "`\\w` (ASCII word characters in ECMA-262, Unicode ones in the regex crate)",
    "W": "`\\W` (the complement of `\\w`, which the engines read differently)",
    "s": "`\\s` (the engines' white space sets differ)",
    "S": "`\\S` (the engines' white space sets differ)",
    "b": "`\\b` (an ASCII word boundary in ECMA-262, a Unicode one in the regex crate)",
    "B": "`\\B` (the complement of `\\b`, which the engines read differently)",
    "p": "`\\p` (a Unicode property in the regex crate, the letter p in ECMA-262 without the u flag)",
    "P": "`\\P` (a Unicode property in the regex crate, the letter P in ECMA-262 without the u flag)",
    "k": "`\\k` (a back-reference, which the regex crate does not have)",
}


class PatternDiffers(ValueError):
    """A pattern two engines of one call would read differently."""


def check_pattern(pattern: str) -> None:
    """Refuse ``pattern`` when ECMA-262 and the regex crate could read it differently,
    naming the first such construct and where it starts."""
    at, inside_class = 0, False
    while at < len(pattern):
        char = pattern[at]
        if ord(char) > 0xFFFF or 0xD800 <= ord(char) <= 0xDFFF:
            _refuse(pattern, at, f"U+{ord(char):04X}, beyond U+FFFF (two code units in ECMA-262)")
        if char == "\\":
            at = _escape(pattern, at)
            continue
        if inside_class:
            if char == "[":
                _refuse(pattern, at, "`[` inside a class (a nested class in the regex crate)")
            if pattern.startswith(("&&", "--", "~~"), at):
                _refuse(
                    pattern, at, f"`{pattern[at : at + 2]}` (a set operation in the regex crate)"
                )
            inside_class = char != "]"
            at += 1
            continue
        if char == "[":
            start = at + 1 + pattern.startswith("^", at + 1)
            if start > at + 1 and not _repeated_freely(pattern, at):
                _refuse(
                    pattern,
                    at,
                    "`[^` not followed by `*` or `+` (ECMA-262 negates UTF-16 code units, the "
                    "crate characters, so they count a character beyond U+FFFF differently)",
                )
            if pattern.startswith("]", start):
                _refuse(pattern, at, "`[]` (an empty class in ECMA-262, a `]` in the regex crate)")
            inside_class = True
            at = start
            continue
        if char == ".":
            _refuse(pattern, at, "`.` (the engines stop at different line ends)")
        if char == "(" and pattern.startswith("(?", at) and not pattern.startswith("(?:", at):
            _refuse(pattern, at, f"`{pattern[at : at + 3]}` (a group only one engine has)")
        if char == "{":
            quantifier = QUANTIFIER.match(pattern, at)
            if quantifier is None:
                _refuse(pattern, at, "`{` that is not a quantifier (a literal only in ECMA-262)")
            at = quantifier.end()
            at = _after_quantifier(pattern, at)
            continue
        if char in "*+?":
            at = _after_quantifier(pattern, at + 1)
            continue
        at += 1
    if inside_class:
        _refuse(pattern, len(pattern), "an unclosed class")


def _escape(pattern: str, at: int) -> int:
    """Where the escape at ``at`` ends, once it is known to mean one thing to both."""
    following = pattern[at + 1 : at + 2]
    if following in CLASS_ESCAPES:
        _refuse(pattern, at, CLASS_ESCAPES[following])
    if following.isdigit():
        _refuse(pattern, at, f"`\\{following}` (a back-reference or octal escape)")
    if following in PLAIN_ESCAPES:
        return at + 2
    hexed = HEX_ESCAPE.match(pattern, at + 1)
    if hexed is not None:
        code = int(hexed.group()[1:], 16)
        if 0xD800 <= code <= 0xDFFF:
            _refuse(pattern, at, f"`\\{hexed.group()}` (a surrogate)")
        return hexed.end()
    _refuse(pattern, at, f"`\\{following}` (an escape the engines read differently)")


def _repeated_freely(pattern: str, at: int) -> bool:
    """Whether the class opening at ``at`` is followed by ``*`` or ``+`` (not lazy, not
    possessive): then any run of code units is any run of characters, and the counts never
    matter."""
    end = at + 1
    while end < len(pattern) and (pattern[end] != "]" or end <= at + 2):
        end += 2 if pattern[end] == "\\" else 1
    following = pattern[end + 1 : end + 3]
    return following[:1] in ("*", "+") and following[1:2] not in ("?", "+")


def _after_quantifier(pattern: str, at: int) -> int:
    """A quantifier may be lazy (``?``) in both; possessive (``+``) is the crate's only."""
    if pattern.startswith("+", at):
        _refuse(pattern, at, "a possessive quantifier (the regex crate's only)")
    return at + 1 if pattern.startswith("?", at) else at


def _refuse(pattern: str, at: int, construct: str) -> NoReturn:
    raise PatternDiffers(
        f"pattern {pattern!r} uses {construct} at offset {at}: ECMA-262 (the schema check) and "
        "the regex crate (the generated model) could read it differently; write it with "
        "plain characters, explicit classes such as [0-9] and escapes such as \\."
    )
