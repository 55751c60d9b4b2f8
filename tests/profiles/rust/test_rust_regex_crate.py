"""The rust profile reads every regex with Rust's regex crate: its verdict, its error text,
its matches.

One table of patterns states, for each, the crate's verdict and which of a fixed set of
pane lines it matches (ASCII, accented Latin, Greek, Arabic-Indic digits, CJK, emoji, and
the pane's blank rows). The table is checked three ways: against the crate directly
(pydantic-core's bundled ``regex``, so a wrong row shows up apart from a server fault),
against the profile's ``regex_crate`` module, and through the real rust profile:
``search_panes`` with ``regex: true`` over a real tmux pane that printed those lines. A
refusal is invalid_input naming ``pattern`` and quoting the crate's own error, and reaches
no tmux. ``wait_for_text`` reads its patterns the same way.
"""

from __future__ import annotations

import string
from typing import Any, NamedTuple

import anyio
import pytest
from pydantic_core import SchemaError, SchemaValidator, core_schema

from scripts.lab.client import Client
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.family import family_envelope as envelope
from tests.helpers.family import shell_window
from tests.helpers.tmux import printed
from tmux_contract_mcp.errors import InvalidArgument
from tmux_contract_mcp.handlers.rust import regex_crate

# The pane's lines, by name. ``blank`` stands for the empty rows below them.
LINES = {
    "ascii": "Hello world 42",
    "bad": "baaad",
    "rhythm": "rhythm",
    "latin": "Straße café naïve",
    "latin_upper": "STRASSE CAFÉ",
    "greek_upper": "ΣΑΣ",
    "greek_lower": "σας ωμέγα",
    "digits": "٣٤٥ 42",
    "cjk": "東京タワー",
    "emoji": "☺ 😀",
    "punct": "a.b*c (d) [e]",
    "blank": "",
}
EVERY = frozenset(LINES)
PRINTED = EVERY - {"blank"}
BY_TEXT = {text: name for name, text in LINES.items()}


class Case(NamedTuple):
    id: str
    pattern: str
    accepted: bool
    lines: frozenset[str] = frozenset()  # the lines matched, when accepted
    error: str = ""  # a part of the crate's error text, when refused
    match_case: bool = True


def ok(case_id: str, pattern: str, *lines: str, match_case: bool = True) -> Case:
    return Case(case_id, pattern, True, frozenset(lines), match_case=match_case)


def every(case_id: str, pattern: str, *but: str) -> Case:
    return Case(case_id, pattern, True, EVERY - set(but))


def refused(case_id: str, pattern: str, error: str) -> Case:
    return Case(case_id, pattern, False, error=error)


