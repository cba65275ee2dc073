"""Guard checks: ask the service about an action and act by mode (monitor / enforce), wait for
human approvals, and fail open or closed when the service cannot answer."""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Dict, Optional

from ._api import APPROVAL_POLL_SECONDS
from ._context import Scope
from ._errors import (
    ApprovalDeniedError,
    ApprovalTimeoutError,
    GuardrailBlockedError,
    GuardrailUnavailableError,
    WardenError,
)
from ._logging import Log, error_fields
from ._models import Approval, ApprovalRef, GuardCheckResult, GuardDecision, parse_timestamp
from ._recorder import EventRecorder
from ._registration import IdentitySource
from ._serialize import truncate

#: After the guard service was unreachable (retries spent), guarded calls skip it and follow
#: ``fail_mode`` at once for this long, seconds, instead of each waiting through the retries again.
GUARD_OUTAGE_COOLDOWN_S = 5.0
#: Extra wait after an approval's ``expiresAt`` before the client gives up, seconds.
APPROVAL_EXPIRY_MARGIN_S = 30.0
#: Shortest time between two polls, seconds (guards against a service that does not long-poll).
MIN_POLL_INTERVAL_S = 0.25


def effective_for(policy_decision: str, mode: str) -> str:
    """The decision after the mode: enforce keeps it; monitor gives ``allow`` for ``allow``, else ``warn``."""
    if mode == "enforce":
        return policy_decision
    return "allow" if policy_decision == "allow" else "warn"


