"""UUIDv7 (RFC 9562 §5.7)."""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from agentwarden import is_uuid7, uuid7

pytestmark = pytest.mark.unit


def test_layout_version_variant_and_time():
    before = time.time_ns() // 1_000_000
    value = uuid7()
    after = time.time_ns() // 1_000_000
    u = uuid.UUID(value)
    assert u.version == 7 and u.variant == uuid.RFC_4122
    assert before <= u.int >> 80 <= after
    assert value == str(u) and is_uuid7(value) and is_uuid7(value.upper())


def test_monotonic_within_a_millisecond_and_unique_across_threads():
    ids = [uuid7() for _ in range(20_000)]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    out: list = []
    threads = [threading.Thread(target=lambda: out.extend(uuid7() for _ in range(2000))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(out)) == 8000


def test_is_uuid7_refuses_other_versions_and_garbage():
    assert not is_uuid7(str(uuid.uuid4()))
    assert not is_uuid7("01970f3a-0000-7000-c000-000000000000")  # wrong variant
    assert not is_uuid7("nope") and not is_uuid7(None)
