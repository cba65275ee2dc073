"""Detector of instructions aimed at the model in tool output (docs/provenance.md "Instructions
aimed at the model"): the port of ``libs/contracts/src/instruction-detector.ts``.

The detector is data: ``instruction_rules.json`` (shipped with the package; a copy of
``libs/contracts/provenance/instruction-rules.json``) holds weighted regular expressions in the
subset JavaScript (flag ``u``) and Python ``re`` read alike. A text carries instructions when the
weights of the distinct rules that match in its first ``maxScanChars`` characters (after NFKC) sum
to at least ``threshold``. A rule with ``anyOf`` (lowercase words or phrases) runs its pattern only
when one of them occurs in the text's letter form (:func:`letter_form`): a cheap prefilter, complete
by construction, so the result is the pattern's alone.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Callable, List, Mapping, Optional, Tuple

try:  # Python 3.9+: files(); the package is always importable from its own directory.
    from importlib.resources import files as _files
except ImportError:  # pragma: no cover - Python < 3.9 is not supported
    _files = None  # type: ignore[assignment]

#: Name of the rules file inside the package.
RULES_RESOURCE = "instruction_rules.json"

#: Runs of characters other than a-z, one space each in the letter form.
_NOT_LETTERS = re.compile("[^a-z]+")

#: The characters Python's ``re.IGNORECASE`` (but not JavaScript's ``iu``) matches to ``i`` even
#: after NFKC: U+0130 and U+0131. A text holding one is scanned by every rule (no prefilter), since
#: lowercasing does not make them ``i``.
_I_ALIKES = ("\u0130", "\u0131")

#: What an ``anyOf`` entry may hold: a-z and single spaces (a leading or trailing space stands for
#: a word boundary in the letter form).
_ANY_OF_ENTRY = re.compile(r" ?[a-z]+(?: [a-z]+)* ?")


@dataclass(frozen=True)
class InstructionFinding:
    """What the detector found in one text.

    Attributes:
        instructions: True when the matched weights reach the threshold (the text tells the model
            what to do).
        score: sum of the weights of the matched rules.
        rules: ids of the matched rules, in the rules file's order.
    """

    instructions: bool
    score: float
    rules: Tuple[str, ...]


def load_rules() -> Mapping[str, Any]:
    """The shipped rules file (``{version, threshold, maxScanChars, rules: [{id, weight, flags,
    anyOf?, pattern, description}]}``). Raises ``OSError`` / ``ValueError`` when it is missing or
    not JSON."""
    text = _files(__package__).joinpath(RULES_RESOURCE).read_text(encoding="utf-8")
    rules: Mapping[str, Any] = json.loads(text)
    return rules


def letter_form(scanned: str) -> str:
    """The text an ``anyOf`` prefilter reads (docs/provenance.md "Instructions aimed at the model"):
    ``scanned`` lowercased with a space at both ends, every run of characters other than ``a``-``z``
    then made one space. ``"Hi AI-agent, DON'T"`` gives ``" hi ai agent don t "``. The same as the
    TypeScript engine's ``letterForm`` for every text without U+0130 or U+0131 (which are never
    prefiltered)."""
    return _NOT_LETTERS.sub(" ", f" {scanned.lower()} ")


def instruction_detector(rules: Optional[Mapping[str, Any]] = None) -> Callable[[str], InstructionFinding]:
    """Builds a detector from ``rules`` (default: the shipped file). The detector is pure and
    bounded: it reads at most ``maxScanChars`` characters of a text, once per rule; a rule with
    ``anyOf`` runs its pattern only when one of those entries occurs in the text's
    :func:`letter_form` (the rules file guarantees every match of the pattern holds one).

    Raises:
        re.error: a pattern does not compile.
        ValueError: a rule's ``flags`` holds anything but ``i``, or its ``anyOf`` is not a
            non-empty list of lowercase words and single spaces.
    """
    spec = rules if rules is not None else load_rules()
    threshold = float(spec["threshold"])
    max_chars = int(spec["maxScanChars"])
    compiled: List[Tuple[str, float, "re.Pattern[str]", Optional[Tuple[str, ...]]]] = []
    for rule in spec["rules"]:
        flags = str(rule.get("flags", ""))
        if set(flags) - {"i"}:
            raise ValueError(f"instruction rule {rule['id']}: unsupported flags {flags!r} (only 'i')")
        any_of = rule.get("anyOf")
        if any_of is not None and (
            not isinstance(any_of, list)
            or not any_of
            or not all(isinstance(e, str) and _ANY_OF_ENTRY.fullmatch(e) for e in any_of)
        ):
            raise ValueError(f"instruction rule {rule['id']}: anyOf must be a non-empty list of a-z words")
        pattern = re.compile(rule["pattern"], re.I if flags else 0)
        compiled.append((str(rule["id"]), float(rule["weight"]), pattern, tuple(any_of) if any_of else None))

    def detect(text: str) -> InstructionFinding:
        scanned = unicodedata.normalize("NFKC", text)[:max_chars]
        letters = None if any(c in scanned for c in _I_ALIKES) else letter_form(scanned)
        score = 0.0
        matched: List[str] = []
        for rule_id, weight, pattern, any_of in compiled:
            if letters is not None and any_of is not None:
                for entry in any_of:
                    if entry in letters:
                        break
                else:
                    continue
            if pattern.search(scanned) is None:
                continue
            score += weight
            matched.append(rule_id)
        return InstructionFinding(instructions=score >= threshold, score=score, rules=tuple(matched))

    return detect
