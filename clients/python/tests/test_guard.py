"""Guard outcomes: monitor vs enforce, approvals, fail open / closed."""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Dict, List

import pytest

from agentwarden import (
    ApprovalDeniedError,
    ApprovalTimeoutError,
    GuardrailBlockedError,
    GuardrailUnavailableError,
    WardenClient,
)
from fake_warden import ApprovalPlan, FakeWarden

pytestmark = pytest.mark.unit

MakeClient = Callable[..., WardenClient]


def by_tool(decisions: Dict[str, str]) -> Callable[[Dict[str, Any]], str]:
    return lambda body: decisions.get((body.get("tool") or {}).get("name", ""), "allow")


def evaluated(fake: FakeWarden) -> List[Dict[str, Any]]:
    return [e["data"] for e in fake.events_of_type("agent.guardrail.evaluated")]


class TestMonitorMode:
    def test_always_runs_the_block_and_logs_what_enforce_would_do(
        self, fake: FakeWarden, make_client: MakeClient, log_records
    ):
        fake.decide = by_tool({"warned": "warn", "blocked": "block", "approval": "require_approval"})
        client = make_client(mode="monitor")
        ran = []
        for name in ("fine", "warned", "blocked", "approval"):
            with client.with_tool(name) as call:
                ran.append((name, call.policy_decision, call.effective_decision))
        assert ran == [
            ("fine", "allow", "allow"),
            ("warned", "warn", "warn"),
            ("blocked", "block", "warn"),
            ("approval", "require_approval", "warn"),
        ]
        client.flush()
        assert [(d["policyDecision"], d["effectiveDecision"], d["outcome"]) for d in evaluated(fake)] == [
            ("allow", "allow", "ran"),
            ("warn", "warn", "ran"),
            ("block", "warn", "ran"),
            ("require_approval", "warn", "ran"),
        ]
        warnings = log_records.messages(logging.WARNING)
        assert "warden guardrail warning" in warnings
        assert "warden guardrail would block" in warnings
        assert "warden guardrail would require approval" in warnings
        assert fake.requests_to("/v1/approvals/x") == []

    def test_sends_the_full_guard_request(self, fake: FakeWarden, make_client: MakeClient):
        client = make_client()
        client.ready(timeout=5)
        with client.with_run("r") as run:
            with client.with_tool(
                "stripe.refund",
                arguments={"amount": 120},
                action_type="payment.refund",
                risk_level="high",
                resource={"type": "charge", "id": "ch_1", "environment": "production"},
            ) as call:
                pass
        (req,) = fake.requests_to("/v1/guardrails/evaluate")
        assert req.body == {
            "agentId": fake.agent_id,
            "agentVersionId": fake.agent_version_id,
            "sessionId": client.session_id,
            "runId": run.run_id,
            "toolCallId": call.tool_call_id,
            "mode": "monitor",
            "tool": {"name": "stripe.refund"},
            "action": {"type": "payment.refund", "name": "stripe.refund"},
            "resource": {"type": "charge", "id": "ch_1", "environment": "production"},
            "riskLevel": "high",
            "arguments": {"amount": 120},
            "provenance": {
                "arguments": [
                    {"path": "amount", "origin": "none", "tainted": False, "instructed": False, "sources": []}
                ],
                "session": {"untrustedInstructions": 0},
                "truncated": False,
            },
            "dryRun": False,
        }
        ev = evaluated(fake)[0]
        assert ev["toolCallId"] == call.tool_call_id and ev["toolName"] == "stripe.refund"
        assert fake.contract_violations == []