ESCAPE = "unrecognized escape sequence"
CASES = [
    # What the hand-made reader got wrong: the crate accepts these ...
    ok("nested-plus", "a++", "bad", "latin", "punct"),  # (a+)+, not possessive
    every("nested-star-plus", "a*+"),  # (a*)+ matches the empty string
    ok("letter-class", r"\p{L}+", *(PRINTED - {"digits", "emoji"})),
    every("crlf-flag", "(?R)"),  # the CRLF flag, not a recursion
    # ... and refuses these.
    refused("end-of-text-Z", r"\Z", ESCAPE),
    refused("grapheme-X", r"\X", ESCAPE),
    refused("keep-out-K", r"\K", ESCAPE),
    refused("match-start-G", r"\G", ESCAPE),
    refused("horizontal-space-h", r"\h", ESCAPE),
    refused("comment-group", "(?#c)", "unrecognized flag"),
    refused("named-char", r"\N{DIGIT ONE}", ESCAPE),
    refused("no-lower-bound", "a{,3}", "repetition quantifier expects a valid decimal"),
    refused("quote-QE", r"\Qa.b\E", ESCAPE),
    # Unicode classes.
    ok("greek-script", r"\p{Greek}", "greek_upper", "greek_lower"),
    ok("greek-run", r"\p{Greek}+", "greek_upper", "greek_lower"),
    ok("han-script", r"\p{Han}", "cjk"),
    ok("katakana-script", r"\p{Katakana}", "cjk"),
    ok("word-whole-line", r"^\w+$", "bad", "rhythm", "greek_upper", "cjk"),
    ok("ascii-word-whole-line", r"^(?-u:\w)+$", "bad", "rhythm"),
    ok("three-digits", r"\d{3}", "digits"),
    ok("ascii-digits", "[0-9]+", "ascii", "digits"),
    ok("number-class", r"\pN", "ascii", "digits"),
    ok("emoji-presentation", r"\p{Emoji_Presentation}", "emoji"),
    ok("posix-alpha", "[[:alpha:]]", "ascii", "bad", "rhythm", "latin", "latin_upper", "punct"),
    ok(
        "non-ascii",
        r"[^\x00-\x7F]",
        *("latin", "latin_upper", "greek_upper", "greek_lower", "digits", "cjk", "emoji"),
    ),
    refused("unknown-property", r"\p{Foo}", "Unicode property not found"),
    # Case: (?i) is Unicode simple case folding.
    ok("caseless-eszett", "(?i)straße", "latin"),  # ß never folds to SS
    ok("caseless-sigma", "(?i)ΣΑΣ", "greek_upper", "greek_lower"),  # Σ, σ and ς alike
    ok("caseless-e-acute", "(?i)café", "latin", "latin_upper"),
    ok("match-case-false-eszett", "straße", "latin", match_case=False),
    ok("match-case-false-sigma", "ΣΑΣ", "greek_upper", "greek_lower", match_case=False),
    ok("match-case-false-ascii", "HELLO", "ascii", match_case=False),
    ok("match-case-true", "HELLO"),
    # Flags, anchors, word edges.
    ok("verbose-comment", "(?x) b a+ d  # the one bad line", "bad"),
    every("dot-all", "(?s).", "blank"),
    every("dot", ".", "blank"),
    ok("multi-line-caret", "(?m)^H", "ascii"),
    every("dollar", "$"),
    ok("empty-line", "^$", "blank"),
    ok("line-end", "e$", "latin"),
    ok("word-edges-non-ascii", r"\bcafé\b", "latin"),
    ok("no-edge-inside-word", r"\bnaïv\b"),
    ok("word-start-end", r"\<café\>", "latin"),
    ok("ascii-word-edge", r"(?-u:\b)caf", "latin"),
    # What a linear-time engine has not.
    refused("look-ahead", "a(?=b)", "look-around"),
    refused("look-behind", "(?<!a)b", "look-around"),
    refused("backreference", r"(a)\1", "backreferences are not supported"),
    refused("named-backreference", "(?P<x>a)(?P=x)", "unrecognized flag"),
    refused("atomic-group", "(?>ab)", "unrecognized flag"),
    # Classes with set operations.
    ok("class-intersection", "^[a-z&&[^aeiou]]+$", "rhythm"),
    ok("class-difference", r"[\p{Greek}--[ΣσςΑα]]", "greek_lower"),
    # Alternation and groups.
    every("empty-alternative", "a|"),
    every("empty-alternation", "|"),
    ok("python-named-group", "(?P<n>ll)", "ascii"),
    ok("angle-named-group", "(?<n>ωμ)", "greek_lower"),
    refused("duplicate-group-name", "(?<n>a)(?<n>b)", "duplicate capture group name"),
    # Escapes of code points.
    ok("hex-braces", r"\x{263a}", "emoji"),
    ok("u-escape", r"\u263a", "emoji"),
    ok("big-u-escape", r"\U0001F600", "emoji"),
    refused("not-a-scalar", r"\x{110000}", "not a Unicode scalar value"),
    ok("escaped-dot", r"a\.b\*c", "punct"),
    # Repetition.
    ok("exactly-two", "a{2}", "bad"),
    ok("two-or-more", "a{2,}", "bad"),
    ok("exactly-four", "a{4}"),
    ok("lazy-plus", "a+?", "bad", "latin", "punct"),
    refused("repeat-of-nothing", "*a", "repetition operator missing expression"),
    # Malformed, and too big once compiled.
    refused("unclosed-group", "(", "unclosed group"),
    refused("unclosed-class", "[]", "unclosed character class"),
    refused("reversed-range", "[z-a]", "invalid character class range"),
    refused("size-limit", r"\w{1000}", "exceeds size limit"),
]
IDS = [case.id for case in CASES]


