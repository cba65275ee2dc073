"""Wiring of the client: the live runtime (sends to the service) and the disabled one (sends
nothing), with the process hooks (``atexit`` flush, re-creation after ``os.fork()``)."""

from __future__ import annotations

import atexit
import os
import threading
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, Optional

from ._api import WardenApi
from ._context import Scope, new_scope_var
from ._flusher import Flusher
from ._guard import Guard
from ._logging import Log, error_fields
from ._models import Approval, ClientStats, FlushResult, GuardDecision
from ._options import Options
from ._provenance import Provenance, ProvenanceTracker
from ._queue import BoundedQueue
from ._recorder import EventRecorder, now_iso
from ._registration import Identity, IdentitySource, Registration, StaticIdentity
from ._transport import Transport

#: Longest time the ``atexit`` hook spends sending what is left, seconds.
ATEXIT_TIMEOUT_S = 10.0
#: Threads running blocking calls (guard checks, flushes) for ``async`` code.
IO_THREADS = 32

#: Synthetic ids of the disabled client.
DISABLED_IDENTITY = Identity(agent_id="disabled-agent", agent_version_id="disabled-version")


class Runtime:
    """Everything the public operations need (internal)."""

    enabled: bool = True

    def __init__(self, options: Options) -> None:
        self.options = options
        self.log = Log(options.logger)
        self.scope_var = new_scope_var()
        self._executor: Optional[ThreadPoolExecutor] = None
        self._executor_pid = 0
        self._executor_lock = threading.Lock()
        self.recorder: EventRecorder
        self.guard: Guard
        self.identity: IdentitySource
        #: Where the arguments of guarded calls came from (None: option ``provenance=False``, or
        #: the disabled client).
        self.provenance: Optional[ProvenanceTracker] = None

    def current_scope(self) -> Scope:
        """The scope of the code running now: the current run, else the current session."""
        s = self.scope_var.get()
        return s if s is not None else Scope(self.recorder.session_id)

    def executor(self) -> ThreadPoolExecutor:
        """Threads for the blocking calls of ``async`` code (made on first use, again after a fork)."""
        with self._executor_lock:
            if self._executor is None or self._executor_pid != os.getpid():
                self._executor = ThreadPoolExecutor(max_workers=IO_THREADS, thread_name_prefix="agentwarden-io")
                self._executor_pid = os.getpid()
            return self._executor

    # -- provenance (docs/provenance.md); never raises into the agent ---------------------------------

    def note_trusted(self, scope: Scope, value: Any) -> None:
        """Records ``value`` as trusted text of ``scope`` (the user's request, a user message)."""
        tracker = self.provenance
        if tracker is None or value is None:
            return
        try:
            tracker.add_trusted(scope.session_id, scope.run_id, value)
        except Exception as e:  # pragma: no cover - defensive
            self.log.error("warden could not record a trusted source", **error_fields(e))

    def note_tool(self, scope: Scope, value: Any, tool_name: Optional[str], tool_call_id: Optional[str]) -> None:
        """Records ``value`` as untrusted output of ``tool_name`` (call ``tool_call_id``) in ``scope``."""
        tracker = self.provenance
        if tracker is None or value is None:
            return
        try:
            tracker.add_tool(scope.session_id, scope.run_id, value, tool_name, tool_call_id)
        except Exception as e:  # pragma: no cover - defensive
            self.log.error("warden could not record a tool source", **error_fields(e))

    def provenance_of(self, scope: Scope, arguments: Any) -> Optional[Provenance]:
        """The wire ``provenance`` of ``arguments`` (JSON-safe) for a call in ``scope``; None when
        provenance is off or could not be computed (logged)."""
        tracker = self.provenance
        if tracker is None:
            return None
        try:
            return tracker.provenance(scope.session_id, scope.run_id, arguments)
        except Exception as e:  # pragma: no cover - defensive
            self.log.error("warden could not compute provenance", **error_fields(e))
            return None

    def flush(self, timeout: Optional[float] = None) -> FlushResult:  # pragma: no cover - interface
        raise NotImplementedError

    def shutdown(self, timeout: Optional[float] = None) -> FlushResult:  # pragma: no cover - interface
        raise NotImplementedError

    def stats(self) -> ClientStats:  # pragma: no cover - interface
        raise NotImplementedError

    def _close_executor(self) -> None:
        with self._executor_lock:
            ex, self._executor = self._executor, None
        if ex is not None and self._executor_pid == os.getpid():
            ex.shutdown(wait=False)


