"""Text forms of provenance matching (docs/provenance.md "Normal form", "Argument leaves"): the
normal form, the text of a source, the leaves of an arguments object and the segments of a leaf.

Pure functions; the shared vectors ``libs/contracts/provenance/matching-vectors.json`` hold them to
the TypeScript client's behaviour. Where Python and JavaScript differ (``\\s``, ``trim``, how a
float is written) the JavaScript reading is reproduced here.
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal
from typing import Any, Iterator, List, Mapping, Optional, Tuple, Union

#: Leaves and source texts whose normal form is shorter are not reported (docs/provenance.md).
MIN_MATCH_CHARS = 3
#: A leaf whose normal form has at most this many characters is one segment.
MAX_SEGMENT_SHORT_CHARS = 64
#: Leaves described per call; more set ``truncated``.
MAX_LEAVES = 64
#: Deepest nesting of an arguments object walked (the root object is depth 0).
MAX_DEPTH = 8
#: Characters of a string leaf read.
MAX_STRING_LEAF_CHARS = 4096
#: Identifier-like tokens taken from one long leaf (the whole leaf is one more segment).
MAX_TOKENS_PER_LEAF = 16
#: Characters of a source's text kept.
MAX_SOURCE_CHARS = 65_536
#: Deepest nesting of a source value read (the root value is depth 0).
MAX_SOURCE_DEPTH = 16
#: Shortest normal form of a token of a long leaf.
MIN_TOKEN_CHARS = 6

#: JavaScript's ``\s`` (and what ``String.prototype.trim`` strips): Python's ``str.split()`` and
#: ``str.strip()`` differ on U+001C–U+001F, U+0085 and U+FEFF.
JS_WHITESPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_SPACE_RUN = re.compile("[" + re.escape(JS_WHITESPACE) + "]+")
#: Characters stripped from both ends of a token of a long leaf.
TOKEN_STRIP = "<>()[]{}\"'`,;:.!?"
#: A string leaf written as a plain decimal number (ASCII digits, as JavaScript's ``\d``).
_DECIMAL = re.compile(r"[+-]?[0-9]{1,15}(?:\.[0-9]{1,15})?")
#: Everything but letters and digits. For ``str`` patterns ``\w`` is ``str.isalnum()`` plus ``_``,
#: which is exactly the Unicode categories ``L*`` and ``N*`` (checked over every code point by
#: tests/test_provenance_vectors.py).
_NOT_ALNUM = re.compile(r"[\W_]+")
#: The same for ASCII text, as a ``str.translate`` table (ten times faster than the pattern).
_ASCII_DROP = {c: None for c in range(128) if not chr(c).isalnum()}
_TOKEN_MARK = re.compile(r"[0-9@/]")

Scalar = Union[str, int, float]


def normalize(s: str) -> str:
    """The normal form: NFKC, lower case, then only letters and digits (categories ``L*``, ``N*``).

    ``"US13 3000\\n0000 1212"`` → ``"us13300000001212"``; ``"Mark.Black@Example.COM"`` →
    ``"markblackexamplecom"``.
    """
    folded = unicodedata.normalize("NFKC", s).lower()
    if folded.isascii():
        return folded.translate(_ASCII_DROP)
    return _NOT_ALNUM.sub("", folded)


def number_text(x: Union[int, float]) -> Optional[str]:
    """The shortest decimal form of a number as JavaScript writes it (``100``, ``12.5``, ``-3``,
    ``0.00001``), or None when ``|x| >= 1e15`` or ``0 < |x| < 1e-6`` (their written forms differ
    between languages), for NaN and infinities, and for booleans."""
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return str(x) if -(10**15) < x < 10**15 else None
    if x != x or not (x == 0 or 1e-6 <= abs(x) < 1e15):
        return None
    if x.is_integer():
        return str(int(x))
    # repr is the shortest round-trip form, as JavaScript's; it switches to an exponent below 1e-4
    # where JavaScript does only below 1e-6.
    return format(Decimal(repr(x)), "f")


def leaf_text(value: Scalar) -> Optional[str]:
    """The text a leaf is matched by: a number's :func:`number_text`; a string that is a plain
    decimal number once trimmed (``"1250.50"``, ``" 42 "``) rewritten the same way; any other
    string's first :data:`MAX_STRING_LEAF_CHARS` characters. None when a number has no text."""
    if isinstance(value, str):
        trimmed = value.strip(JS_WHITESPACE)
        if _DECIMAL.fullmatch(trimmed):
            return number_text(float(trimmed))
        return value[:MAX_STRING_LEAF_CHARS]
    return number_text(value)


