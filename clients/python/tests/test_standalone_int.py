"""Integration: the Python client against the REAL service (the standalone service started by the
test, on a fresh PostgreSQL database)."""

from __future__ import annotations

import json
import logging
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

from agentwarden import (
    EVENT_TYPES,
    ApprovalDeniedError,
    AsyncWardenClient,
    GuardrailBlockedError,
    WardenClient,
)
from standalone import REPO, ScratchDatabase, Standalone, psql

pytestmark = pytest.mark.integration

PY_ROOT = Path(__file__).resolve().parents[1]
TRAJECTORIES = (
    Path(os.environ.get("WARDEN_TRAJECTORIES_DIR", "/work/shared/data/trajectories")) / "tau_bench_airline.jsonl"
)

#: Decides an approval through the API, from another process: reads the approval id on stdin.
APPROVER = r"""
import json, sys, time, urllib.request
url, key, status = sys.argv[1:4]
approval_id = sys.stdin.readline().strip()
time.sleep(0.3)
body = {"status": status, "comment": "decided by the approver process", "decidedBy": "approver-process"}
req = urllib.request.Request(
    f"{url}/v1/approvals/{approval_id}/decision", data=json.dumps(body).encode(), method="POST",
    headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
)
with urllib.request.urlopen(req, timeout=30) as res:
    print(res.status, json.loads(res.read())["status"], approval_id)
"""


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Standalone]:
    db = ScratchDatabase().create()
    api_key = "aw_" + secrets.token_hex(20)
    svc = Standalone(database_url=db.url, data_dir=tmp_path_factory.mktemp("warden-data"), api_key=api_key)
    try:
        svc.start()
        svc.db = db  # type: ignore[attr-defined]
        yield svc
    finally:
        svc.stop()
        db.drop()


def client_for(service: Standalone, key: str, **options: Any) -> WardenClient:
    return WardenClient(
        base_url=service.url,
        api_key=service.api_key,
        agent={"key": key},
        version=f"pytest-{secrets.token_hex(4)}",
        **options,
    )


def test_registers_and_every_event_is_stored_exactly_once(service: Standalone):
    client = client_for(service, "pytest-telemetry", capabilities=[{"name": "search", "risk_level": "low"}])
    client.ready(timeout=30)
    with client.with_run("answer", input_summary="what is the weather") as run:
        client.track_message("user", "what is the weather?")
        for i in range(30):
            with client.with_tool("search", arguments={"q": f"weather {i}"}) as call:
                call.result = {"temp": i}
        with pytest.raises(RuntimeError):
            with client.with_tool("broken"):
                raise RuntimeError("tool crashed")
        client.track_action("email.send", "notify", risk_level="low")
        client.track("cache.hit", {"n": 1})
        run.output_summary = "sunny"
    client.end_session(output_summary="done")
    result = client.shutdown()
    stats = client.stats()
    assert result.error is None and stats.failed == 0 and stats.rejected == 0 and stats.dropped == 0
    stored = service.wait_for_stats([client.agent_version_id], stats.sent)  # type: ignore[list-item]
    assert stored["events"] == stats.sent == 100
    assert stored["duplicates"] == 0
    assert stored["byType"]["agent.tool.started"] == 31 and stored["byType"]["agent.tool.failed"] == 1
    assert stored["byType"]["agent.guardrail.evaluated"] == 31
    assert set(stored["byType"]) <= set(EVENT_TYPES)
    (agent,) = [a for a in service.get("/v1/agents")["items"] if a["id"] == client.agent_id]
    assert agent["key"] == "pytest-telemetry"
    (version,) = [v for v in agent["versions"] if v["id"] == client.agent_version_id]
    assert version["capabilities"] == [{"name": "search", "kind": "tool", "riskLevel": "low"}]


