"""Typed views of the service's answers (the contract's response bodies, ``libs/contracts``), with
snake_case fields. ``from_dict`` checks an answer and raises :class:`ApiError` when it breaks the
contract."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Dict, List, Mapping, Optional, cast

from ._errors import ApiError, WardenError

__all__ = [
    "DECISIONS",
    "MODES",
    "RISK_LEVELS",
    "APPROVAL_STATUSES",
    "MatchedGuardrail",
    "ApprovalRef",
    "GuardDecision",
    "Approval",
    "IdentifyResponse",
    "RejectedEvent",
    "EventBatchResponse",
    "ValidationIssue",
    "Problem",
    "FlushResult",
    "ClientStats",
    "GuardCheckResult",
    "parse_timestamp",
]

DECISIONS = ("allow", "warn", "block", "require_approval")
MODES = ("monitor", "enforce")
RISK_LEVELS = ("low", "medium", "high", "critical")
APPROVAL_STATUSES = ("pending", "approved", "denied", "expired", "cancelled")
REJECTION_CODES = ("invalid_event", "unknown_event_type", "event_too_large", "forbidden_agent")

_TS = re.compile(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$", re.IGNORECASE)


def parse_timestamp(value: str) -> datetime:
    """Parses an RFC 3339 timestamp with offset (``2026-11-21T15:18:04.123Z``) into an aware datetime."""
    m = _TS.match(value)
    if not m:
        raise ValueError(f"not an RFC 3339 timestamp: {value!r}")
    y, mo, d, h, mi, s, frac, off = m.groups()
    micro = int((frac or "0")[:6].ljust(6, "0"))
    if off.upper() == "Z":
        tz = timezone.utc
    else:
        sign = 1 if off[0] == "+" else -1
        tz = timezone(sign * timedelta(hours=int(off[1:3]), minutes=int(off[4:6])))
    return datetime(int(y), int(mo), int(d), int(h), int(mi), int(s), micro, tzinfo=tz)


class _Reader:
    """Reads fields of one answer, raising ApiError naming the first field that breaks the contract."""

    def __init__(self, value: Any, what: str) -> None:
        if not isinstance(value, Mapping):
            raise ApiError(f"{what}: answer does not match the contract: expected an object")
        self.d = value
        self.what = what

    def fail(self, key: str, expected: str) -> WardenError:
        return ApiError(
            f"{self.what}: answer does not match the contract: {key}: expected {expected}, " f"got {self.d.get(key)!r}"
        )

    def text(self, key: str) -> str:
        v = self.d.get(key)
        if not isinstance(v, str):
            raise self.fail(key, "a string")
        return v

    def opt_text(self, key: str, nullable: bool = False) -> Optional[str]:
        v = self.d.get(key)
        if v is None and (nullable or key not in self.d):
            return None
        if not isinstance(v, str):
            raise self.fail(key, "a string" + (" or null" if nullable else ""))
        return v

    def integer(self, key: str, minimum: int = 0) -> int:
        v = self.d.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or v < minimum:
            raise self.fail(key, f"an integer >= {minimum}")
        return v

    def boolean(self, key: str) -> bool:
        v = self.d.get(key)
        if not isinstance(v, bool):
            raise self.fail(key, "a boolean")
        return v

    def enum(self, key: str, allowed: "tuple[str, ...]") -> str:
        v = self.d.get(key)
        if v not in allowed:
            raise self.fail(key, "one of " + ", ".join(allowed))
        return cast(str, v)

    def timestamp(self, key: str, nullable: bool = False) -> Optional[str]:
        v = self.opt_text(key, nullable=True) if nullable else self.text(key)
        if v is not None and not _TS.match(v):
            raise self.fail(key, "an RFC 3339 timestamp")
        return v

    def array(self, key: str) -> List[Any]:
        v = self.d.get(key)
        if not isinstance(v, list):
            raise self.fail(key, "an array")
        return v


@dataclass(frozen=True)
class MatchedGuardrail:
    """A guardrail that matched an evaluation."""

    policy_id: str
    name: str
    version: int
    decision: str
    reason: str

    @classmethod
    def from_dict(cls, value: Any, what: str = "matchedGuardrails") -> "MatchedGuardrail":
        r = _Reader(value, what)
        return cls(
            policy_id=r.text("policyId"),
            name=r.text("name"),
            version=r.integer("version", 1),
            decision=r.enum("decision", DECISIONS),
            reason=r.text("reason"),
        )


@dataclass(frozen=True)
class ApprovalRef:
    """Short form of an approval, as embedded in a decision."""

    id: str
    status: str
    expires_at: str

    @classmethod
    def from_dict(cls, value: Any, what: str = "approval") -> "ApprovalRef":
        r = _Reader(value, what)
        return cls(
            id=r.text("id"), status=r.enum("status", APPROVAL_STATUSES), expires_at=r.timestamp("expiresAt") or ""
        )


@dataclass(frozen=True)
class GuardDecision:
    """Answer of ``POST /v1/guardrails/evaluate``.

    ``policy_decision`` is the most severe matched decision (or the project default);
    ``effective_decision`` is the decision after the mode (enforce: the same; monitor: ``allow``
    for ``allow`` and ``warn`` for everything else).
    """

    evaluation_id: str
    mode: str
    policy_decision: str
    effective_decision: str
    matched_guardrails: List[MatchedGuardrail]
    would_block: bool
    would_require_approval: bool
    evaluated_at: str
    approval: Optional[ApprovalRef] = None

    @classmethod
    def from_dict(cls, value: Any, what: str = "evaluate") -> "GuardDecision":
        r = _Reader(value, what)
        approval = r.d.get("approval")
        return cls(
            evaluation_id=r.text("evaluationId"),
            mode=r.enum("mode", MODES),
            policy_decision=r.enum("policyDecision", DECISIONS),
            effective_decision=r.enum("effectiveDecision", DECISIONS),
            matched_guardrails=[MatchedGuardrail.from_dict(g, what) for g in r.array("matchedGuardrails")],
            would_block=r.boolean("wouldBlock"),
            would_require_approval=r.boolean("wouldRequireApproval"),
            evaluated_at=r.timestamp("evaluatedAt") or "",
            approval=None if approval is None else ApprovalRef.from_dict(approval, what),
        )


@dataclass(frozen=True)
class Approval:
    """An approval as returned by ``GET /v1/approvals/{id}``."""

    id: str
    status: str
    evaluation_id: str
    agent_id: str
    session_id: Optional[str]
    tool_name: Optional[str]
    created_at: str
    expires_at: str
    decided_at: Optional[str]
    decided_by: Optional[str]
    comment: Optional[str]
    on_timeout: str

    @classmethod
    def from_dict(cls, value: Any, what: str = "approval") -> "Approval":
        r = _Reader(value, what)
        return cls(
            id=r.text("id"),
            status=r.enum("status", APPROVAL_STATUSES),
            evaluation_id=r.text("evaluationId"),
            agent_id=r.text("agentId"),
            session_id=r.opt_text("sessionId", nullable=True),
            tool_name=r.opt_text("toolName", nullable=True),
            created_at=r.timestamp("createdAt") or "",
            expires_at=r.timestamp("expiresAt") or "",
            decided_at=r.timestamp("decidedAt", nullable=True),
            decided_by=r.opt_text("decidedBy", nullable=True),
            comment=r.opt_text("comment", nullable=True),
            on_timeout=r.enum("onTimeout", ("deny", "approve")),
        )


@dataclass(frozen=True)
class IdentifyResponse:
    """Answer of ``POST /v1/agents/identify``."""

    agent_id: str
    agent_version_id: str
    project_id: str
    version: str
    created: bool

    @classmethod
    def from_dict(cls, value: Any, what: str = "identify") -> "IdentifyResponse":
        r = _Reader(value, what)
        return cls(
            agent_id=r.text("agentId"),
            agent_version_id=r.text("agentVersionId"),
            project_id=r.text("projectId"),
            version=r.text("version"),
            created=r.boolean("created"),
        )


@dataclass(frozen=True)
class ValidationIssue:
    """One validation error: a dotted ``path`` (e.g. ``events.3.data.toolName``) and a message."""

    path: str
    message: str

    @classmethod
    def from_dict(cls, value: Any, what: str = "errors") -> "ValidationIssue":
        r = _Reader(value, what)
        return cls(path=r.text("path"), message=r.text("message"))


@dataclass(frozen=True)
class RejectedEvent:
    """Why one event of a batch was not accepted."""

    index: int
    id: Optional[str]
    code: str
    message: str
    errors: List[ValidationIssue] = field(default_factory=list)

    @classmethod
    def from_dict(cls, value: Any, what: str = "rejected") -> "RejectedEvent":
        r = _Reader(value, what)
        errors = r.d.get("errors")
        return cls(
            index=r.integer("index"),
            id=r.opt_text("id", nullable=True),
            code=r.enum("code", REJECTION_CODES),
            message=r.text("message"),
            errors=[] if errors is None else [ValidationIssue.from_dict(e, what) for e in r.array("errors")],
        )


@dataclass(frozen=True)
class EventBatchResponse:
    """Answer of ``POST /v1/events`` (202): the accepted count and the rejected events."""

    accepted: int
    rejected: List[RejectedEvent]

    @classmethod
    def from_dict(cls, value: Any, what: str = "events") -> "EventBatchResponse":
        r = _Reader(value, what)
        return cls(
            accepted=r.integer("accepted"), rejected=[RejectedEvent.from_dict(x, what) for x in r.array("rejected")]
        )


@dataclass(frozen=True)
class Problem:
    """An ``application/problem+json`` body (RFC 9457) with the service's stable ``code``."""

    type: str
    title: str
    status: int
    code: str
    detail: Optional[str] = None
    instance: Optional[str] = None
    errors: List[ValidationIssue] = field(default_factory=list)

    @classmethod
    def from_dict(cls, value: Any, what: str = "problem") -> "Problem":
        r = _Reader(value, what)
        errors = r.d.get("errors")
        return cls(
            type=r.text("type"),
            title=r.text("title"),
            status=r.integer("status"),
            code=r.text("code"),
            detail=r.opt_text("detail"),
            instance=r.opt_text("instance"),
            errors=[] if errors is None else [ValidationIssue.from_dict(e, what) for e in r.array("errors")],
        )