def source_text(value: Any, limit: int = MAX_SOURCE_CHARS) -> str:
    """The text of a source, cut to its first ``limit`` characters: a string itself; a number its
    :func:`number_text`; a mapping its keys and values, a list (tuple, set) its items, in document
    order, joined by ``\\n`` (containers deeper than :data:`MAX_SOURCE_DEPTH` are skipped);
    booleans and None add nothing; any other object its ``str()``. Stops reading once ``limit``
    characters are collected, so a huge tool result costs no more than a small one."""
    if isinstance(value, str):
        return value[:limit]
    parts: List[str] = []
    size = 0
    for part in _source_parts(value, 0):
        if not part:
            continue
        parts.append(part)
        size += len(part) + 1
        if size > limit:
            break
    return "\n".join(parts)[:limit]


def _source_parts(value: Any, depth: int) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, (int, float)):
        yield number_text(value) or ""
    elif isinstance(value, Mapping):
        if depth >= MAX_SOURCE_DEPTH:
            return
        for k, v in list(value.items()):
            yield str(k)
            yield from _source_parts(v, depth + 1)
    elif isinstance(value, (list, tuple, set, frozenset)):
        if depth >= MAX_SOURCE_DEPTH:
            return
        for v in list(value):
            yield from _source_parts(v, depth + 1)
    else:
        try:
            yield str(value)
        except Exception:
            return


def leaves(arguments: Any) -> Tuple[List[Tuple[str, Scalar]], bool]:
    """The leaves of an arguments object, depth-first in key (insertion) order: ``(path, value)``
    with the dotted path (``recipient``, ``recipients.0``, ``event.participants.1``) for every
    string and every number that has a :func:`number_text`; booleans and None are not leaves.
    Containers deeper than :data:`MAX_DEPTH` are skipped. At most :data:`MAX_LEAVES`; the second
    item is True when there were more."""
    out: List[Tuple[str, Scalar]] = []
    truncated = [False]

    def walk(v: Any, path: List[str], depth: int) -> None:
        if isinstance(v, bool) or v is None:
            return
        if isinstance(v, (str, int, float)):
            if not isinstance(v, str) and number_text(v) is None:
                return
            if len(out) >= MAX_LEAVES:
                truncated[0] = True
                return
            out.append((".".join(path), v))
            return
        if depth >= MAX_DEPTH:
            return
        if isinstance(v, Mapping):
            for k, x in v.items():
                walk(x, path + [str(k)], depth + 1)
        elif isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                walk(x, path + [str(i)], depth + 1)

    walk(arguments, [], 0)
    return out, truncated[0]


def segments(text: Optional[str]) -> List[str]:
    """The normal forms a leaf text is matched by (docs/provenance.md "Segments"): none when its
    normal form is shorter than :data:`MIN_MATCH_CHARS`; the normal form alone when it has at most
    :data:`MAX_SEGMENT_SHORT_CHARS` characters; else up to :data:`MAX_TOKENS_PER_LEAF`
    identifier-like tokens (normal form of at least :data:`MIN_TOKEN_CHARS` characters, holding a
    digit, ``@``, ``/`` or an inner ``.``), first ones first, then the whole normal form."""
    if text is None:
        return []
    whole = normalize(text)
    if len(whole) < MIN_MATCH_CHARS:
        return []
    if len(whole) <= MAX_SEGMENT_SHORT_CHARS:
        return [whole]
    out: List[str] = []
    for raw in _JS_SPACE_RUN.split(text):
        token = raw.strip(TOKEN_STRIP)
        if len(token) < MIN_TOKEN_CHARS and token.isascii():
            continue  # an ASCII token's normal form is never longer than the token
        if not (_TOKEN_MARK.search(token) or "." in token):
            continue  # checked before the (dearer) normal form: both must hold
        norm = normalize(token)
        if len(norm) >= MIN_TOKEN_CHARS:
            out.append(norm)
            if len(out) >= MAX_TOKENS_PER_LEAF:
                break
    out.append(whole)
    return out
