"""A contract's pattern means one thing to both engines of a call, or codegen refuses it.

The schema check (jsonschema-rs, ECMA-262) and the generated model (pydantic, Rust's regex
crate) both read every pattern as written. ``codegen.patterns`` admits only constructs the
two read alike; here every admitted pattern of a table gets one verdict from both on texts
chosen where ECMA-262 and the crate part ways, and each refused construct is named.
"""

from __future__ import annotations

import re
from typing import Annotated, NamedTuple

import pytest
from pydantic import Field, TypeAdapter, ValidationError

from codegen.model_rules import patterns
from codegen.patterns import PatternDiffers, check_pattern
from scripts.lab.client import ROOT
from tmux_contract_mcp.validation import Schema

# Where ECMA-262 and the regex crate tend to differ: line ends, non-ASCII digits and
# letters, a character beyond U+FFFF, white space beyond ASCII.
TEXTS = (
    "a",
    "aa",
    "aaa",
    "A",
    "a1",
    "x_y",
    "0",
    "9",
    "-",
    "ab",
    "abab",
    "aab",
    "",
    " ",
    "\t",
    "a\n",
    "\na",
    "a\r",
    "a\u2028",
    "\u0663",
    "é",
    "ß",
    "Σ",
    "\U0001f600",
    "a\U0001f600",
    "\u00a0",
    "%1",
    "$1",
    "@2",
    "{",
    "a{2}",
    "x.y",
    "xzy",
    "a/b",
    "ab-cd",
)


class Admitted(NamedTuple):
    test_id: str
    pattern: str


ADMITTED = [
    Admitted("contract-names", "^[A-Za-z][A-Za-z0-9_]*$"),
    Admitted("anchored-digits-class", "^[0-9]+$"),
    Admitted("ids", "^[%@$][0-9]+$"),
    Admitted("alternation", "^(?:ab)+$|^c$"),
    Admitted("bounded-repeat", "^a{1,2}?b$"),
    Admitted("at-least", "^a{2,}$"),
    Admitted("exact", "^a{2}$"),
    Admitted("escaped-dot", "^x\\.y$"),
    Admitted("escaped-brace", "^a\\{2\\}$"),
    Admitted("hex-escape", "^\\x41$"),
    Admitted("unicode-escape", "^\\u00e9$"),
    Admitted("unanchored", "b"),
    Admitted("class-with-dash", "^[a-z-]+$"),
    Admitted("escaped-slash", "^a\\/b$"),
    Admitted("tab", "^\\t$"),
    Admitted("lazy", "^a+?$"),
    Admitted("empty-branch", "^(?:a|)$"),
    Admitted("negated-class-repeated", "^[^/\\u0000]+$"),
    Admitted("negated-class-any-run", "^a[^b]*$"),
]


def schema_says(pattern: str, text: str) -> bool:
    return Schema({"type": "string", "pattern": pattern}).accepts(text)


def model_says(pattern: str, text: str) -> bool:
    adapter: TypeAdapter[str] = TypeAdapter(Annotated[str, Field(pattern=pattern)])
    try:
        adapter.validate_python(text, strict=True)
    except ValidationError:
        return False
    return True


@pytest.mark.parametrize("case", ADMITTED, ids=[c.test_id for c in ADMITTED])
def test_an_admitted_pattern_gets_one_verdict_from_both_engines(case: Admitted) -> None:
    check_pattern(case.pattern)
    verdicts = {text: schema_says(case.pattern, text) for text in TEXTS}
    assert verdicts == {text: model_says(case.pattern, text) for text in TEXTS}
    assert True in verdicts.values() and False in verdicts.values()


class Refused(NamedTuple):
    test_id: str
    pattern: str
    named: str  # what the refusal names


REFUSED = [
    Refused("digit-class", "^\\d+$", "`\\d`"),
    Refused("word-class", "^\\w$", "`\\w`"),
    Refused("space-class", "\\s", "`\\s`"),
    Refused("word-boundary", "\\bx", "`\\b`"),
    Refused("not-digit", "\\D", "`\\D`"),
    Refused("unicode-property", "\\p{L}", "`\\p`"),
    Refused("dot", "^a.$", "`.`"),
    Refused("look-ahead", "(?=a)", "`(?=`"),
    Refused("look-behind", "(?<=a)b", "`(?<`"),
    Refused("inline-flag", "(?i)a", "`(?i`"),
    Refused("named-group", "(?P<n>a)", "`(?P`"),
    Refused("back-reference", "(a)\\1", "`\\1`"),
    Refused("named-back-reference", "\\k<n>", "`\\k`"),
    Refused("possessive", "a++", "possessive"),
    Refused("possessive-star", "a*+", "possessive"),
    Refused("open-repeat", "a{,3}", "`{` that is not a quantifier"),
    Refused("lone-brace", "a{", "`{` that is not a quantifier"),
    Refused("negated-class", "^[^a]$", "`[^`"),
    Refused("negated-class-counted", "^[^a]{2}$", "`[^`"),
    Refused("negated-class-lazy", "^[^a]+?$", "`[^`"),
    Refused("empty-class", "[]a]", "`[]`"),
    Refused("nested-class", "[a[b]]", "`[` inside a class"),
    Refused("set-operation", "[a-z&&b]", "`&&`"),
    Refused("python-end", "^a\\Z", "`\\Z`"),
    Refused("python-start", "\\Aa", "`\\A`"),
    Refused("astral", "^\U0001f600$", "U+1F600"),
    Refused("surrogate-escape", "\\ud800", "surrogate"),
    Refused("unclosed-class", "[ab", "an unclosed class"),
]


@pytest.mark.parametrize("case", REFUSED, ids=[c.test_id for c in REFUSED])
def test_a_construct_the_engines_read_differently_is_refused_by_name(case: Refused) -> None:
    with pytest.raises(PatternDiffers, match=re.escape(case.named)):
        check_pattern(case.pattern)


def every_contract_pattern() -> list[str]:
    import json

    found: set[str] = set()
    for path in sorted((ROOT / "contracts").rglob("*.json")):
        if "upstream" not in path.parts:
            found.update(patterns(json.loads(path.read_text(encoding="utf-8"))))
    return sorted(found)


def test_every_pattern_the_contracts_hold_passes_the_check() -> None:
    found = every_contract_pattern()
    assert found, "no contract holds a pattern: the check proves nothing"
    for pattern in found:
        check_pattern(pattern)
