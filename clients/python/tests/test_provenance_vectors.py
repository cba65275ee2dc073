"""Provenance matching and the instruction detector against the contract's shared vectors
(``libs/contracts/provenance/``): the TypeScript client runs the same files, so both clients give
the same provenance for the same sources and arguments (docs/provenance.md)."""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from pathlib import Path
from typing import Any, Dict, List

import pytest

from agentwarden._instructions import instruction_detector, letter_form, load_rules
from agentwarden._provenance import match_arguments, vector_store
from agentwarden._provenance_text import (
    MAX_DEPTH,
    MAX_LEAVES,
    MAX_SEGMENT_SHORT_CHARS,
    MAX_SOURCE_CHARS,
    MAX_STRING_LEAF_CHARS,
    MAX_TOKENS_PER_LEAF,
    MIN_MATCH_CHARS,
    leaf_text,
    normalize,
    number_text,
    segments,
    source_text,
)
from agentwarden._provenance import MAX_SOURCES_PER_LEAF

pytestmark = pytest.mark.unit

PROVENANCE_DIR = Path(__file__).resolve().parents[3] / "libs" / "contracts" / "provenance"


def load(name: str) -> Dict[str, Any]:
    data: Dict[str, Any] = json.loads((PROVENANCE_DIR / name).read_text("utf-8"))
    return data


MATCHING = load("matching-vectors.json")
INSTRUCTIONS = load("instruction-vectors.json")


def test_the_constants_are_the_contracts():
    assert MATCHING["constants"] == {
        "MIN_MATCH_CHARS": MIN_MATCH_CHARS,
        "MAX_SEGMENT_SHORT_CHARS": MAX_SEGMENT_SHORT_CHARS,
        "MAX_LEAVES": MAX_LEAVES,
        "MAX_DEPTH": MAX_DEPTH,
        "MAX_STRING_LEAF_CHARS": MAX_STRING_LEAF_CHARS,
        "MAX_TOKENS_PER_LEAF": MAX_TOKENS_PER_LEAF,
        "MAX_SOURCE_CHARS": MAX_SOURCE_CHARS,
        "MAX_SOURCES_PER_LEAF": MAX_SOURCES_PER_LEAF,
    }


@pytest.mark.parametrize("case", MATCHING["normalize"], ids=lambda c: repr(c["input"]))
def test_normal_form(case: Dict[str, Any]):
    assert normalize(case["input"]) == case["expected"]


@pytest.mark.parametrize("case", MATCHING["leafText"], ids=lambda c: repr(c["input"]))
def test_leaf_text(case: Dict[str, Any]):
    assert leaf_text(case["input"]) == case["expected"]


@pytest.mark.parametrize("case", MATCHING["cases"], ids=lambda c: c["name"])
def test_matching_case(case: Dict[str, Any]):
    assert match_arguments([vector_store(case["sources"])], case["arguments"]) == case["expected"]


@pytest.mark.parametrize("case", INSTRUCTIONS["cases"], ids=lambda c: c["name"])
def test_instruction_case(case: Dict[str, Any]):
    finding = instruction_detector()(case["text"])
    assert finding.instructions is case["instructions"]
    assert list(finding.rules) == case["rules"]


@pytest.mark.parametrize("case", INSTRUCTIONS["cases"], ids=lambda c: c["name"])
def test_every_rule_that_matches_a_vector_passes_its_prefilter(case: Dict[str, Any]):
    """An ``anyOf`` prefilter is complete: where the pattern matches, one of its words occurs."""
    rules = load("instruction-rules.json")
    scanned = unicodedata.normalize("NFKC", case["text"])[: rules["maxScanChars"]]
    letters = letter_form(scanned)
    blocked = [
        r["id"]
        for r in rules["rules"]
        if r.get("anyOf")
        and re.search(r["pattern"], scanned, re.I)
        and not any(e in letters for e in r["anyOf"])
    ]
    assert blocked == []


def test_the_letter_form_is_lowercase_letter_runs():
    assert letter_form("Hi AI-agent, DON'T\\nsend 2 files.") == " hi ai agent don t nsend files "


def test_a_malformed_prefilter_is_refused():
    def rules(any_of: List[str]) -> Dict[str, Any]:
        rule = {"id": "x", "weight": 1, "pattern": "x", "flags": "i", "anyOf": any_of, "description": ""}
        return {"version": 1, "threshold": 1, "maxScanChars": 100, "rules": [rule]}

    for bad in ([], ["Ignore"], ["a.i."], ["two  spaces"]):
        with pytest.raises(ValueError):
            instruction_detector(rules(bad))
    detect = instruction_detector(
        {**rules(["ignore"]), "rules": [{**rules(["ignore"])["rules"][0], "pattern": "ign.re"}]}
    )
    assert detect("IGNORE this").rules == ("x",)
    assert detect("ignxre this").rules == ()


def test_the_shipped_rules_are_the_contracts():
    """The package ships a copy of the rules file (package data); it must equal the contract's."""
    assert load_rules() == load("instruction-rules.json")


def test_the_letters_and_digits_class_is_unicode_categories_l_and_n():
    r"""normalize keeps ``[^\W_]`` (fast, in C): the same set as the categories L* and N*."""
    keep = re.compile(r"[^\W_]")
    differ = [
        hex(cp)
        for cp in range(sys.maxunicode + 1)
        if (unicodedata.category(chr(cp))[0] in "LN") != bool(keep.match(chr(cp)))
    ]
    assert differ == []


def test_numbers_are_written_as_javascript_writes_them():
    assert number_text(0.00001) == "0.00001"  # Python's repr: 1e-05
    assert number_text(0.000123) == "0.000123"
    assert number_text(123456789012345) == "123456789012345"
    assert number_text(10**15) is None
    assert number_text(-0.0) == "0"
    assert number_text(float("nan")) is None
    assert number_text(True) is None


def test_javascript_whitespace_splits_tokens_and_other_controls_do_not():
    long_tail = " word" * 20
    # U+001F is whitespace for Python's str.split() but not for JavaScript's \s: one token.
    assert segments("ab12cd\x1fef34gh" + long_tail)[0] == "ab12cdef34gh"
    # U+FEFF is whitespace for JavaScript only: two tokens.
    assert segments("ab12cd\ufeffef34gh" + long_tail)[:2] == ["ab12cd", "ef34gh"]


def test_source_text_of_structured_values():
    value = {"from": "Jane", "n": 12.5, "ok": True, "none": None, "tags": ["a", {"b": 7}]}
    assert source_text(value) == "from\nJane\nn\n12.5\nok\nnone\ntags\na\nb\n7"
    deep: Any = "bottom"
    for _ in range(20):
        deep = [deep]
    assert source_text(deep) == ""  # containers past depth 16 add nothing
    assert len(source_text(["x" * 50_000, "y" * 50_000])) == MAX_SOURCE_CHARS


def test_a_long_leaf_is_matched_by_its_tokens_then_as_a_whole():
    body = "see https://files.example.net/x7 and mail ops@example.com, " + "filler text " * 10
    segs: List[str] = segments(body)
    assert segs[:2] == ["httpsfilesexamplenetx7", "opsexamplecom"]
    assert segs[-1] == normalize(body)
    many = " ".join(f"id-{i:04d}" for i in range(40))
    assert len(segments(many)) == MAX_TOKENS_PER_LEAF + 1