@pytest.fixture(scope="module")
def refund_policy(service: Standalone) -> Dict[str, str]:
    """A ``require_approval`` policy on ``payments.refund`` and a ``block`` one on ``db.drop``,
    inserted in PostgreSQL (the gateways reload policies within a second)."""
    db_url = service.db.url  # type: ignore[attr-defined]
    project_id = psql(db_url, "SELECT id FROM projects ORDER BY created_at LIMIT 1")
    assert project_id == service.project_id
    ids = {}
    for name, decision, match, approval in (
        (
            "refunds need a human (pytest)",
            "require_approval",
            {"field": "tool.name", "op": "eq", "value": "payments.refund"},
            {"timeoutSeconds": 120, "onTimeout": "deny"},
        ),
        ("no drops (pytest)", "block", {"field": "tool.name", "op": "eq", "value": "db.drop"}, None),
    ):
        ids[decision] = psql(
            db_url,
            "INSERT INTO policies (id, project_id, name, description, enabled, decision, match, approval, version, created_at, updated_at) "
            f"VALUES (gen_random_uuid(), '{project_id}', '{name}', 'inserted by the Python client tests', true, '{decision}', "
            f"'{json.dumps(match)}'::jsonb, {('$$' + json.dumps(approval) + '$$::jsonb') if approval else 'NULL'}, 1, now(), now()) RETURNING id",
        ).splitlines()[0]
    # Wait until the gateway has loaded them (dry runs have no side effects).
    with client_for(service, "pytest-policy-probe", mode="enforce") as probe:
        deadline = time.monotonic() + 10
        while probe.guard(tool="payments.refund").policy_decision != "require_approval":
            assert time.monotonic() < deadline, "policy not loaded by the gateway"
            time.sleep(0.2)
    return ids


