"""A small, real HTTP test double of the Agent Warden service (the gateway endpoints the client
uses), on ``http.server`` in a thread. It records every request, checks each body against the
contract's JSON Schemas (``libs/contracts/vectors``), answers per the contract, and can be told to
fail or to decide in a given way."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Pattern, Union
from urllib.parse import parse_qs, urlsplit

from vectors import request_validator

API_KEY = "test-key"


def iso(dt: datetime) -> str:
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


@dataclass
class Recorded:
    method: str
    path: str
    query: Dict[str, List[str]]
    headers: Dict[str, str]
    body: Any
    at: float
    #: The client's TCP port (the same for requests on one kept-alive connection).
    client_port: int = 0


@dataclass
class Fault:
    path: Union[str, Pattern[str]]
    status: int
    times: int
    headers: Dict[str, str] = field(default_factory=dict)
    method: Optional[str] = None
    #: Close the connection without an answer instead of answering ``status``.
    drop: bool = False
    #: Answer this JSON body (instead of a problem body).
    body: Any = None


@dataclass
class ApprovalPlan:
    """How approvals created by ``require_approval`` evolve: to ``status`` after ``after_s``."""

    status: str = "approved"
    after_s: float = 0.05
    expires_in_s: float = 300
    on_timeout: str = "deny"


def _matches(path: str, pattern: Union[str, Pattern[str]]) -> bool:
    return pattern.search(path) is not None if isinstance(pattern, re.Pattern) else path == pattern


class FakeWarden:
    def __init__(self) -> None:
        self.requests: List[Recorded] = []
        self.events: List[Dict[str, Any]] = []
        self.faults: List[Fault] = []
        self.contract_violations: List[str] = []
        self.agent_id = "0190a5f1-0000-4000-8000-000000000001"
        self.agent_version_id = "0190a5f1-0000-4000-8000-000000000002"
        self.identify_delay_s = 0.0
        self.evaluate_delay_s = 0.0
        self.events_delay_s = 0.0
        self.decide: Callable[[Dict[str, Any]], str] = lambda body: "allow"
        self.approval_plan = ApprovalPlan()
        self.reject_ids: set = set()
        self.max_concurrent_event_posts = 0
        self._concurrent = 0
        self._approvals: Dict[str, Dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._server: Optional[ThreadingHTTPServer] = None
        self._thread: Optional[threading.Thread] = None
        self.port = 0

    # -- control ---------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, port: int = 0) -> "FakeWarden":
        fake = self

        class Handler(_Handler):
            warden = fake

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def fail(
        self,
        path: Union[str, Pattern[str]],
        status: int,
        times: int = 1,
        headers: Optional[Dict[str, str]] = None,
        method: Optional[str] = None,
        drop: bool = False,
    ) -> None:
        """Makes the next ``times`` requests matching ``path`` answer ``status`` (problem+json)."""
        with self._lock:
            self.faults.append(Fault(path, status, times, headers or {}, method, drop))

    def answer(
        self,
        path: Union[str, Pattern[str]],
        status: int,
        body: Any,
        times: int = 1,
        headers: Optional[Dict[str, str]] = None,
        method: Optional[str] = None,
    ) -> None:
        """Makes the next ``times`` requests matching ``path`` answer ``status`` with ``body`` (a
        contract vector, say)."""
        with self._lock:
            self.faults.append(Fault(path, status, times, headers or {}, method, body=body))

    def requests_to(self, path: Union[str, Pattern[str]], method: Optional[str] = None) -> List[Recorded]:
        with self._lock:
            return [r for r in self.requests if _matches(r.path, path) and (method is None or r.method == method)]

    def events_of_type(self, type_: str) -> List[Dict[str, Any]]:
        with self._lock:
            return [e for e in self.events if e["type"] == type_]

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return True
            time.sleep(0.01)
        return predicate()

    # -- handling --------------------------------------------------------------------------------

    def handle(self, h: "_Handler") -> None:
        parts = urlsplit(h.path)
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        rec = Recorded(
            h.command,
            parts.path,
            parse_qs(parts.query),
            dict(h.headers.items()),
            body,
            time.time(),
            h.client_address[1],
        )
        with self._lock:
            self.requests.append(rec)
            fault = next(
                (
                    f
                    for f in self.faults
                    if f.times > 0 and _matches(rec.path, f.path) and (f.method is None or f.method == rec.method)
                ),
                None,
            )
            if fault is not None:
                fault.times -= 1
        if fault is not None:
            if fault.drop:
                h.close_connection = True
                h.connection.close()
                return
            if fault.body is not None:
                content_type = "application/problem+json" if fault.status >= 400 else "application/json"
                return h.json(fault.status, fault.body, content_type, fault.headers)
            return h.problem(fault.status, fault.headers)
        if h.headers.get("Authorization") != f"Bearer {API_KEY}":
            return h.problem(401)

        schema = None
        if rec.method == "POST" and rec.path == "/v1/agents/identify":
            schema = "identify-request"
        elif rec.method == "POST" and rec.path == "/v1/guardrails/evaluate":
            schema = "guard-request"
        elif rec.method == "PUT":
            schema = "capabilities-request"
        elif rec.method == "POST" and rec.path == "/v1/events":
            schema = "event-batch-request"
        if schema is not None:
            errors = sorted(request_validator(schema).iter_errors(body), key=lambda e: list(e.absolute_path))
            if errors:
                with self._lock:
                    self.contract_violations.append(
                        f"{rec.method} {rec.path}: "
                        + "; ".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in errors[:5])
                    )
                return h.problem(400)

        if rec.method == "POST" and rec.path == "/v1/agents/identify":
            if self.identify_delay_s:
                time.sleep(self.identify_delay_s)
            return h.json(
                200,
                {
                    "agentId": self.agent_id,
                    "agentVersionId": self.agent_version_id,
                    "projectId": "prj_test",
                    "version": (body.get("version") or {}).get("version", "hash-1"),
                    "created": True,
                },
            )
        caps = re.match(r"^/v1/agents/([^/]+)/versions/([^/]+)/capabilities$", rec.path)
        if rec.method == "PUT" and caps:
            return h.json(200, {"agentVersionId": caps.group(2), "capabilities": body["capabilities"]})
        if rec.method == "POST" and rec.path == "/v1/events":
            return self._ingest(h, body)
        if rec.method == "POST" and rec.path == "/v1/guardrails/evaluate":
            return self._evaluate(h, body)
        apr = re.match(r"^/v1/approvals/([^/]+)$", rec.path)
        if rec.method == "GET" and apr:
            wait = int((rec.query.get("waitSeconds") or ["0"])[0])
            return self._approval(h, apr.group(1), wait)
        return h.problem(404)

    def _ingest(self, h: "_Handler", body: Dict[str, Any]) -> None:
        with self._lock:
            self._concurrent += 1
            self.max_concurrent_event_posts = max(self.max_concurrent_event_posts, self._concurrent)
        time.sleep(self.events_delay_s or 0.002)
        with self._lock:
            self._concurrent -= 1
            rejected = []
            for i, e in enumerate(body["events"]):
                if e.get("id") in self.reject_ids:
                    rejected.append({"index": i, "id": e["id"], "code": "invalid_event", "message": "rejected by test"})
                else:
                    self.events.append(e)
        return h.json(202, {"accepted": len(body["events"]) - len(rejected), "rejected": rejected})

    def _evaluate(self, h: "_Handler", body: Dict[str, Any]) -> None:
        if self.evaluate_delay_s:
            time.sleep(self.evaluate_delay_s)
        policy = self.decide(body)
        mode = body.get("mode", "monitor")
        effective = policy if mode == "enforce" else ("allow" if policy == "allow" else "warn")
        now = datetime.now(timezone.utc)
        decision: Dict[str, Any] = {
            "evaluationId": str(uuid.uuid4()),
            "mode": mode,
            "policyDecision": policy,
            "effectiveDecision": effective,
            "matchedGuardrails": (
                []
                if policy == "allow"
                else [
                    {
                        "policyId": "pol_1",
                        "name": f"{policy} rule",
                        "version": 1,
                        "decision": policy,
                        "reason": "test",
                    }
                ]
            ),
            "wouldBlock": policy == "block",
            "wouldRequireApproval": policy == "require_approval",
            "evaluatedAt": iso(now),
        }
        if mode == "enforce" and policy == "require_approval" and not body.get("dryRun"):
            plan = self.approval_plan
            approval_id = str(uuid.uuid4())
            expires = now + timedelta(seconds=plan.expires_in_s)
            with self._lock:
                self._approvals[approval_id] = {
                    "plan": plan,
                    "created": time.time(),
                    "view": {
                        "id": approval_id,
                        "status": "pending",
                        "evaluationId": decision["evaluationId"],
                        "agentId": body["agentId"],
                        "sessionId": body.get("sessionId"),
                        "toolName": (body.get("tool") or {}).get("name"),
                        "createdAt": iso(now),
                        "expiresAt": iso(expires),
                        "decidedAt": None,
                        "decidedBy": None,
                        "comment": None,
                        "onTimeout": plan.on_timeout,
                    },
                }
            decision["approval"] = {"id": approval_id, "status": "pending", "expiresAt": iso(expires)}
        return h.json(200, decision)

    def _approval(self, h: "_Handler", approval_id: str, wait_s: int) -> None:
        deadline = time.time() + wait_s
        while True:
            with self._lock:
                a = self._approvals.get(approval_id)
                if a is None:
                    return h.problem(404)
                plan: ApprovalPlan = a["plan"]
                view = a["view"]
                if (
                    view["status"] == "pending"
                    and plan.status != "pending"
                    and time.time() >= a["created"] + plan.after_s
                ):
                    view["status"] = plan.status
                    view["decidedAt"] = iso(datetime.now(timezone.utc))
                    view["decidedBy"] = "system:timeout" if plan.status == "expired" else "alice@example.com"
                    view["comment"] = "decided by the test"
                if view["status"] != "pending" or time.time() >= deadline:
                    return h.json(200, dict(view))
            time.sleep(0.01)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    warden: FakeWarden

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in two writes: without this, Nagle + delayed ACK add ~40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _any(self) -> None:
        try:
            self.warden.handle(self)
        except (BrokenPipeError, ConnectionResetError):
            pass

    do_GET = do_POST = do_PUT = _any

    def json(
        self, status: int, value: Any, content_type: str = "application/json", headers: Optional[Dict[str, str]] = None
    ) -> None:
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def problem(self, status: int, headers: Optional[Dict[str, str]] = None) -> None:
        codes = {
            400: "validation_failed",
            401: "unauthenticated",
            403: "forbidden",
            404: "not_found",
            429: "rate_limited",
        }
        code = codes.get(status, "event_log_unavailable" if status == 503 else "internal")
        self.json(
            status,
            {
                "type": f"https://agentwarden.dev/problems/{code}",
                "title": "Error",
                "status": status,
                "detail": f"test fault {status}",
                "code": code,
                **({"errors": [{"path": "events.0", "message": "bad"}]} if status == 400 else {}),
            },
            "application/problem+json",
            headers,
        )
