"""Makes events: ids, times, per-session sequence numbers, lazy session start."""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any, Callable, Deque, Dict, Mapping, Optional

from ._ids import is_uuid7, uuid7
from ._logging import Log, error_fields
from ._serialize import truncate

#: Ended sessions whose sequence counters are remembered.
MAX_ENDED_SESSIONS = 1000

EVENT_TYPES = (
    "agent.session.started",
    "agent.session.ended",
    "agent.run.started",
    "agent.run.completed",
    "agent.tool.started",
    "agent.tool.completed",
    "agent.tool.failed",
    "agent.action.performed",
    "agent.guardrail.evaluated",
    "agent.approval.requested",
    "agent.approval.resolved",
    "agent.message.logged",
    "agent.score.recorded",
    "agent.llm.called",
    "agent.custom",
)

Sink = Callable[[Dict[str, Any]], None]


_second = (-1, "")  # the last second formatted: (second, text), replaced as a whole


def now_iso() -> str:
    """The current UTC time as RFC 3339 with milliseconds, e.g. ``2026-11-21T15:18:04.123Z``."""
    global _second
    ms = time.time_ns() // 1_000_000
    sec = ms // 1000
    cached = _second
    if cached[0] != sec:
        cached = _second = (sec, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sec)))
    return f"{cached[1]}.{ms % 1000:03d}Z"


class EventRecorder:
    """Assigns the id (UUIDv7, once, so retries reuse it), the time, and the per-session
    ``sequence`` (1, 2, 3, … for every event made in a session, sent or not, so the service sees
    gaps); starts a session with ``agent.session.started`` before its first other event; hands each
    event to the sink in sequence order. Thread-safe; never raises."""

    def __init__(self, sink: Sink, log: Log, session_id: Optional[str] = None) -> None:
        self._sink = sink
        self._log = log
        self._lock = threading.Lock()
        self._current = session_id or uuid7()
        self._sequences: Dict[str, int] = {}
        self._ended: Deque[str] = deque()
        #: Sessions of the parent process (after a fork): their events go to this process's session.
        self._inherited: Dict[str, str] = {}

    @property
    def session_id(self) -> str:
        """Id of the current session (events outside a run go there)."""
        return self._current

    def start_session(
        self,
        session_id: Optional[str] = None,
        input_summary: Optional[str] = None,
        attributes: Optional[Mapping[str, Any]] = None,
    ) -> str:
        """Makes a session current and emits ``agent.session.started`` unless it has started.

        Default id: the current one when its session has not started, else a new one. An id that
        is not a UUIDv7 is logged and replaced.
        """
        with self._lock:
            if session_id is not None and not is_uuid7(session_id):
                self._log.warning("warden session_id is not a UUIDv7, using a new one", sessionId=session_id)
                session_id = None
            if session_id is None:
                session_id = uuid7() if self._current in self._sequences else self._current
            self._current = session_id
            if session_id in self._sequences:
                self._log.debug("warden session already started", sessionId=session_id)
                return session_id
            data: Dict[str, Any] = {}
            if input_summary is not None:
                data["inputSummary"] = truncate(input_summary, 10_000)
            if attributes is not None:
                from ._serialize import to_json_object

                data["attributes"] = to_json_object(attributes)
            self._emit_locked("agent.session.started", data, session_id, None, None)
            return session_id

    def end_session(self, status: str = "completed", output_summary: Optional[str] = None) -> None:
        """Emits ``agent.session.ended`` for the current session (when it has started) and makes a
        new session current. Late events of the ended session continue its sequence."""
        with self._lock:
            sid = self._current
            if sid in self._sequences:
                data: Dict[str, Any] = {"status": status}
                if output_summary is not None:
                    data["outputSummary"] = truncate(output_summary, 10_000)
                self._emit_locked("agent.session.ended", data, sid, None, None)
                self._ended.append(sid)
                if len(self._ended) > MAX_ENDED_SESSIONS:
                    self._sequences.pop(self._ended.popleft(), None)
            self._current = uuid7()

    def emit(
        self,
        type: str,
        data: Dict[str, Any],
        session_id: Optional[str] = None,
        run_id: Optional[str] = None,
        parent_id: Optional[str] = None,
    ) -> str:
        """Makes an event of ``type`` and hands it to the sink; returns its id (also when the sink
        drops it). ``None`` values of ``data`` are left out."""
        try:
            with self._lock:
                return self._emit_locked(type, data, session_id, run_id, parent_id)
        except Exception as e:
            self._log.error("warden could not record event", type=type, **error_fields(e))
            return uuid7()

    def _emit_locked(
        self,
        type: str,
        data: Dict[str, Any],
        session_id: Optional[str],
        run_id: Optional[str],
        parent_id: Optional[str],
    ) -> str:
        sid = session_id or self._current
        if self._inherited:
            sid = self._inherited.get(sid, sid)
        seq = self._sequences.get(sid)
        if seq is None:
            seq = 0
            if type != "agent.session.started":
                self._sequences[sid] = 0
                self._emit_locked("agent.session.started", {}, sid, None, None)
                seq = self._sequences[sid]
        seq += 1
        self._sequences[sid] = seq
        event_id = uuid7()
        event: Dict[str, Any] = {"id": event_id, "type": type, "time": now_iso(), "sessionId": sid}
        if run_id:
            event["runId"] = run_id
        if parent_id:
            event["parentId"] = parent_id
        event["sequence"] = seq
        event["data"] = {k: v for k, v in data.items() if v is not None}
        self._sink(event)
        return event_id

    def after_fork_in_child(self) -> None:
        """In a forked child: the parent keeps numbering its sessions, so this process moves to a
        new session; events of the parent's sessions (e.g. from a run still open) go to it."""
        self._lock = threading.Lock()
        new = uuid7()
        for sid in list(self._sequences) + [self._current]:
            self._inherited[sid] = new
        for old in list(self._inherited):
            self._inherited[old] = new
        self._current = new
