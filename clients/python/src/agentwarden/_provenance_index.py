"""A candidate filter over the tool sources of a store: which sources may contain a segment,
without scanning every source (the cost bound of docs/provenance.md "Bounds").

Each source's normal form is cut into non-overlapping chunks of :data:`CHUNK` characters from its
start; each chunk sets, in the bucket its hash falls in, the bit of the source's slot. A segment
found in a source at offset ``o`` covers, for the ``j`` in ``0 .. CHUNK-1`` with ``o + j`` a
multiple of :data:`CHUNK`, the source's chunks at ``o + j``, ``o + j + CHUNK``, …: so the sources
whose buckets hold every chunk of the segment from ``j`` on, for some ``j``, include every source
the segment is in. Candidates are then checked exactly (``segment in norm``): the filter has no
false negatives and only costs time on false positives. Segments shorter than
:data:`MIN_INDEXED_CHARS` have no full chunk for every ``j``; the caller scans for those.

Memory: :data:`BUCKETS` integers of at most one bit per slot, and per source one 2-byte bucket
number per distinct chunk (less than one byte per normal-form character)."""

from __future__ import annotations

import re
from array import array
from typing import Dict, List

#: Characters per chunk.
CHUNK = 3
#: Shortest segment the filter answers for (a full chunk from every offset 0 .. CHUNK-1).
MIN_INDEXED_CHARS = 2 * CHUNK - 1
#: Hash buckets (a power of two).
BUCKETS = 8192
_MASK = BUCKETS - 1
_CHUNKS = re.compile("." * CHUNK, re.S)


class ChunkIndex:
    """Slots ``0 .. slots-1`` of sources and their chunk buckets. Not thread-safe."""

    def __init__(self, slots: int) -> None:
        self._buckets: List[int] = [0] * BUCKETS
        self._free: List[int] = list(range(slots - 1, -1, -1))
        self._of: Dict[int, "array[int]"] = {}  # slot -> its buckets

    def add(self, norm: str) -> int:
        """Indexes a normal form; returns its slot. Raises IndexError when every slot is taken."""
        slot = self._free.pop()
        bit = 1 << slot
        buckets = self._buckets
        mine = array("H", {hash(c) & _MASK for c in _CHUNKS.findall(norm)})
        for b in mine:
            buckets[b] |= bit
        self._of[slot] = mine
        return slot

    def remove(self, slot: int) -> None:
        """Forgets the source in ``slot`` and frees the slot."""
        keep = ~(1 << slot)
        buckets = self._buckets
        for b in self._of.pop(slot):
            buckets[b] &= keep
        self._free.append(slot)

    def candidates(self, segment: str) -> int:
        """A bit set of the slots whose sources may contain ``segment`` (at least
        :data:`MIN_INDEXED_CHARS` characters): every slot that does is in it."""
        buckets = self._buckets
        out = 0
        for j in range(CHUNK):
            mask = -1
            for c in _CHUNKS.findall(segment, j):
                mask &= buckets[hash(c) & _MASK]
                if not mask:
                    break
            out |= mask
        return out