def crate(pattern: str) -> SchemaValidator | str:
    """pydantic-core's regex crate, asked directly: the compiled pattern, or its error."""
    schema = core_schema.str_schema(pattern=pattern, regex_engine="rust-regex")
    try:
        return SchemaValidator(schema)
    except SchemaError as exc:
        return str(exc).split("SchemaError: ", 1)[1]


def crate_text(pattern: str) -> str:
    refusal = crate(pattern)
    assert isinstance(refusal, str), pattern
    return refusal


def as_written(case: Case) -> str:
    return case.pattern if case.match_case else f"(?i){case.pattern}"


def test_the_table_has_at_least_40_patterns_with_unique_ids() -> None:
    assert len(CASES) >= 40 and len(set(IDS)) == len(IDS)
    assert all(case.lines <= EVERY for case in CASES)
    assert all(case.accepted or (case.error and not case.lines) for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_table_says_what_the_crate_says(case: Case) -> None:
    compiled = crate(as_written(case))
    if not case.accepted:
        assert isinstance(compiled, str) and case.error in compiled, compiled
        return
    assert isinstance(compiled, SchemaValidator), compiled
    assert {name for name, line in LINES.items() if compiled.isinstance_python(line)} == case.lines


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_profiles_reading_says_what_the_table_says(case: Case) -> None:
    if not case.accepted:
        with pytest.raises(InvalidArgument) as refusal:
            regex_crate.line_test(case.pattern, True, match_case=case.match_case)
        assert crate_text(case.pattern) in str(refusal.value)
        assert "`pattern`" in str(refusal.value) and refusal.value.kind == "invalid_input"
        return
    test = regex_crate.line_test(case.pattern, True, match_case=case.match_case)
    assert {name for name, line in LINES.items() if test(line)} == case.lines


def test_a_literal_is_the_escaped_text_and_folds_case_as_the_crate_does() -> None:
    for char in string.punctuation + " ":
        assert regex_crate.line_test(char, False, match_case=False)(f"x{char}y"), char
        assert not regex_crate.line_test(char, False, match_case=False)("xy"), char
    caseless = regex_crate.line_test("STRASSE", False, match_case=False)
    assert caseless("strasse") and not caseless("straße")  # no full case folding
    assert regex_crate.line_test("ΣΑΣ", False, match_case=False)("σας")
    assert regex_crate.line_test("k", False, match_case=False)("\u212a")  # KELVIN SIGN
    assert regex_crate.line_test("a.b", False, match_case=True)("a.b")
    assert not regex_crate.line_test("a.b", False, match_case=True)("axb")
    assert not regex_crate.line_test("A", False, match_case=True)("a")
    assert regex_crate.escape(r"\.+*?()|[]{}^$#&-~<>") == r"\\\.\+\*\?\(\)\|\[\]\{\}\^\$\#\&\-\~<>"


def test_the_error_text_is_the_crates_with_nothing_before_it() -> None:
    with pytest.raises(regex_crate.RegexRefused) as refusal:
        regex_crate.compile_regex("a\n(b")
    assert str(refusal.value).startswith("regex parse error:\n")
    assert str(refusal.value).endswith("\nerror: unclosed group")
    with pytest.raises(regex_crate.RegexRefused) as caseless:  # the caret points into it
        regex_crate.compile_regex(r"\Z", match_case=False)
    assert str(caseless.value) == "regex parse error:\n    \\Z\n    ^^\nerror: " + ESCAPE


# --- through the rust profile, against a real pane ----------------------------------------


@pytest.fixture(scope="module")
def corpus_window(shared: TmuxServer) -> str:
    """The window of a pane that printed LINES (then waits on cat), checked against tmux."""
    path = shared.tmpdir / "corpus.txt"
    path.write_text("".join(f"{text}\n" for name, text in LINES.items() if name != "blank"))
    pane = printed(shared, f"cat {path}")
    rows = shared.tmux("capture-pane", "-p", "-t", pane).split("\n")[:-1]
    assert rows[: len(PRINTED)] == [LINES[name] for name in LINES if name != "blank"]
    assert set(rows[len(PRINTED) :]) == {""}
    return shared.tmux("display-message", "-p", "-t", pane, "#{window_id}").strip()


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.anyio
async def test_search_panes_gives_the_crates_verdict_and_matches(
    shared: TmuxServer, rust_client: Client, corpus_window: str, case: Case
) -> None:
    arguments = {
        "pattern": case.pattern,
        "regex": True,
        "match_case": case.match_case,
        "window": corpus_window,
    }
    if not case.accepted:
        mark = shared.mark()
        sent = envelope(await rust_client.error("search_panes", arguments))
        assert sent["data"]["kind"] == "invalid_input", sent
        assert "`pattern`" in sent["message"] and crate_text(case.pattern) in sent["message"]
        shared.assert_nothing_sent_since(mark, case.pattern)
        return
    got = await rust_client.ok("search_panes", arguments)
    assert got["capped"] is False and got["panes_searched"] == 1, got
    assert {BY_TEXT[match["text"]] for match in got["matches"]} == case.lines


@pytest.mark.anyio
async def test_wait_for_text_ends_matched_on_a_line_only_the_crates_meaning_matches(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane = shell_window(shared, "sh")
    results: list[dict[str, Any]] = []

    async def waiting(pattern: str) -> None:
        arguments = {"pane": pane, "patterns": ["never", pattern], "regex": True, "seconds": 20}
        results.append(await rust_client.ok("wait_for_text", {**arguments, "match_case": True}))

    # Typed in ASCII (octal escapes), printed in Greek: only the output can match.
    greek = "printf '\\316\\273\\317\\214\\316\\263\\316\\277\\317\\202\\n'"
    # A line of consonants only: a class intersection, which Python's engines read otherwise.
    consonants = "printf 'rh%sthm\\n' y"
    for pattern, command, line in (
        (r"\p{Greek}+", greek, "λόγος"),
        ("^[a-z&&[^aeiou]]+$", consonants, "rhythm"),
    ):
        results.clear()
        async with anyio.create_task_group() as group:
            group.start_soon(waiting, pattern)
            await anyio.sleep(0.5)  # the wait is attached (nothing it could see is printed yet)
            shared.tmux("send-keys", "-t", pane, command, "Enter")
        matched = results[0]
        assert matched["outcome"] == "matched", matched
        assert (matched["matched_index"], matched["matched_pattern"]) == (1, pattern), matched
        assert line in matched["text"].split("\n"), matched


@pytest.mark.parametrize(
    ("arguments", "field", "pattern"),
    [
        ({"patterns": [r"\Z"]}, "patterns[0]", r"\Z"),
        ({"patterns": ["ok", "a{,3}"]}, "patterns[1]", "a{,3}"),
        ({"patterns": ["ok"], "stop": ["(?<=x)y"]}, "stop[0]", "(?<=x)y"),
    ],
)
@pytest.mark.anyio
async def test_wait_for_text_refuses_what_the_crate_refuses_before_waiting(
    shared: TmuxServer, rust_client: Client, arguments: dict[str, Any], field: str, pattern: str
) -> None:
    pane = shell_window(shared, "sh")
    mark = shared.mark()
    sent = envelope(
        await rust_client.error(
            "wait_for_text", {"pane": pane, "regex": True, "seconds": 20, **arguments}
        )
    )
    assert sent["data"]["kind"] == "invalid_input", sent
    assert f"`{field}`" in sent["message"] and crate_text(pattern) in sent["message"], sent
    shared.assert_nothing_sent_since(mark, arguments)


@pytest.mark.anyio
async def test_wait_for_text_accepts_what_the_crate_accepts_and_folds_case_as_it_does(
    shared: TmuxServer, rust_client: Client
) -> None:
    pane = shell_window(shared, "sh")
    shared.tmux("send-keys", "-t", pane, "printf 'Stra\\303\\237e baaad\\n'", "Enter")
    with anyio.fail_after(20):
        while "Straße baaad" not in shared.tmux("capture-pane", "-p", "-t", pane):
            await anyio.sleep(0.02)

    async def entry(**arguments: Any) -> dict[str, Any]:
        return await rust_client.ok("wait_for_text", {"pane": pane, "seconds": 0, **arguments})

    present = await entry(patterns=["a++d"], regex=True, match_case=True)
    assert present["outcome"] == "present_at_entry", present
    assert (await entry(patterns=["STRASSE"]))["outcome"] == "deadline"  # ß is not SS
    assert (await entry(patterns=["STRAẞE"]))["outcome"] == "present_at_entry"  # ẞ is ß