class TestEnforceMode:
    def test_allow_and_warn_run_block_raises_without_running_the_block(self, fake: FakeWarden, make_client: MakeClient):
        fake.decide = by_tool({"warned": "warn", "blocked": "block"})
        client = make_client(mode="enforce")
        with client.with_tool("fine") as call:
            call.result = 1
        with client.with_tool("warned") as call:
            assert call.effective_decision == "warn"
        ran = False
        with pytest.raises(GuardrailBlockedError) as info:
            with client.with_tool("blocked"):
                ran = True
        assert not ran
        assert info.value.decision.policy_decision == "block"
        assert info.value.decision.effective_decision == "block"
        assert info.value.code == "guardrail_blocked" and "block rule" in str(info.value)
        client.flush()
        assert evaluated(fake)[-1]["outcome"] == "blocked"
        assert len(fake.events_of_type("agent.tool.started")) == 2  # none for the blocked call

    def test_require_approval_waits_on_the_long_poll_and_approved_runs_the_block(
        self, fake: FakeWarden, make_client: MakeClient
    ):
        fake.decide = lambda body: "require_approval"
        fake.approval_plan = ApprovalPlan(status="approved", after_s=0.3)
        client = make_client(mode="enforce")
        t0 = time.monotonic()
        with client.with_tool("refund", arguments={"amount": 5}) as call:
            waited = time.monotonic() - t0
            call.result = "refunded"
        assert waited >= 0.3
        assert call.approval is not None and call.approval.status == "approved"
        polls = fake.requests_to(__import__("re").compile(r"^/v1/approvals/"))
        assert 1 <= len(polls) <= 3  # a long poll, not a busy loop
        assert polls[0].query["waitSeconds"] == ["20"]
        client.flush()
        types = [e["type"] for e in fake.events]
        assert types[-5:] == [
            "agent.guardrail.evaluated",
            "agent.approval.requested",
            "agent.approval.resolved",
            "agent.tool.started",
            "agent.tool.completed",
        ]
        requested = fake.events_of_type("agent.approval.requested")[0]
        resolved = fake.events_of_type("agent.approval.resolved")[0]
        assert resolved["parentId"] == requested["id"]
        assert resolved["data"]["status"] == "approved" and resolved["data"]["waitedMs"] >= 250
        assert resolved["data"]["decidedBy"] == "alice@example.com"
        assert evaluated(fake)[0]["outcome"] == "awaiting_approval"
        assert evaluated(fake)[0]["approvalId"] == requested["data"]["approvalId"]

    def test_denied_raises_approval_denied_error_without_running_the_block(
        self, fake: FakeWarden, make_client: MakeClient
    ):
        fake.decide = lambda body: "require_approval"
        fake.approval_plan = ApprovalPlan(status="denied", after_s=0.05)
        client = make_client(mode="enforce")
        ran = False
        with pytest.raises(ApprovalDeniedError) as info:
            with client.with_tool("refund"):
                ran = True
        assert not ran
        assert info.value.approval.status == "denied" and info.value.code == "approval_denied"
        client.flush()
        assert fake.events_of_type("agent.approval.resolved")[0]["data"]["status"] == "denied"
        assert fake.events_of_type("agent.tool.started") == []

    def test_expired_raises_approval_timeout_error(self, fake: FakeWarden, make_client: MakeClient):
        fake.decide = lambda body: "require_approval"
        fake.approval_plan = ApprovalPlan(status="expired", after_s=0.05)
        client = make_client(mode="enforce")
        with pytest.raises(ApprovalTimeoutError) as info:
            with client.with_tool("refund"):
                pytest.fail("must not run")
        assert info.value.approval is not None and info.value.approval.status == "expired"

    def test_expired_with_on_timeout_approve_runs_the_block(self, fake: FakeWarden, make_client: MakeClient):
        fake.decide = lambda body: "require_approval"
        fake.approval_plan = ApprovalPlan(status="expired", after_s=0.05, on_timeout="approve")
        client = make_client(mode="enforce")
        with client.with_tool("refund") as call:
            call.result = "ran"
        assert call.approval is not None and call.approval.on_timeout == "approve"

    def test_stops_waiting_at_approval_timeout_ms(self, fake: FakeWarden, make_client: MakeClient):
        fake.decide = lambda body: "require_approval"
        fake.approval_plan = ApprovalPlan(status="pending")
        client = make_client(mode="enforce", approval_timeout_ms=500)
        t0 = time.monotonic()
        with pytest.raises(ApprovalTimeoutError) as info:
            with client.with_tool("refund"):
                pytest.fail("must not run")
        assert 0.5 <= time.monotonic() - t0 < 3
        assert info.value.waited_ms >= 500
        client.flush()
        resolved = fake.events_of_type("agent.approval.resolved")[0]["data"]
        assert resolved["status"] == "expired" and "client stopped waiting" in resolved["comment"]

    def test_with_guard_guards_a_non_tool_action_without_tool_events(self, fake: FakeWarden, make_client: MakeClient):
        fake.decide = lambda body: "block" if (body.get("action") or {}).get("type") == "email.bulk" else "allow"
        client = make_client(mode="enforce")
        with client.with_guard(action={"type": "email.send", "name": "welcome"}, risk_level="low") as checked:
            assert checked.outcome == "ran" and checked.policy_decision == "allow"
        with pytest.raises(GuardrailBlockedError) as info:
            with client.with_guard(action="email.bulk"):
                pytest.fail("must not run")
        assert "action email.bulk" in str(info.value)
        client.flush()
        assert fake.events_of_type("agent.tool.started") == []
        assert [d["outcome"] for d in evaluated(fake)] == ["ran", "blocked"]
        assert fake.requests_to("/v1/guardrails/evaluate")[0].body["action"] == {
            "type": "email.send",
            "name": "welcome",
        }

    def test_guard_is_a_dry_run_full_decision_no_approval_no_events(self, fake: FakeWarden, make_client: MakeClient):
        fake.decide = lambda body: "require_approval"
        client = make_client(mode="enforce")
        decision = client.guard(tool="refund", arguments={"amount": 1})
        assert decision.policy_decision == "require_approval" and decision.approval is None
        assert decision.would_require_approval and decision.matched_guardrails[0].name == "require_approval rule"
        assert fake.requests_to("/v1/guardrails/evaluate")[0].body["dryRun"] is True
        client.flush()
        assert evaluated(fake) == []

    def test_retries_the_evaluate_call_on_503(self, fake: FakeWarden, make_client: MakeClient):
        client = make_client(mode="enforce")
        fake.fail("/v1/guardrails/evaluate", 503, times=2)
        with client.with_tool("t") as call:
            pass
        assert call.outcome == "ran"
        assert len(fake.requests_to("/v1/guardrails/evaluate")) == 3


