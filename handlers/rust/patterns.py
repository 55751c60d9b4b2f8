"""The rust family's regex dialect: what Rust's ``regex`` crate refuses, refused here too.

That crate matches in linear time, so it has no look-around, backreferences,
atomic groups, possessive quantifiers, recursion or conditionals. The engine
here could run them (and backtrack for a long time); a pattern the family would
refuse is refused before anything runs, naming the construct.
"""

from __future__ import annotations

from ...errors import InvalidArgument

MAX_PATTERN_BYTES = 4096

# What may follow "(?" and the construct it opens.
GROUP_REFUSED = (
    ("<=", "a look-behind"),
    ("<!", "a negative look-behind"),
    ("=", "a look-ahead"),
    ("!", "a negative look-ahead"),
    (">", "an atomic group"),
    ("P=", "a named backreference"),
    ("P>", "a recursive call"),
    ("R", "a recursive call"),
    ("&", "a recursive call"),
    ("(", "a conditional"),
    ("|", "a branch reset"),
)
QUANTIFIERS = "*+?}"


def check_pattern_size(pattern: str, field: str = "pattern") -> None:
    size = len(pattern.encode("utf-8"))
    if size > MAX_PATTERN_BYTES:
        raise InvalidArgument(
            field,
            f"{size} bytes",
            f"is longer than {MAX_PATTERN_BYTES:,} bytes of UTF-8",
            "Shorten the pattern.",
        )


def check_rust_regex(pattern: str, field: str = "pattern") -> None:
    """Refuse the constructs Rust's regex syntax does not have, naming the first one."""
    at, size, depth = 0, len(pattern), 0
    while at < size:
        char = pattern[at]
        if char == "\\":
            following = pattern[at + 1 : at + 2]
            backreference = (following.isdigit() and following != "0") or following in ("k", "g")
            if depth == 0 and backreference:
                _refuse(field, pattern, at, "a backreference")
            at += 2
            continue
        if depth:
            if char == "[" and pattern.startswith("[:", at):
                end = pattern.find(":]", at + 2)
                at = end + 2 if end >= 0 else at + 1
                continue
            if char == "[":
                depth += 1
                at = _class_start(pattern, at)
                continue
            if char == "]":
                depth -= 1
            at += 1
            continue
        if char == "[":
            depth = 1
            at = _class_start(pattern, at)
            continue
        if pattern.startswith("(?", at):
            for opener, what in GROUP_REFUSED:
                if pattern.startswith(opener, at + 2):
                    _refuse(field, pattern, at, what)
            following = pattern[at + 2 : at + 3]
            signed = following in ("+", "-") and pattern[at + 3 : at + 4].isdigit()
            if following.isdigit() or signed:
                _refuse(field, pattern, at, "a recursive call")
        if char in QUANTIFIERS and pattern[at + 1 : at + 2] == "+":
            _refuse(field, pattern, at, "a possessive quantifier")
        at += 1


def _class_start(pattern: str, at: int) -> int:
    """Past a class's ``[``, its ``^`` and a ``]`` that is a literal first member."""
    at += 1
    if pattern[at : at + 1] == "^":
        at += 1
    if pattern[at : at + 1] == "]":
        at += 1
    return at


def _refuse(field: str, pattern: str, at: int, what: str) -> None:
    raise InvalidArgument(
        field,
        pattern,
        f"uses {what} at character {at}, which Rust regex syntax does not have",
        "Rewrite the pattern without it (match the surrounding text instead), or pass "
        "regex: false to search for the text literally.",
    )