class ApproverProcess:
    """Another process that decides the approval the client waits for, through the API."""

    def __init__(self, service: Standalone, status: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", APPROVER, service.url, service.api_key, status],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.approval_ids: List[str] = []

    def handler(self) -> logging.Handler:
        approver = self

        class PassApprovalId(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                fields = getattr(record, "warden", {})
                if record.msg.startswith("warden waiting for approval") and approver.proc.stdin:
                    approver.approval_ids.append(fields["approvalId"])
                    approver.proc.stdin.write(fields["approvalId"] + "\n")
                    approver.proc.stdin.flush()

        return PassApprovalId(logging.INFO)

    def result(self) -> str:
        out, err = self.proc.communicate(timeout=30)
        assert self.proc.returncode == 0, err
        return out.strip()


@pytest.fixture
def agentwarden_info_logs() -> Iterator[logging.Logger]:
    logger = logging.getLogger("agentwarden")
    level = logger.level
    logger.setLevel(logging.INFO)
    yield logger
    logger.setLevel(level)


@pytest.mark.parametrize("decision", ["approved", "denied"])
def test_enforce_mode_waits_for_an_approval_decided_by_another_process(
    service: Standalone, refund_policy: Dict[str, str], agentwarden_info_logs: logging.Logger, decision: str
):
    client = client_for(service, f"pytest-approvals-{decision}", mode="enforce", flush_interval_ms=200)
    client.ready(timeout=30)
    approver = ApproverProcess(service, decision)
    handler = approver.handler()
    agentwarden_info_logs.addHandler(handler)
    ran: List[str] = []
    t0 = time.monotonic()
    try:
        with client.with_run("refund-ticket"):
            if decision == "approved":
                with client.with_tool("payments.refund", arguments={"amount": 120}, risk_level="high") as call:
                    ran.append("refund")
                    call.result = {"refunded": 120}
                assert call.approval is not None and call.approval.status == "approved"
                assert call.approval.decided_by == "approver-process"
                assert call.policy_decision == call.effective_decision == "require_approval"
            else:
                with pytest.raises(ApprovalDeniedError) as info:
                    with client.with_tool("payments.refund", arguments={"amount": 120}, risk_level="high"):
                        ran.append("refund")
                assert info.value.approval.status == "denied" and info.value.approval.decided_by == "approver-process"
            with pytest.raises(GuardrailBlockedError):
                with client.with_tool("db.drop", arguments={"table": "users"}):
                    ran.append("drop")
    finally:
        agentwarden_info_logs.removeHandler(handler)
    waited = time.monotonic() - t0
    assert approver.result().startswith(f"200 {decision} ")
    assert ran == (["refund"] if decision == "approved" else [])
    assert 0.3 <= waited < 25
    (approval_id,) = approver.approval_ids
    row = psql(service.db.url, f"SELECT status, decided_by FROM approvals WHERE id = '{approval_id}'")  # type: ignore[attr-defined]
    assert row == f"{decision}|approver-process"

    client.shutdown()
    stats = client.stats()
    stored = service.wait_for_stats([client.agent_version_id], stats.sent)  # type: ignore[list-item]
    assert stored["events"] == stats.sent and stored["duplicates"] == 0
    by_type = stored["byType"]
    assert by_type["agent.approval.requested"] == by_type["agent.approval.resolved"] == 1
    assert by_type.get("agent.tool.completed", 0) == (1 if decision == "approved" else 0)
    assert by_type["agent.guardrail.evaluated"] == 2


def test_the_async_client_against_the_service(service: Standalone):
    import asyncio

    async def main() -> Any:
        async with AsyncWardenClient(base_url=service.url, api_key=service.api_key, agent="pytest-async") as client:
            await client.ready(timeout=30)
            async with client.with_run("async-run"):
                for i in range(5):
                    async with client.with_tool("lookup", arguments={"i": i}) as call:
                        call.result = i
            return client

    client = asyncio.run(main())
    stored = service.wait_for_stats([client.agent_version_id], client.stats().sent)  # type: ignore[list-item]
    assert stored["events"] == client.stats().sent == 18 and stored["duplicates"] == 0


def test_scores_from_the_sync_and_async_clients_are_stored_exactly_once(service: Standalone):
    import asyncio

    from agentwarden import uuid7

    score_id = uuid7()
    client = client_for(service, "pytest-scores")
    client.ready(timeout=30)
    with client.with_run("book") as run:
        run.score("reward", 0.0, comment="wrong seat", score_id=score_id)
    client.score("task_succeeded", False)
    client.score("reward", 1.0, score_id=score_id)  # the same id again: stored once
    session_id = client.session_id
    result = client.shutdown(timeout=30)
    assert result.failed == result.rejected == result.dropped == 0

    async def main() -> str:
        async with AsyncWardenClient(base_url=service.url, api_key=service.api_key, agent="pytest-async-scores") as c:
            c.score("helpfulness", "good", source="human")
            await c.flush()
            return c.session_id

    async_session = asyncio.run(main())
    rows = psql(
        service.db.url,  # type: ignore[attr-defined]
        "SELECT name || ':' || data_type || ':' || coalesce(numeric_value::text, string_value) || ':' || source "
        f"FROM scores WHERE session_id IN ('{session_id}', '{async_session}') ORDER BY time, name",
    ).splitlines()
    assert rows == ["reward:numeric:0:rule", "task_succeeded:boolean:0:rule", "helpfulness:categorical:good:human"]
    assert psql(service.db.url, f"SELECT count(*) FROM scores WHERE id = '{score_id}'") == "1"  # type: ignore[attr-defined]


def test_replaying_tau_bench_airline_stores_every_event_exactly_once(service: Standalone):
    assert TRAJECTORIES.exists(), f"{TRAJECTORIES} is missing: the shared data must sit beside the repository"
    out = subprocess.run(
        [
            sys.executable,
            str(PY_ROOT / "scripts" / "replay.py"),
            "--url",
            service.url,
            "--api-key",
            service.api_key,
            str(TRAJECTORIES),
        ],
        capture_output=True,
        text=True,
        timeout=170,
        cwd=REPO,
    )
    assert out.returncode == 0, out.stderr[-3000:] + out.stdout[-2000:]
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    print("replay summary:", json.dumps(summary))
    with open(TRAJECTORIES, encoding="utf-8") as f:
        expected = sum(1 for line in f if line.strip())
    assert summary["trajectories"] == expected == 160
    assert summary["events_sent"] > 0
    assert summary["events_stored"] == summary["events_sent"]
    assert summary["duplicates"] == 0 and summary["missing"] == 0
    assert summary["client"] == {"dropped": 0, "failed": 0, "rejected": 0, "retries": 0}
    # Read back independently.
    stats = service.stats(*summary["agentVersionIds"])
    assert stats["events"] == summary["events_sent"] and stats["duplicates"] == 0
    assert stats["sessions"] == 160