class TestFailModeWhenTheServiceIsDown:
    def test_closed_enforce_default_raises_and_the_events_are_sent_when_the_service_is_back(
        self, fake: FakeWarden, make_client: MakeClient
    ):
        client = make_client(mode="enforce", max_retries=1)
        client.ready(timeout=5)
        fake.fail("/v1/guardrails/evaluate", 503, times=2)
        ran = False
        with pytest.raises(GuardrailUnavailableError) as info:
            with client.with_tool("t"):
                ran = True
        assert not ran and info.value.code == "guardrail_unavailable"
        assert info.value.__cause__ is not None and getattr(info.value.__cause__, "status", None) == 503
        client.flush()
        ev = evaluated(fake)[0]
        assert ev["outcome"] == "failed_closed" and ev["policyDecision"] == "block" and "evaluationId" not in ev

    def test_fails_fast_during_the_cool_down_after_an_outage(self, make_client: MakeClient):
        client = make_client(
            mode="enforce",
            base_url="http://127.0.0.1:9",
            max_retries=2,
            retry_base_delay_ms=100,
            retry_max_delay_ms=200,
        )
        with pytest.raises(GuardrailUnavailableError):
            with client.with_tool("t"):
                pass
        t0 = time.monotonic()
        for _ in range(5):
            with pytest.raises(GuardrailUnavailableError):
                with client.with_tool("t"):
                    pass
        assert time.monotonic() - t0 < 0.1

    def test_open_monitor_default_runs_the_block_and_records_failed_open(
        self, fake: FakeWarden, make_client: MakeClient
    ):
        client = make_client(max_retries=0)
        client.ready(timeout=5)
        fake.fail("/v1/guardrails/evaluate", 500)
        with client.with_tool("t") as call:
            call.result = "ran"
        assert call.outcome == "failed_open" and call.decision is None and call.effective_decision == "allow"
        client.flush()
        assert evaluated(fake)[0]["outcome"] == "failed_open"

    def test_an_explicit_fail_mode_open_in_enforce_runs_the_block(self, fake: FakeWarden, make_client: MakeClient):
        client = make_client(mode="enforce", fail_mode="open", max_retries=0)
        client.ready(timeout=5)
        fake.fail("/v1/guardrails/evaluate", 503)
        with client.with_tool("t") as call:
            pass
        assert call.outcome == "failed_open"

    def test_an_unreadable_approval_fails_closed(self, fake: FakeWarden, make_client: MakeClient):
        import re

        fake.decide = lambda body: "require_approval"
        fake.approval_plan = ApprovalPlan(status="pending")
        client = make_client(mode="enforce")
        fake.fail(re.compile(r"^/v1/approvals/"), 404)
        with pytest.raises(GuardrailUnavailableError):
            with client.with_tool("t"):
                pytest.fail("must not run")
