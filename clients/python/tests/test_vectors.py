"""The wire format is the contract's: the requests this client produces validate against the JSON
Schemas of ``libs/contracts/vectors`` (generated from the zod schemas), and the client understands
every response vector."""

from __future__ import annotations

import copy
import re
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Dict, List

import pytest

from agentwarden import (
    EVENT_TYPES,
    APIConnectionError,
    ApiError,
    Approval,
    ApprovalDeniedError,
    ApprovalTimeoutError,
    AuthenticationError,
    EventBatchResponse,
    GuardDecision,
    GuardrailBlockedError,
    IdentifyResponse,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServiceUnavailableError,
    ValidationError,
    WardenClient,
)
from agentwarden._transport import error_from_response
from fake_warden import ApprovalPlan, FakeWarden, iso
from vectors import examples, load_vectors, request_validator, vector

pytestmark = pytest.mark.unit

MakeClient = Callable[..., WardenClient]
REQUESTS = (
    "identify-request",
    "capabilities-request",
    "event-batch-request",
    "guard-request",
    "approval-decision-request",
)
RESPONSES = (
    "identify-response",
    "capabilities-response",
    "event-batch-response",
    "guard-decision",
    "approval",
    "problem",
)


def test_the_vectors_are_there_and_well_formed():
    vectors = load_vectors()
    assert set(vectors) == set(REQUESTS) | set(RESPONSES)
    for name, v in vectors.items():
        assert v["kind"] == ("request" if name in REQUESTS else "response")
        assert v["schema"]["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert v["examples"]


@pytest.mark.parametrize("name", REQUESTS + RESPONSES)
def test_each_example_validates_against_its_json_schema(name: str):
    validator = request_validator(name)
    for ex in vector(name)["examples"]:
        errors = list(validator.iter_errors(ex["body"]))
        assert errors == [], f"{name}/{ex['name']}: {errors[0].message if errors else ''}"


def test_the_schemas_refuse_what_the_contract_refuses():
    batch = request_validator("event-batch-request")
    event = copy.deepcopy(examples("event-batch-request")["one-event-of-each-type"]["body"]["events"][0])
    assert batch.is_valid({"events": [event]})
    assert not batch.is_valid({"events": []})
    assert not batch.is_valid({"events": [{**event, "id": "9b2f4c3e-8a1d-4f6b-9c2e-1a2b3c4d5e6f"}]})  # v4 id
    assert not batch.is_valid({"events": [{**event, "type": "agent.session.paused"}]})
    assert not batch.is_valid({"events": [{**event, "sequence": 0}]})
    assert not request_validator("identify-request").is_valid({"agent": {"key": "bad key"}})


def drive_every_request(fake: FakeWarden, client: WardenClient) -> None:
    """Makes the client send every kind of request and all 14 event types."""
    fake.decide = lambda body: {"refund": "require_approval", "drop": "block"}.get(
        (body.get("tool") or {}).get("name", ""), "allow"
    )
    fake.approval_plan = ApprovalPlan(status="approved", after_s=0.05)
    client.start_session(input_summary="ticket 7", attributes={"channel": "email"})
    with client.with_run("answer", input_summary="refund please", attributes={"n": 1}) as run:
        client.track_message("user", "Please refund order 4412.")
        with client.with_tool(
            "refund",
            arguments={"amount": 120},
            action_type="payment.refund",
            risk_level="high",
            resource={"type": "charge", "id": "ch_1", "environment": "production"},
        ) as call:
            call.result = {"refundId": "re_1"}
        with pytest.raises(GuardrailBlockedError):
            with client.with_tool("drop"):
                pass
        with pytest.raises(ZeroDivisionError):
            with client.with_tool("divide", guard=False):
                1 / 0
        with client.with_guard(action={"type": "email.send", "name": "confirm"}):
            client.track_action(
                "email.send", "confirm", resource={"type": "mailbox"}, risk_level="low", details={"to": "x"}
            )
        client.track("cache.hit", {"key": "order:4412"})
        client.track_event("agent.custom", {"name": "generic", "data": [1, 2]}, parent_id=call.tool_call_id)
        run.score("refund_correct", 1, comment="amount matches the order")
        run.track_llm_call(
            "gpt-4o-mini",
            provider="openai",
            input_tokens=1240,
            output_tokens=96,
            cached_input_tokens=1024,
            duration_ms=842.5,
            finish_reasons=["tool_calls"],
            attributes={"temperature": 0},
        )
        run.output_summary = "refunded"
    client.score("task_succeeded", True, source="human")
    client.score("tone", "polite", source="evaluator", score_id="01970f3a-1000-7000-8000-000000000006")
    client.track_llm_call("claude-x", provider="anthropic", error=TimeoutError("read timed out"), duration_ms=30000)
    client.guard(tool="refund", arguments={"amount": 1})
    client.end_session(output_summary="closed")
    client.flush()


def test_the_requests_the_client_produces_validate_against_the_contract(fake: FakeWarden, make_client: MakeClient):
    client = make_client(
        mode="enforce",
        version={"version": "2.0.0", "metadata": {"model": "m"}},
        capabilities=[{"name": "refund", "risk_level": "high", "action_type": "payment.refund"}, "divide"],
    )
    client.ready(timeout=5)
    drive_every_request(fake, client)
    # The fake validated each body against the vector's JSON Schema and answered 400 otherwise.
    assert fake.contract_violations == []
    seen = {(r.method, re.sub(r"/[0-9a-f-]{36}", "/{id}", r.path)) for r in fake.requests}
    assert {
        ("POST", "/v1/agents/identify"),
        ("PUT", "/v1/agents/{id}/versions/{id}/capabilities"),
        ("POST", "/v1/events"),
        ("POST", "/v1/guardrails/evaluate"),
        ("GET", "/v1/approvals/{id}"),
    } <= seen
    assert (
        {e["type"] for e in fake.events}
        == set(EVENT_TYPES)
        == set(e["type"] for e in examples("event-batch-request")["one-event-of-each-type"]["body"]["events"])
    )
    # Each event also on its own, and the run events carry their runId (not expressible in the schema).
    batch = request_validator("event-batch-request")
    for e in fake.events:
        assert batch.is_valid({"events": [e]}), e
        if e["type"] in ("agent.run.started", "agent.run.completed"):
            assert e.get("runId")


def test_a_failed_open_guard_event_validates(fake: FakeWarden, make_client: MakeClient):
    client = make_client(max_retries=0)
    client.ready(timeout=5)
    fake.fail("/v1/guardrails/evaluate", 503)
    with client.with_tool("t"):
        pass
    client.flush()
    assert fake.contract_violations == []
    assert fake.events_of_type("agent.guardrail.evaluated")[0]["data"]["outcome"] == "failed_open"


# -- responses ----------------------------------------------------------------------------------------


def test_parses_the_identify_responses():
    for ex in vector("identify-response")["examples"]:
        r = IdentifyResponse.from_dict(ex["body"])
        assert (r.agent_id, r.agent_version_id, r.project_id, r.version, r.created) == (
            ex["body"]["agentId"],
            ex["body"]["agentVersionId"],
            ex["body"]["projectId"],
            ex["body"]["version"],
            ex["body"]["created"],
        )


def test_parses_the_event_batch_responses():
    ok = EventBatchResponse.from_dict(examples("event-batch-response")["all-accepted"]["body"])
    assert (ok.accepted, ok.rejected) == (13, [])
    some = EventBatchResponse.from_dict(examples("event-batch-response")["some-rejected"]["body"])
    assert some.accepted == 2
    assert [(r.index, r.code) for r in some.rejected] == [
        (1, "invalid_event"),
        (2, "unknown_event_type"),
        (4, "event_too_large"),
        (5, "forbidden_agent"),
    ]
    assert some.rejected[1].id is None and some.rejected[0].errors[0].path == "data.toolName"


@pytest.mark.parametrize("name", list(examples("guard-decision")))
def test_parses_every_guard_decision(name: str):
    body = examples("guard-decision")[name]["body"]
    d = GuardDecision.from_dict(body)
    assert d.policy_decision == body["policyDecision"] and d.effective_decision == body["effectiveDecision"]
    assert d.mode == body["mode"] and d.would_block == body["wouldBlock"]
    assert d.would_require_approval == body["wouldRequireApproval"]
    assert len(d.matched_guardrails) == len(body["matchedGuardrails"])
    assert (d.approval is not None) == ("approval" in body)


@pytest.mark.parametrize("name", list(examples("approval")))
def test_parses_every_approval_state(name: str):
    body = examples("approval")[name]["body"]
    a = Approval.from_dict(body)
    assert (a.id, a.status, a.on_timeout, a.decided_by, a.session_id) == (
        body["id"],
        body["status"],
        body["onTimeout"],
        body["decidedBy"],
        body["sessionId"],
    )


EXPECTED_ERRORS = {
    400: ValidationError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    405: ApiError,
    409: ApiError,
    413: ValidationError,
    429: RateLimitError,
    500: ServiceUnavailableError,
    503: ServiceUnavailableError,
}


@pytest.mark.parametrize("name", list(examples("problem")))
def test_maps_every_problem_body_to_its_typed_error(name: str):
    ex = examples("problem")[name]
    import json

    err = error_from_response(
        ex["status"], json.dumps(ex["body"]).encode(), ex["headers"].get("Retry-After"), "POST /v1/events"
    )
    assert type(err) is EXPECTED_ERRORS[ex["status"]]
    assert err.status == ex["status"] and err.retryable == (ex["status"] in (429, 500, 503))
    assert err.problem is not None and err.problem.code == ex["body"]["code"] == name
    assert err.problem.detail == ex["body"]["detail"]
    if "Retry-After" in ex["headers"]:
        assert getattr(err, "retry_after_ms") == int(ex["headers"]["Retry-After"]) * 1000
    if ex["body"].get("errors"):
        assert [(i.path, i.message) for i in err.problem.errors] == [
            (e["path"], e["message"]) for e in ex["body"]["errors"]
        ]


def test_counts_the_rejected_entries_of_a_202(fake: FakeWarden, make_client: MakeClient):
    client = make_client()
    client.ready(timeout=5)
    for i in range(5):
        client.track("n", {"i": i})
    fake.answer("/v1/events", 202, examples("event-batch-response")["some-rejected"]["body"])
    result = client.flush()
    assert (result.sent, result.rejected, result.failed, result.queued) == (2, 4, 0, 0)


def fresh(body: Dict[str, Any]) -> Dict[str, Any]:
    """The vector with its expiry moved to the future (the vectors' times are fixed)."""
    out = copy.deepcopy(body)
    later = iso(datetime.now(timezone.utc) + timedelta(minutes=5))
    if "approval" in out:
        out["approval"]["expiresAt"] = later
    if "expiresAt" in out and "evaluationId" in out:
        out["expiresAt"] = later
    return out


@pytest.mark.parametrize(
    "name,outcome",
    [
        ("allow-monitor", "ran"),
        ("warn-monitor", "ran"),
        ("block-monitor", "ran"),
        ("require-approval-monitor", "ran"),
        ("allow-enforce", "ran"),
        ("warn-enforce", "ran"),
        ("block-enforce", GuardrailBlockedError),
    ],
)
def test_acts_on_each_decision_vector(fake: FakeWarden, make_client: MakeClient, name: str, outcome: Any):
    body = examples("guard-decision")[name]["body"]
    client = make_client(mode=body["mode"])
    client.ready(timeout=5)
    fake.answer("/v1/guardrails/evaluate", 200, body)
    ran: List[bool] = []
    if outcome == "ran":
        with client.with_tool("t") as call:
            ran.append(True)
        assert call.policy_decision == body["policyDecision"] and call.effective_decision == body["effectiveDecision"]
    else:
        with pytest.raises(outcome):
            with client.with_tool("t"):
                ran.append(True)
    assert ran == ([True] if outcome == "ran" else [])


@pytest.mark.parametrize(
    "approval,outcome",
    [
        ("approved", "ran"),
        ("expired-approve", "ran"),
        ("denied", ApprovalDeniedError),
        ("cancelled", ApprovalDeniedError),
        ("expired-deny", ApprovalTimeoutError),
    ],
)
def test_acts_on_each_approval_state_vector(fake: FakeWarden, make_client: MakeClient, approval: str, outcome: Any):
    client = make_client(mode="enforce")
    client.ready(timeout=5)
    fake.answer("/v1/guardrails/evaluate", 200, fresh(examples("guard-decision")["require-approval-enforce"]["body"]))
    fake.answer(re.compile(r"^/v1/approvals/"), 200, fresh(examples("approval")["pending"]["body"]))
    fake.answer(re.compile(r"^/v1/approvals/"), 200, fresh(examples("approval")[approval]["body"]))
    ran: List[bool] = []
    if outcome == "ran":
        with client.with_tool("refund") as call:
            ran.append(True)
        assert call.approval is not None and call.approval.status == examples("approval")[approval]["body"]["status"]
    else:
        with pytest.raises(outcome):
            with client.with_tool("refund"):
                ran.append(True)
    assert ran == ([True] if outcome == "ran" else [])
    assert len(fake.requests_to(re.compile(r"^/v1/approvals/"))) == 2


@pytest.mark.parametrize("name", [n for n, e in examples("problem").items() if e["status"] in (429, 503)])
def test_retries_the_retryable_problem_vectors_after_retry_after(fake: FakeWarden, make_client: MakeClient, name: str):
    ex = examples("problem")[name]
    client = make_client()
    client.ready(timeout=5)
    client.track("x")
    body = dict(ex["body"])
    fake.answer("/v1/events", ex["status"], body, headers={"Retry-After": "0.05"})
    result = client.flush()
    assert result.sent == 2 and client.stats().retries == 1


def test_an_answer_that_breaks_the_contract_is_an_api_error(fake: FakeWarden, make_client: MakeClient):
    client = make_client(mode="enforce")
    client.ready(timeout=5)
    broken = dict(examples("guard-decision")["allow-enforce"]["body"], policyDecision="maybe")
    fake.answer("/v1/guardrails/evaluate", 200, broken)
    with pytest.raises(ApiError):
        client.guard(tool="t")
    with WardenClient(base_url="http://127.0.0.1:9", api_key="k", agent="a", max_retries=0) as down:
        with pytest.raises(APIConnectionError):
            down.guard(tool="t")