class Guard:
    """Evaluates calls and acts by mode. Every check emits ``agent.guardrail.evaluated`` with its
    ``outcome`` (``ran``, ``blocked``, ``awaiting_approval``, ``failed_open``, ``failed_closed``)."""

    def __init__(
        self,
        *,
        evaluate: Callable[[Dict[str, Any]], GuardDecision],
        get_approval: Callable[[str, float], Approval],
        identity: IdentitySource,
        recorder: EventRecorder,
        log: Log,
        mode: str,
        fail_mode: str,
        approval_timeout_ms: Optional[int] = None,
        outage_cooldown_s: float = GUARD_OUTAGE_COOLDOWN_S,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._evaluate = evaluate
        self._get_approval = get_approval
        self._identity = identity
        self._recorder = recorder
        self._log = log
        self.mode = mode
        self.fail_mode = fail_mode
        self._approval_timeout_ms = approval_timeout_ms
        self._cooldown_s = outage_cooldown_s
        self._sleep = sleep
        self._outage_until = 0.0
        self._outage_cause: Optional[BaseException] = None

    def check(
        self,
        guard_input: Dict[str, Any],
        what: str,
        scope: Scope,
        tool_call_id: Optional[str] = None,
        cancelled: Optional[threading.Event] = None,
    ) -> GuardCheckResult:
        """Returns when the action may run. Raises :class:`GuardrailBlockedError`,
        :class:`ApprovalDeniedError`, :class:`ApprovalTimeoutError` or
        :class:`GuardrailUnavailableError` (service unreachable with ``fail_mode='closed'``, or an
        approval that cannot be read)."""
        if self._outage_cause is not None and time.monotonic() < self._outage_until:
            return self._unavailable(guard_input, what, scope, tool_call_id, self._outage_cause)
        try:
            decision = self._ask(guard_input, scope, tool_call_id, dry_run=False)
        except Exception as e:
            if isinstance(e, WardenError) and e.retryable:  # service down: fail fast for a while
                self._outage_until = time.monotonic() + self._cooldown_s
                self._outage_cause = e
            return self._unavailable(guard_input, what, scope, tool_call_id, e)
        self._outage_cause = None
        mode = self.mode
        effective = (
            effective_for(decision.policy_decision, "monitor") if mode == "monitor" else decision.effective_decision
        )
        fields = _log_fields(what, tool_call_id, decision)
        if effective in ("allow", "warn"):
            self._record(guard_input, scope, tool_call_id, decision, effective, "ran")
            if decision.would_block and mode == "monitor":
                self._log.warning("warden guardrail would block", **fields)
            elif decision.would_require_approval and mode == "monitor":
                self._log.warning("warden guardrail would require approval", **fields)
            elif effective == "warn":
                self._log.warning("warden guardrail warning", **fields)
            return GuardCheckResult(decision=decision, effective_decision=effective, outcome="ran")
        if effective == "block":
            self._record(guard_input, scope, tool_call_id, decision, effective, "blocked")
            self._log.warning("warden guardrail blocked", **fields)
            raise GuardrailBlockedError(decision, what)
        # require_approval (enforce)
        if decision.approval is None:
            self._record(guard_input, scope, tool_call_id, decision, effective, "failed_closed")
            self._log.error("warden decision requires approval but names none", **fields)
            raise GuardrailUnavailableError(what, RuntimeError("require_approval without an approval"))
        self._record(guard_input, scope, tool_call_id, decision, effective, "awaiting_approval")
        approval = self._await_approval(decision, decision.approval, what, tool_call_id, scope, cancelled)
        return GuardCheckResult(decision=decision, effective_decision=effective, outcome="ran", approval=approval)

    def dry_run(self, guard_input: Dict[str, Any], scope: Scope) -> GuardDecision:
        """Evaluates without side effects (no approval, no event). Raises the transport's errors."""
        return self._ask(guard_input, scope, None, dry_run=True)

    def _ask(
        self, guard_input: Dict[str, Any], scope: Scope, tool_call_id: Optional[str], dry_run: bool
    ) -> GuardDecision:
        ids = self._identity.ensure()
        body: Dict[str, Any] = {
            "agentId": ids.agent_id,
            "agentVersionId": ids.agent_version_id,
            "sessionId": scope.session_id,
        }
        if scope.run_id:
            body["runId"] = scope.run_id
        if tool_call_id:
            body["toolCallId"] = tool_call_id
        body["mode"] = self.mode
        for k, v in guard_input.items():
            if v is not None:
                body[k] = v
        body["dryRun"] = dry_run
        return self._evaluate(body)

    def _unavailable(
        self,
        guard_input: Dict[str, Any],
        what: str,
        scope: Scope,
        tool_call_id: Optional[str],
        cause: BaseException,
    ) -> GuardCheckResult:
        is_open = self.fail_mode == "open"
        effective = "allow" if is_open else "block"
        self._record(guard_input, scope, tool_call_id, None, effective, "failed_open" if is_open else "failed_closed")
        self._log.warning(
            "warden guardrail unavailable, failing open" if is_open else "warden guardrail unavailable, failing closed",
            what=what,
            toolCallId=tool_call_id,
            **error_fields(cause),
        )
        if not is_open:
            raise GuardrailUnavailableError(what, cause)
        return GuardCheckResult(effective_decision=effective, outcome="failed_open")

    def _record(
        self,
        guard_input: Dict[str, Any],
        scope: Scope,
        tool_call_id: Optional[str],
        decision: Optional[GuardDecision],
        effective: str,
        outcome: str,
    ) -> None:
        """Emits ``agent.guardrail.evaluated``. Without a decision (service unreachable) the event
        has no ``evaluationId``, no matches, and ``policyDecision`` = what the client did."""
        tool = guard_input.get("tool")
        self._recorder.emit(
            "agent.guardrail.evaluated",
            {
                "evaluationId": decision.evaluation_id if decision else None,
                "toolCallId": tool_call_id,
                "toolName": tool.get("name") if isinstance(tool, dict) else None,
                "mode": decision.mode if decision else self.mode,
                "policyDecision": decision.policy_decision if decision else effective,
                "effectiveDecision": effective,
                "matchedGuardrails": (
                    [
                        {
                            "policyId": g.policy_id,
                            "name": g.name,
                            "version": g.version,
                            "decision": g.decision,
                            "reason": g.reason,
                        }
                        for g in decision.matched_guardrails
                    ]
                    if decision
                    else []
                ),
                "wouldBlock": decision.would_block if decision else False,
                "wouldRequireApproval": decision.would_require_approval if decision else False,
                "approvalId": decision.approval.id if decision and decision.approval else None,
                "outcome": outcome,
                "provenance": guard_input.get("provenance"),
            },
            scope.session_id,
            scope.run_id,
        )

    def _await_approval(
        self,
        decision: GuardDecision,
        ref: ApprovalRef,
        what: str,
        tool_call_id: Optional[str],
        scope: Scope,
        cancelled: Optional[threading.Event] = None,
    ) -> Approval:
        """Emits ``agent.approval.requested``, long-polls until the approval is decided or the
        deadline passes, emits ``agent.approval.resolved`` (``waitedMs``), and returns the approval
        when ``approved`` (or ``expired`` with ``onTimeout: approve``). Raises
        :class:`ApprovalDeniedError`, :class:`ApprovalTimeoutError`, or
        :class:`GuardrailUnavailableError` when the approval cannot be read (401, 403, 404)."""
        requested_id = self._recorder.emit(
            "agent.approval.requested",
            {
                "approvalId": ref.id,
                "evaluationId": decision.evaluation_id,
                "toolCallId": tool_call_id,
                "expiresAt": ref.expires_at,
            },
            scope.session_id,
            scope.run_id,
        )
        started = time.time()
        try:
            by_expiry = parse_timestamp(ref.expires_at).timestamp() + APPROVAL_EXPIRY_MARGIN_S
        except ValueError:
            by_expiry = float("inf")
        by_client = float("inf") if self._approval_timeout_ms is None else started + self._approval_timeout_ms / 1000
        deadline = min(by_expiry, by_client)
        self._log.info("warden waiting for approval", approvalId=ref.id, what=what, expiresAt=ref.expires_at)

        last: Optional[Approval] = None
        while time.time() < deadline and not (cancelled is not None and cancelled.is_set()):
            poll_started = time.time()
            remaining = max(1, int((deadline - poll_started)))
            try:
                last = self._get_approval(ref.id, min(APPROVAL_POLL_SECONDS, remaining))
                if last.status != "pending":
                    break
            except Exception as e:
                if isinstance(e, WardenError) and not e.retryable:
                    self._log.error("warden approval unreadable", approvalId=ref.id, **error_fields(e))
                    raise GuardrailUnavailableError(what, e) from e
                self._log.warning("warden approval poll failed, retrying", approvalId=ref.id, **error_fields(e))
            elapsed = time.time() - poll_started
            if elapsed < MIN_POLL_INTERVAL_S:
                self._sleep(max(0.0, min(MIN_POLL_INTERVAL_S - elapsed, deadline - time.time())))

        waited_ms = round((time.time() - started) * 1000)
        final = last.status if last is not None and last.status != "pending" else None
        self._recorder.emit(
            "agent.approval.resolved",
            {
                "approvalId": ref.id,
                "status": final or "expired",
                "decidedBy": truncate(last.decided_by if last else None, 200),
                "comment": (
                    truncate(last.comment if last else None, 2000)
                    if final
                    else f"client stopped waiting after {waited_ms} ms"
                    + (" (cancelled)" if cancelled is not None and cancelled.is_set() else "")
                    + "; the approval may still be pending"
                ),
                "waitedMs": waited_ms,
            },
            scope.session_id,
            scope.run_id,
            requested_id,
        )
        self._log.info(
            "warden approval resolved", approvalId=ref.id, status=final or "client_timeout", waitedMs=waited_ms
        )
        if final == "approved" and last is not None:
            return last
        if final == "expired" and last is not None and last.on_timeout == "approve":
            return last
        if final in ("denied", "cancelled") and last is not None:
            raise ApprovalDeniedError(decision, last, what)
        raise ApprovalTimeoutError(decision, ref.id, waited_ms, last)


def _log_fields(what: str, tool_call_id: Optional[str], decision: GuardDecision) -> Dict[str, Any]:
    return {
        "what": what,
        "toolCallId": tool_call_id,
        "evaluationId": decision.evaluation_id,
        "mode": decision.mode,
        "policyDecision": decision.policy_decision,
        "effectiveDecision": decision.effective_decision,
        "guardrails": [
            {"name": g.name, "decision": g.decision, "reason": g.reason} for g in decision.matched_guardrails
        ],
    }
