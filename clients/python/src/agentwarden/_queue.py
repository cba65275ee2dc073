"""A bounded, thread-safe FIFO of events waiting to be sent."""

from __future__ import annotations

import threading
from collections import deque
from typing import Deque, Generic, List, Sequence, TypeVar

T = TypeVar("T")


class BoundedQueue(Generic[T]):
    """Items taken for sending stay counted against the capacity until settled (sent or lost) or
    put back at the front (to be retried), so the bound holds for everything held in memory. When
    full, the NEWEST item is refused: the agent is never blocked."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._items: Deque[T] = deque()
        self._taken = 0
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        """Items held: waiting plus taken and not yet settled."""
        return len(self._items) + self._taken

    @property
    def waiting(self) -> int:
        """Items waiting to be taken."""
        return len(self._items)

    def push(self, item: T) -> bool:
        """Appends ``item``; False (and nothing kept) when the queue is full."""
        with self._lock:
            if len(self._items) + self._taken >= self.capacity:
                return False
            self._items.append(item)
            return True

    def take(self, max_items: int) -> List[T]:
        """Takes up to ``max_items`` from the front; they stay counted until settled or put back."""
        with self._lock:
            n = min(max_items, len(self._items))
            batch = [self._items.popleft() for _ in range(n)]
            self._taken += n
            return batch

    def settle(self, count: int) -> None:
        """Releases ``count`` taken items that were sent or given up."""
        with self._lock:
            self._taken = max(0, self._taken - count)

    def put_back(self, batch: Sequence[T]) -> None:
        """Returns taken items to the front, in their order, for the next flush."""
        with self._lock:
            self._taken = max(0, self._taken - len(batch))
            self._items.extendleft(reversed(batch))

    def reset(self) -> None:
        """Empties the queue and makes a new lock (after ``os.fork()``)."""
        self._lock = threading.Lock()
        self._items = deque()
        self._taken = 0
