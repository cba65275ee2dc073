"""Capped exponential backoff with full jitter, and ``Retry-After`` parsing."""

from __future__ import annotations

import random as _random
import re
import time
from email.utils import parsedate_to_datetime
from typing import Callable, Optional

#: Longest ``Retry-After`` the client honours, ms; longer asks are cut to this.
RETRY_AFTER_CAP_MS = 60_000

_SECONDS = re.compile(r"^\d+(\.\d+)?$")


def backoff_delay_ms(attempt: int, base_ms: int, max_ms: int, random: Callable[[], float] = _random.random) -> int:
    """Delay before retry number ``attempt`` (0 for the first retry), ms: "full jitter", a uniform
    draw in ``[0, min(max_ms, base_ms * 2**attempt)]``."""
    ceiling = min(max_ms, base_ms * (2 ** min(attempt, 62)))
    return int(random() * ceiling)


def parse_retry_after_ms(value: Optional[str], now: Optional[float] = None) -> Optional[int]:
    """Parses ``Retry-After`` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date. Returns ms (>= 0,
    capped at :data:`RETRY_AFTER_CAP_MS`), or None when absent or unreadable."""
    if value is None or value.strip() == "":
        return None
    v = value.strip()
    if _SECONDS.match(v):
        ms = float(v) * 1000
    else:
        try:
            at = parsedate_to_datetime(v)
        except (TypeError, ValueError, IndexError):
            return None
        if at is None:  # pragma: no cover - older Pythons return None
            return None
        ms = (at.timestamp() - (time.time() if now is None else now)) * 1000
    return int(min(max(0.0, round(ms)), RETRY_AFTER_CAP_MS))
