"""UUIDv7 identifiers (RFC 9562 §5.7) made by the client for events, sessions, runs and tool calls."""

from __future__ import annotations

import os
import re
import threading
import time

_UUID7 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", re.IGNORECASE)
_RAND_MAX = (1 << 74) - 1  # rand_a (12 bits) + rand_b (62 bits), used as one counter

_POOL_BYTES = 4096  # random bytes read from the OS at a time (one syscall per ~400 ids)

_lock = threading.Lock()
_last_ms = -1
_last_rand = 0
_pool = b""
_pool_at = 0


def _random_bytes(n: int) -> bytes:
    """``n`` bytes from ``os.urandom``, read in blocks (called under ``_lock``)."""
    global _pool, _pool_at
    if _pool_at + n > len(_pool):
        _pool, _pool_at = os.urandom(_POOL_BYTES), 0
    out = _pool[_pool_at : _pool_at + n]
    _pool_at += n
    return out


def _fresh_rand() -> int:
    # 73 random bits: the top bit of the 74-bit field stays 0, leaving room to count up within a ms.
    return int.from_bytes(_random_bytes(10), "big") >> 7


def uuid7() -> str:
    """A new UUIDv7: 48-bit Unix time in ms, version 7, variant 0b10, 74 random bits.

    Monotonic within the process (RFC 9562 §6.2, method 2): an id made in the same millisecond as
    the previous one (or after the clock went back) continues from it, increased by a random step.
    """
    global _last_ms, _last_rand
    with _lock:
        ms = time.time_ns() // 1_000_000
        if ms > _last_ms:
            rand = _fresh_rand()
        else:
            ms = _last_ms
            rand = _last_rand + 1 + _random_bytes(1)[0]
            if rand > _RAND_MAX:  # counter spent: borrow the next millisecond
                ms += 1
                rand = _fresh_rand()
        _last_ms, _last_rand = ms, rand
    value = (
        ((ms & 0xFFFF_FFFF_FFFF) << 80)
        | (0x7 << 76)
        | ((rand >> 62) << 64)
        | (0b10 << 62)
        | (rand & 0x3FFF_FFFF_FFFF_FFFF)
    )
    h = "%032x" % value
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def is_uuid7(value: object) -> bool:
    """True when ``value`` is a UUIDv7 string (either case)."""
    return isinstance(value, str) and _UUID7.match(value) is not None


def _reset_after_fork() -> None:
    # New lock; and never reuse the parent's random bytes (the two processes would make equal ids).
    global _lock, _pool, _pool_at
    _lock = threading.Lock()
    _pool, _pool_at = b"", 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)