@dataclass
class FlushResult:
    """What one ``flush()`` sent and lost.

    Attributes:
        sent: events the service accepted.
        rejected: events the service refused one by one (listed in the 202 answer; logged).
        dropped: events refused by the full queue since the previous flush (never queued).
        failed: events given up after a non-retryable error (401, 403, 400, 413).
        queued: events still held (kept for the next flush when the service was unreachable).
        error: the error that stopped or spoiled this flush (``retryable``: events were kept).
    """

    sent: int = 0
    rejected: int = 0
    dropped: int = 0
    failed: int = 0
    queued: int = 0
    error: Optional[WardenError] = None

    def merge(self, other: "FlushResult") -> "FlushResult":
        return FlushResult(
            sent=self.sent + other.sent,
            rejected=self.rejected + other.rejected,
            dropped=self.dropped + other.dropped,
            failed=self.failed + other.failed,
            queued=other.queued,
            error=other.error or self.error,
        )


@dataclass(frozen=True)
class ClientStats:
    """Totals since the client was made (``queued`` is the current queue size; ``retries`` counts
    HTTP retries of any request)."""

    queued: int = 0
    sent: int = 0
    dropped: int = 0
    failed: int = 0
    rejected: int = 0
    retries: int = 0


@dataclass(frozen=True)
class GuardCheckResult:
    """The result of a passed guard check (what ``with_guard`` yields).

    Attributes:
        decision: the service's decision; None when it could not answer and the client failed open.
        effective_decision: the decision after the client's mode (what the client did).
        outcome: ``ran`` or ``failed_open``.
        approval: the granted approval, when one was needed.
    """

    effective_decision: str
    outcome: str
    decision: Optional[GuardDecision] = None
    approval: Optional[Approval] = None

    @property
    def policy_decision(self) -> Optional[str]:
        """The policy decision, when the service answered."""
        return self.decision.policy_decision if self.decision else None


def wire_dict(d: Dict[str, Any]) -> Dict[str, Any]:
    """``d`` without its None values (absent optional fields)."""
    return {k: v for k, v in d.items() if v is not None}