class LiveRuntime(Runtime):
    """Transport → API → registration (started now, on a thread) → queue and flusher (daemon
    thread) → recorder → guard; flushed at exit and re-created in a forked child."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        self.transport = Transport(
            base_url=options.base_url,
            api_key=options.api_key,
            max_retries=options.max_retries,
            retry_base_delay_ms=options.retry_base_delay_ms,
            retry_max_delay_ms=options.retry_max_delay_ms,
            request_timeout_ms=options.request_timeout_ms,
            log=self.log,
            on_retry=lambda: self.flusher.count_retry(),
        )
        self.api = WardenApi(self.transport, self.log)
        self.registration = Registration(
            self.api,
            agent=options.agent,
            version=options.version,
            capabilities=options.capabilities,
            log=self.log,
        )
        self.identity = self.registration
        self.flusher = Flusher(
            BoundedQueue(options.max_queue_size),
            self.api,
            self.registration,
            max_batch_size=options.max_batch_size,
            flush_interval_ms=options.flush_interval_ms,
            log=self.log,
        )
        self.recorder = EventRecorder(self.flusher.enqueue, self.log, options.session_id)
        self.guard = Guard(
            evaluate=self.api.evaluate,
            get_approval=self.api.get_approval,
            identity=self.registration,
            recorder=self.recorder,
            log=self.log,
            mode=options.mode,
            fail_mode=options.fail_mode,
            approval_timeout_ms=options.approval_timeout_ms,
        )
        if options.provenance:
            try:
                self.provenance = ProvenanceTracker()
            except Exception as e:  # the shipped rules file is unreadable: run without provenance
                self.log.error("warden provenance disabled: instruction rules unreadable", **error_fields(e))
        self._shut_down = False
        self._shutdown_lock = threading.Lock()
        self.registration.start()
        self.flusher.start()
        _track(self)

    def flush(self, timeout: Optional[float] = None) -> FlushResult:
        """Sends what is queued; never raises."""
        try:
            return self.flusher.flush(None if timeout is None else time.monotonic() + timeout)
        except Exception as e:  # pragma: no cover - flush never raises
            self.log.error("warden flush failed", **error_fields(e))
            return FlushResult(queued=self.flusher.queue.size)

    def shutdown(self, timeout: Optional[float] = None) -> FlushResult:
        """Stops the periodic flush and sends the rest; later calls send what came since. Never raises."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._shutdown_lock:
            first = not self._shut_down
            self._shut_down = True
        try:
            if first:
                self.flusher.stop(timeout)
                try:
                    self.registration.ready(None if deadline is None else max(0.0, deadline - time.monotonic()))
                except Exception:
                    pass  # reported by the flush below
            result = self.flusher.flush(deadline)
        except Exception as e:  # pragma: no cover - defensive
            self.log.error("warden shutdown failed", **error_fields(e))
            result = FlushResult(queued=self.flusher.queue.size)
        if first:
            self._close_executor()
            self.transport.close_all()
            _untrack(self)
        return result

    def stats(self) -> ClientStats:
        return self.flusher.stats()

    def after_fork_in_child(self) -> None:
        self.transport.reset()
        self._executor_lock = threading.Lock()
        self._executor = None
        self._shutdown_lock = threading.Lock()
        self.flusher.after_fork_in_child()
        self.registration.after_fork_in_child()
        self.recorder.after_fork_in_child()
        if self.provenance is not None:
            self.provenance.after_fork_in_child()


class NoopRuntime(Runtime):
    """The disabled client (``enabled=False``): the same operations, synthetic ids, every guard
    answers ``allow`` (so every block runs), nothing is sent or kept: no request, no thread, no hook."""

    enabled = False

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        self.identity = StaticIdentity(DISABLED_IDENTITY)
        self.recorder = EventRecorder(lambda _event: None, self.log, options.session_id)
        mode = options.mode

        def evaluate(_body: Dict[str, Any]) -> GuardDecision:
            return GuardDecision(
                evaluation_id="disabled",
                mode=mode,
                policy_decision="allow",
                effective_decision="allow",
                matched_guardrails=[],
                would_block=False,
                would_require_approval=False,
                evaluated_at=now_iso(),
            )

        def get_approval(_id: str, _wait: float) -> Approval:  # pragma: no cover - never called
            raise RuntimeError("the disabled client never waits for approvals")

        self.guard = Guard(
            evaluate=evaluate,
            get_approval=get_approval,
            identity=self.identity,
            recorder=self.recorder,
            log=self.log,
            mode=mode,
            fail_mode=options.fail_mode,
        )

    def flush(self, timeout: Optional[float] = None) -> FlushResult:
        return FlushResult()

    def shutdown(self, timeout: Optional[float] = None) -> FlushResult:
        return FlushResult()

    def stats(self) -> ClientStats:
        return ClientStats()


# -- process hooks: one atexit hook and one fork hook for every live client ------------------------

_live: "weakref.WeakSet[LiveRuntime]" = weakref.WeakSet()
_hooks_lock = threading.Lock()
_hooks_installed = False


def _track(rt: LiveRuntime) -> None:
    global _hooks_installed
    with _hooks_lock:
        _live.add(rt)
        if not _hooks_installed:
            atexit.register(_at_exit)
            if hasattr(os, "register_at_fork"):
                os.register_at_fork(after_in_child=_after_fork_in_child)
            _hooks_installed = True


def _untrack(rt: LiveRuntime) -> None:
    with _hooks_lock:
        _live.discard(rt)


def _at_exit() -> None:
    """Sends what every live client still holds (at most :data:`ATEXIT_TIMEOUT_S` in all)."""
    deadline = time.monotonic() + ATEXIT_TIMEOUT_S
    for rt in list(_live):
        try:
            rt.shutdown(max(0.1, deadline - time.monotonic()))
        except Exception:  # pragma: no cover - shutdown never raises
            pass


def _after_fork_in_child() -> None:
    global _hooks_lock
    _hooks_lock = threading.Lock()
    for rt in list(_live):
        try:
            rt.after_fork_in_child()
        except Exception as e:  # pragma: no cover - defensive
            rt.log.error("warden could not reset after fork", **error_fields(e))
