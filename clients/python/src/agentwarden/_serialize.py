"""JSON-safe copies of arbitrary values for event payloads (tool arguments and results, custom data)."""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import uuid
from collections import deque
from collections.abc import KeysView, Mapping, ValuesView
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any, Dict, List, Optional, Set

#: Largest JSON form of one tool result or argument object kept in an event, characters.
MAX_VALUE_CHARS = 64 * 1024
#: Deepest nesting kept; deeper values become ``"[Depth]"``.
MAX_DEPTH = 20

_SCALARS = (str, int, bool, type(None))
_SEQUENCES = (list, tuple, set, frozenset, deque, KeysView, ValuesView)
_dumps = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode


def to_json_safe(value: Any, max_chars: int = MAX_VALUE_CHARS) -> Any:
    """A JSON-safe copy of ``value`` (a snapshot: later changes to ``value`` do not show).

    Mappings → objects (keys made strings), sequences and sets → arrays, ``datetime``/``date`` →
    ISO strings, ``Decimal``/``UUID`` → strings, enums → their value, exceptions → ``{name,
    message}``, dataclasses and namedtuples → objects, ``bytes`` → ``"[bytes N]"``, functions →
    ``"[Function name]"``, NaN/∞ → strings, cycles → ``"[Circular]"``, anything else → its
    ``repr``. When the JSON form is longer than ``max_chars`` the value is replaced by
    ``{"truncated": True, "originalChars": n, "preview": <first max_chars/4 chars>}``. Never raises.
    """
    try:
        t = type(value)
        if t is str:
            if len(value) * 6 + 2 <= max_chars:  # even fully escaped it fits
                return value
        elif t is int or t is bool or value is None:
            return value
        bound = [0]
        try:
            safe: Any = _plain(value, bound, 0)
        except _NotPlain:
            safe = _normalise(value, set(), 0)
            bound[0] = max_chars + 1  # unknown: measure it
        if bound[0] <= max_chars:  # the JSON form cannot be longer than the bound
            return safe
        text = _dumps(safe)
        if len(text) > max_chars:
            return {"truncated": True, "originalChars": len(text), "preview": text[: max_chars // 4]}
        return safe
    except Exception:
        return "[Unserialisable]"


class _NotPlain(Exception):
    pass


def _plain(v: Any, bound: List[int], depth: int) -> Any:
    """A copy of plain JSON data (dict with str keys, list, tuple, str, int, bool, None, finite
    float) and, in ``bound``, an upper bound of its JSON length. Raises _NotPlain otherwise."""
    t = type(v)
    if t is str:
        bound[0] += len(v) * 6 + 3
        return v
    if t is int:
        bound[0] += v.bit_length() // 3 + 3
        return v
    if t is bool or v is None:
        bound[0] += 6
        return v
    if t is float:
        if v != v or v in (math.inf, -math.inf):
            raise _NotPlain
        bound[0] += 26
        return v
    if depth >= MAX_DEPTH:
        raise _NotPlain
    if t is dict:
        out = {}
        bound[0] += 2
        for k, x in v.items():
            if type(k) is not str:
                raise _NotPlain
            bound[0] += len(k) * 6 + 4
            out[k] = _plain(x, bound, depth + 1)
        return out
    if t is list or t is tuple:
        bound[0] += 2
        return [_plain(x, bound, depth + 1) for x in v]
    raise _NotPlain


def to_json_object(value: Any, max_chars: int = MAX_VALUE_CHARS) -> Optional[Dict[str, Any]]:
    """:func:`to_json_safe` for an object field (e.g. ``arguments``): a non-object becomes ``{"value": v}``."""
    if value is None:
        return None
    safe = to_json_safe(value, max_chars)
    if isinstance(safe, dict):
        return safe
    return {"value": safe}


def truncate(s: Optional[object], limit: int) -> Optional[str]:
    """``s`` as a string cut to at most ``limit`` characters (None stays None)."""
    if s is None:
        return None
    text = s if isinstance(s, str) else str(s)
    return text if len(text) <= limit else text[:limit]


def _normalise(v: Any, seen: Set[int], depth: int) -> Any:  # noqa: C901 - one dispatch over kinds
    if isinstance(v, _SCALARS):
        if isinstance(v, enum.Enum):
            return _normalise(v.value, seen, depth)
        return v
    if isinstance(v, float):
        if math.isfinite(v):
            return v
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    if isinstance(v, enum.Enum):
        return _normalise(v.value, seen, depth)
    if isinstance(v, (datetime, date, time)):
        return v.isoformat()
    if isinstance(v, (Decimal, uuid.UUID)):
        return str(v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return f"[bytes {len(v)}]"
    if depth >= MAX_DEPTH:
        return "[Depth]"
    key = id(v)
    if key in seen:
        return "[Circular]"
    seen.add(key)
    try:
        if isinstance(v, BaseException):
            return {"name": type(v).__name__, "message": str(v)}
        if isinstance(v, Mapping):
            out: Dict[str, Any] = {}
            for k, x in v.items():
                out[k if isinstance(k, str) else str(k)] = _normalise(x, seen, depth + 1)
            return out
        if isinstance(v, tuple) and hasattr(v, "_asdict"):  # namedtuple
            return _normalise(v._asdict(), seen, depth)
        if isinstance(v, _SEQUENCES):
            return [_normalise(x, seen, depth + 1) for x in v]
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            return _normalise({f.name: getattr(v, f.name) for f in dataclasses.fields(v)}, seen, depth)
        dump = getattr(v, "model_dump", None)  # pydantic v2 models
        if callable(dump) and not isinstance(v, type):
            return _normalise(dump(), seen, depth)
        if callable(v):
            return f"[Function {getattr(v, '__qualname__', None) or getattr(v, '__name__', 'anonymous')}]"
        text = repr(v)
        return text if len(text) <= 1000 else text[:1000]
    finally:
        seen.discard(key)
