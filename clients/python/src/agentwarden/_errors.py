"""One error hierarchy: a stable ``code``, the HTTP ``status`` and ``problem`` when there was an
answer, and whether a retry may help (``retryable``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional

if TYPE_CHECKING:  # pragma: no cover
    from ._models import Approval, GuardDecision, Problem, ValidationIssue

__all__ = [
    "WardenError",
    "ConfigurationError",
    "AuthenticationError",
    "PermissionDeniedError",
    "ValidationError",
    "NotFoundError",
    "ApiError",
    "RateLimitError",
    "ServiceUnavailableError",
    "APIConnectionError",
    "GuardrailBlockedError",
    "ApprovalDeniedError",
    "ApprovalTimeoutError",
    "GuardrailUnavailableError",
]


class WardenError(Exception):
    """Base of every error the client raises or reports.

    Attributes:
        code: stable code of the failure kind (match on it, not on the message).
        status: HTTP status of the answer that caused the error, when there was one.
        problem: the parsed ``application/problem+json`` body, when the service sent one.
        retryable: True when the same request may succeed if repeated.
    """

    code: str = "api_error"

    def __init__(
        self,
        message: str,
        *,
        status: Optional[int] = None,
        problem: Optional["Problem"] = None,
        retryable: bool = False,
        cause: Optional[BaseException] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.problem = problem
        self.retryable = retryable
        if cause is not None:
            self.__cause__ = cause


class ConfigurationError(WardenError, ValueError):
    """An option has a bad value (raised by the constructor). ``option`` names it."""

    code = "configuration_invalid"

    def __init__(self, option: str, message: str) -> None:
        super().__init__(f"{option}: {message}")
        self.option = option


class AuthenticationError(WardenError):
    """401: the API key is missing or unknown. Not retried."""

    code = "authentication_failed"

    def __init__(self, message: str, **kw: Any) -> None:
        kw.update(status=401, retryable=False)
        kw.pop("retry_after_ms", None)
        super().__init__(message, **kw)


class PermissionDeniedError(WardenError):
    """403: the key lacks the scope, or the resource belongs to another project. Not retried."""

    code = "permission_denied"

    def __init__(self, message: str, **kw: Any) -> None:
        kw.update(status=403, retryable=False)
        kw.pop("retry_after_ms", None)
        super().__init__(message, **kw)


class ValidationError(WardenError):
    """400, 413 or 422: the service refused the body. ``errors`` names each offending path."""

    code = "validation_failed"

    def __init__(self, message: str, **kw: Any) -> None:
        kw.update(retryable=False)
        kw.pop("retry_after_ms", None)
        super().__init__(message, **kw)
        self.errors: "List[ValidationIssue]" = list(self.problem.errors) if self.problem else []


class NotFoundError(WardenError):
    """404: unknown agent, version or approval. Not retried."""

    code = "not_found"

    def __init__(self, message: str, **kw: Any) -> None:
        kw.update(status=404, retryable=False)
        kw.pop("retry_after_ms", None)
        super().__init__(message, **kw)


class ApiError(WardenError):
    """Any other non-retryable answer (409, other 4xx), or an answer that breaks the contract."""

    code = "api_error"

    def __init__(self, message: str, **kw: Any) -> None:
        kw.update(retryable=False)
        kw.pop("retry_after_ms", None)
        super().__init__(message, **kw)


class RateLimitError(WardenError):
    """429, raised once the retries are spent. ``retry_after_ms`` is the wait the service asked for."""

    code = "rate_limited"

    def __init__(self, message: str, *, retry_after_ms: Optional[int] = None, **kw: Any) -> None:
        kw.update(status=429, retryable=True)
        super().__init__(message, **kw)
        self.retry_after_ms = retry_after_ms


class ServiceUnavailableError(WardenError):
    """408 or 5xx (e.g. 503 when the event log is down), raised once the retries are spent."""

    code = "service_unavailable"

    def __init__(self, message: str, *, retry_after_ms: Optional[int] = None, **kw: Any) -> None:
        kw.update(retryable=True)
        super().__init__(message, **kw)
        self.retry_after_ms = retry_after_ms


class APIConnectionError(WardenError):
    """No HTTP answer (DNS, refused or reset connection, ``request_timeout_ms``), after the retries.

    ``timed_out`` is True when the attempt was cut by the timeout.
    """

    code = "connection_failed"

    def __init__(self, message: str, *, timed_out: bool = False, **kw: Any) -> None:
        kw.update(retryable=True)
        kw.pop("retry_after_ms", None)
        super().__init__(message, **kw)
        self.timed_out = timed_out


class GuardrailBlockedError(WardenError):
    """Enforce mode: a guardrail blocked the action; the guarded code did not run."""

    code = "guardrail_blocked"

    def __init__(self, decision: "GuardDecision", what: str) -> None:
        names = ", ".join(g.name for g in decision.matched_guardrails)
        super().__init__(f"{what} blocked by guardrail" + (f" ({names})" if names else ""))
        self.decision = decision


class ApprovalDeniedError(WardenError):
    """Enforce mode: the approval was denied or cancelled; the guarded code did not run."""

    code = "approval_denied"

    def __init__(self, decision: "GuardDecision", approval: "Approval", what: str) -> None:
        by = f" by {approval.decided_by}" if approval.decided_by else ""
        super().__init__(f"{what}: approval {approval.id} {approval.status}{by}")
        self.decision = decision
        self.approval = approval


class ApprovalTimeoutError(WardenError):
    """Enforce mode: the approval expired (policy ``onTimeout: deny``) or the client stopped
    waiting (``approval_timeout_ms``, or ``expiresAt`` + 30 s); the guarded code did not run."""

    code = "approval_timeout"

    def __init__(
        self,
        decision: "GuardDecision",
        approval_id: str,
        waited_ms: float,
        approval: "Optional[Approval]" = None,
    ) -> None:
        super().__init__(f"approval {approval_id} not granted in time (waited {round(waited_ms)} ms)")
        self.decision = decision
        self.approval_id = approval_id
        self.approval = approval
        self.waited_ms = waited_ms


class GuardrailUnavailableError(WardenError):
    """``fail_mode='closed'``: the guardrail service could not answer (or an approval could not be
    read), so the action did not run. ``__cause__`` holds the transport error."""

    code = "guardrail_unavailable"

    def __init__(self, what: str, cause: Optional[BaseException]) -> None:
        super().__init__(f"{what}: guardrail service unavailable, failing closed", cause=cause)
