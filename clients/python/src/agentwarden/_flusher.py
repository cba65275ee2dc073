"""Sends queued events in batches from a daemon thread, on demand, and at exit."""

from __future__ import annotations

import json
import os
import threading
import time
from typing import Any, Dict, List, Optional

from ._api import WardenApi
from ._errors import APIConnectionError, WardenError
from ._logging import Log, error_fields
from ._models import ClientStats, FlushResult
from ._queue import BoundedQueue
from ._registration import IdentitySource

#: Largest body the client builds, bytes (80 % of the service's 5 MiB limit, room for the envelope).
MAX_BATCH_BYTES = int(5 * 1024 * 1024 * 0.8)
#: How many rejected events of one batch are logged one by one.
MAX_REJECTIONS_LOGGED = 10

_encode = json.JSONEncoder(separators=(",", ":")).encode


class _Running:
    __slots__ = ("result",)

    def __init__(self) -> None:
        self.result: Optional[FlushResult] = None


def _as_warden_error(e: BaseException) -> WardenError:
    return e if isinstance(e, WardenError) else WardenError(str(e) or type(e).__name__, cause=e)


class Flusher:
    """Sends the queue in batches of at most ``max_batch_size`` events (and ~4 MB).

    One drain at a time: a ``flush()`` during a drain waits for it, then drains what is left
    (unless that drain found the service unreachable: then its result is reported at once). A
    daemon thread flushes every ``flush_interval_ms``, and early when ``max_batch_size`` events
    wait. Never raises: errors are logged and reported in the :class:`FlushResult`.
    """

    def __init__(
        self,
        queue: "BoundedQueue[Dict[str, Any]]",
        api: WardenApi,
        identity: IdentitySource,
        *,
        max_batch_size: int,
        flush_interval_ms: int,
        log: Log,
    ) -> None:
        self.queue = queue
        self._api = api
        self._identity = identity
        self._max_batch = max_batch_size
        self._interval_s = flush_interval_ms / 1000
        self._log = log
        self.totals = {"sent": 0, "dropped": 0, "failed": 0, "rejected": 0, "retries": 0}
        self._init_sync()

    def _init_sync(self) -> None:
        self._drain_lock = threading.Lock()
        self._count_lock = threading.Lock()
        self._cond = threading.Condition(threading.Lock())
        self._wake = False
        self._stopped = False
        self._thread: Optional[threading.Thread] = None
        self._thread_pid = 0
        self._unreported_drops = 0
        self._last_failed = False
        #: The drain running now (its result is set when it ends).
        self._running: Optional[_Running] = None

    # -- the agent's side ----------------------------------------------------------------------

    def enqueue(self, event: Dict[str, Any]) -> None:
        """Queues an event; counts and logs it when the queue is full. Wakes the worker when
        ``max_batch_size`` events wait."""
        if self._thread is None and not self._stopped:
            self.start()
        if not self.queue.push(event):
            with self._count_lock:
                self.totals["dropped"] += 1
                self._unreported_drops += 1
                dropped = self.totals["dropped"]
            if dropped == 1 or dropped % 1000 == 0:
                self._log.warning(
                    "warden queue full, dropping new events",
                    dropped=dropped,
                    queued=self.queue.size,
                    type=event.get("type"),
                )
            return
        if self.queue.waiting >= self._max_batch and not self._wake and not self._last_failed:
            with self._cond:
                self._wake = True
                self._cond.notify()

    def flush(self, deadline: Optional[float] = None) -> FlushResult:
        """Sends what is queued and reports what this flush sent and lost: a drain running when
        it was called counts too (it waits for it, then drains the rest). Never raises."""
        running = self._running
        with self._drain_lock:
            first = running.result if running is not None else None
            if first is not None and first.error is not None and first.error.retryable:
                # That drain found the service unreachable: report it rather than wait through the retries again.
                return FlushResult(**{**first.__dict__, "queued": self.queue.size})
            own = self._drain(deadline)
            return first.merge(own) if first is not None else own

    def count_retry(self) -> None:
        """Counts one HTTP retry (any request: events, registration, guard, approvals)."""
        with self._count_lock:
            self.totals["retries"] += 1

    def stats(self) -> ClientStats:
        return ClientStats(queued=self.queue.size, **self.totals)

    # -- the worker thread ----------------------------------------------------------------------

    def start(self) -> None:
        """Starts the daemon thread (idempotent; again in a forked child)."""
        with self._cond:
            if self._stopped:
                return
            if self._thread is not None and self._thread_pid == os.getpid():
                return
            t = threading.Thread(target=self._run, name="agentwarden-flusher", daemon=True)
            self._thread, self._thread_pid = t, os.getpid()
        try:
            t.start()
        except RuntimeError:  # interpreter shutting down: flushes still happen on demand
            self._thread = None

    def stop(self, timeout: Optional[float] = None) -> None:
        """Stops the periodic flush (the thread ends after its current drain)."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        t = self._thread
        if t is not None and t is not threading.current_thread() and t.is_alive():
            t.join(timeout)

    def after_fork_in_child(self) -> None:
        """In a forked child: events queued before the fork belong to the parent (which sends
        them); the child starts empty, with new locks and, on its first event, its own thread."""
        stopped = self._stopped
        self.queue.reset()
        self._init_sync()
        self._stopped = stopped

    def _run(self) -> None:
        try:
            self._loop()
        finally:
            self._api.transport.close()  # this thread's keep-alive connection

    def _loop(self) -> None:
        next_at = time.monotonic() + self._interval_s
        while True:
            with self._cond:
                while not self._stopped and not self._wake:
                    remaining = next_at - time.monotonic()
                    if remaining <= 0:
                        break
                    self._cond.wait(remaining)
                if self._stopped:
                    return
                self._wake = False
            now = time.monotonic()
            if now >= next_at:
                next_at = now + self._interval_s
            if self.queue.waiting > 0 and self._drain_lock.acquire(blocking=False):
                try:
                    self._drain(None)
                except Exception as e:  # pragma: no cover - _drain never raises
                    self._log.error("warden flush thread error", **error_fields(e))
                finally:
                    self._drain_lock.release()

    # -- one drain ----------------------------------------------------------------------------

    def _drain(self, deadline: Optional[float]) -> FlushResult:
        running = self._running = _Running()
        result = FlushResult()
        try:
            while self.queue.waiting > 0:
                if deadline is not None and time.monotonic() >= deadline:
                    result.error = APIConnectionError("flush deadline passed, events kept", timed_out=True)
                    break
                try:
                    ids = self._identity.ensure(deadline)
                except Exception as e:
                    result.error = _as_warden_error(e)
                    if not result.error.retryable:
                        self._give_up(self.queue.take(self.queue.waiting), result, "registration failed")
                    break
                batch = self.queue.take(self._max_batch)
                parts: List[str] = []
                size = 20
                for i, event in enumerate(batch):
                    event["agentId"] = ids.agent_id
                    event["agentVersionId"] = ids.agent_version_id
                    text = _encode(event)
                    if parts and size + len(text) + 1 > MAX_BATCH_BYTES:
                        self.queue.put_back(batch[i:])
                        batch = batch[:i]
                        break
                    parts.append(text)
                    size += len(text) + 1
                body = ('{"events":[' + ",".join(parts) + "]}").encode()
                try:
                    res = self._api.send_events(body, len(batch), deadline)
                except Exception as e:
                    err = _as_warden_error(e)
                    result.error = err
                    if err.retryable:
                        self.queue.put_back(batch)
                        self._log.warning(
                            "warden flush failed, events kept for the next flush",
                            queued=self.queue.size,
                            **error_fields(err),
                        )
                        break
                    self._give_up(batch, result, "events refused")
                    continue
                self.queue.settle(len(batch))
                result.sent += res.accepted
                result.rejected += len(res.rejected)
                self.totals["sent"] += res.accepted
                self.totals["rejected"] += len(res.rejected)
                for r in res.rejected[:MAX_REJECTIONS_LOGGED]:
                    kind = batch[r.index].get("type") if 0 <= r.index < len(batch) else None
                    self._log.warning(
                        "warden event rejected",
                        index=r.index,
                        eventId=r.id,
                        type=kind,
                        code=r.code,
                        reason=r.message,
                    )
        except Exception as e:  # pragma: no cover - defensive
            result.error = _as_warden_error(e)
            self._log.error("warden flush crashed", **error_fields(e))
        with self._count_lock:
            result.dropped = self._unreported_drops
            self._unreported_drops = 0
        result.queued = self.queue.size
        self._last_failed = result.error is not None and result.error.retryable
        running.result = result
        self._running = None
        return result

    def _give_up(self, batch: List[Dict[str, Any]], result: FlushResult, why: str) -> None:
        self.queue.settle(len(batch))
        result.failed += len(batch)
        self.totals["failed"] += len(batch)
        self._log.error(f"warden {why}, events lost", lost=len(batch), **error_fields(result.error))
