"""Detector of instructions aimed at the model in tool output (docs/provenance.md "Instructions
aimed at the model"): the port of ``libs/contracts/src/instruction-detector.ts``.

The detector is data: ``instruction_rules.json`` (shipped with the package; a copy of
``libs/contracts/provenance/instruction-rules.json``) holds weighted regular expressions in the
subset JavaScript (flag ``u``) and Python ``re`` read alike. A text carries instructions when the
weights of the distinct rules that match in its first ``maxScanChars`` characters (after NFKC) sum
to at least ``threshold``.
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
    """The shipped rules file (``{version, threshold, maxScanChars, rules: [{id, weight, pattern,
    flags, description}]}``). Raises ``OSError`` / ``ValueError`` when it is missing or not JSON."""
    text = _files(__package__).joinpath(RULES_RESOURCE).read_text(encoding="utf-8")
    rules: Mapping[str, Any] = json.loads(text)
    return rules


def instruction_detector(rules: Optional[Mapping[str, Any]] = None) -> Callable[[str], InstructionFinding]:
    """Builds a detector from ``rules`` (default: the shipped file). The detector is pure and
    bounded: it reads at most ``maxScanChars`` characters of a text, once per rule.

    Raises:
        re.error: a pattern does not compile.
        ValueError: a rule's ``flags`` holds anything but ``i``.
    """
    spec = rules if rules is not None else load_rules()
    threshold = float(spec["threshold"])
    max_chars = int(spec["maxScanChars"])
    compiled: List[Tuple[str, float, "re.Pattern[str]"]] = []
    for rule in spec["rules"]:
        flags = str(rule.get("flags", ""))
        if set(flags) - {"i"}:
            raise ValueError(f"instruction rule {rule['id']}: unsupported flags {flags!r} (only 'i')")
        compiled.append((str(rule["id"]), float(rule["weight"]), re.compile(rule["pattern"], re.I if flags else 0)))

    def detect(text: str) -> InstructionFinding:
        scanned = unicodedata.normalize("NFKC", text)[:max_chars]
        score = 0.0
        matched: List[str] = []
        for rule_id, weight, pattern in compiled:
            if pattern.search(scanned) is None:
                continue
            score += weight
            matched.append(rule_id)
        return InstructionFinding(instructions=score >= threshold, score=score, rules=tuple(matched))

    return detect
