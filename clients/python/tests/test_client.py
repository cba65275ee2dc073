"""The thread client against the HTTP test double: registration, queue and batching, flush
triggers, runs, sessions and sequences, failures, the disabled client."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List

import pytest

from agentwarden import (
    AuthenticationError,
    FlushResult,
    WardenClient,
    is_uuid7,
)
from fake_warden import API_KEY, FakeWarden

pytestmark = pytest.mark.unit

MakeClient = Callable[..., WardenClient]
SRC = str(Path(__file__).resolve().parents[1] / "src")


def seqs(events: List[Dict[str, Any]], session_id: str) -> List[int]:
    return [e["sequence"] for e in events if e["sessionId"] == session_id]


class TestRegistration:
    def test_identifies_at_construction_then_declares_capabilities(self, fake: FakeWarden, make_client: MakeClient):
        client = make_client(
            agent={"key": "billing", "name": "Billing"},
            version={"version": "1.4.2", "metadata": {"model": "gpt-4.1"}},
            capabilities=[
                {"name": "stripe.refund", "risk_level": "high", "action_type": "payment.refund"},
                "crm.lookup",
            ],
        )
        client.ready(timeout=5)
        assert client.agent_id == fake.agent_id
        assert client.agent_version_id == fake.agent_version_id
        identify = fake.requests_to("/v1/agents/identify")
        assert len(identify) == 1
        assert identify[0].body == {
            "agent": {"key": "billing", "name": "Billing"},
            "version": {"version": "1.4.2", "metadata": {"model": "gpt-4.1"}},
        }
        assert identify[0].headers["Authorization"] == f"Bearer {API_KEY}"
        caps = fake.requests_to(re.compile(r"/capabilities$"), "PUT")
        assert len(caps) == 1
        assert caps[0].path == f"/v1/agents/{fake.agent_id}/versions/{fake.agent_version_id}/capabilities"
        assert caps[0].body == {
            "capabilities": [
                {"name": "stripe.refund", "riskLevel": "high", "actionType": "payment.refund"},
                {"name": "crm.lookup"},
            ]
        }
        assert identify[0].at <= caps[0].at
        assert fake.contract_violations == []

    def test_registration_happens_on_a_background_thread(self, fake: FakeWarden, make_client: MakeClient):
        fake.identify_delay_s = 0.3
        t0 = time.monotonic()
        client = make_client()
        assert time.monotonic() - t0 < 0.2
        assert client.agent_id is None
        client.ready(timeout=5)
        assert client.agent_id == fake.agent_id

    def test_retries_registration_on_503_and_sends_no_capabilities_when_none_are_given(
        self, fake: FakeWarden, make_client: MakeClient
    ):
        fake.fail("/v1/agents/identify", 503, times=2)
        client = make_client()
        client.ready(timeout=5)
        assert client.agent_id == fake.agent_id
        assert len(fake.requests_to("/v1/agents/identify")) == 3
        assert fake.requests_to(re.compile("capabilities")) == []
        assert client.stats().retries == 2

    def test_ready_raises_authentication_error_on_401_and_nothing_raises_into_the_agent(
        self, fake: FakeWarden, make_client: MakeClient
    ):
        client = make_client(api_key="wrong-key")
        with pytest.raises(AuthenticationError) as info:
            client.ready(timeout=5)
        assert info.value.status == 401 and info.value.code == "authentication_failed"
        assert info.value.problem is not None and info.value.problem.code == "unauthenticated"
        assert client.track("still.fine") != ""
        with client.with_run("r"):  # its flush gives the events up (the key is refused for good)
            pass
        assert client.stats().failed == 4
        client.track("later")
        result = client.flush()
        assert result.failed == 1 and isinstance(result.error, AuthenticationError)
        assert len(fake.requests_to("/v1/agents/identify")) == 1  # a 401 is final

    def test_fills_agent_ids_of_events_made_before_registration_finished(
        self, fake: FakeWarden, make_client: MakeClient
    ):
        fake.identify_delay_s = 0.2
        client = make_client()
        client.track("early")
        assert client.agent_id is None
        client.flush()
        (custom,) = fake.events_of_type("agent.custom")
        assert custom["agentId"] == fake.agent_id and custom["agentVersionId"] == fake.agent_version_id


class TestQueueAndBatching:
    def test_sends_60_events_in_posts_of_at_most_25(self, fake: FakeWarden, make_client: MakeClient):
        client = make_client()
        client.ready(timeout=5)
        for i in range(60):
            client.track("n", {"i": i})
        result = client.flush()
        posts = fake.requests_to("/v1/events")
        assert all(len(p.body["events"]) <= 25 for p in posts)
        assert sum(len(p.body["events"]) for p in posts) == 61  # + session.started
        assert result.sent + client.stats().sent - result.sent == 61
        assert [e["data"]["data"]["i"] for e in fake.events_of_type("agent.custom")] == list(range(60))

    def test_drops_the_newest_events_when_full_and_counts_them(
        self, fake: FakeWarden, make_client: MakeClient, log_records
    ):
        fake.identify_delay_s = 0.3  # nothing is sent meanwhile
        client = make_client(max_queue_size=10, max_batch_size=500)
        ids = [client.track("n", {"i": i}) for i in range(20)]
        assert all(is_uuid7(i) for i in ids)  # an id even for a dropped event
        assert client.stats().dropped == 11  # session.started + 9 customs fit
        result = client.flush()
        assert result.dropped == 11 and result.sent == 10
        assert [e["data"]["data"]["i"] for e in fake.events_of_type("agent.custom")] == list(range(9))
        assert client.flush().dropped == 0  # reported once
        assert "warden queue full, dropping new events" in log_records.messages(logging.WARNING)

    def test_concurrent_flush_calls_share_one_drain_at_a_time(self, fake: FakeWarden, make_client: MakeClient):
        fake.events_delay_s = 0.02
        client = make_client(max_batch_size=5)
        client.ready(timeout=5)
        for i in range(40):
            client.track("n", {"i": i})
        results: List[FlushResult] = []
        threads = [threading.Thread(target=lambda: results.append(client.flush())) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert fake.max_concurrent_event_posts == 1
        assert len(fake.events) == 41
        assert all(r.queued == 0 for r in results)
        assert [r.sent for r in results] == [41] * 4  # each saw the drain it joined


class TestFlushTriggers:
    def test_a_flushes_on_the_timer(self, fake: FakeWarden, make_client: MakeClient):
        client = make_client(flush_interval_ms=50)
        client.track("tick")
        assert fake.wait_for(lambda: len(fake.events_of_type("agent.custom")) == 1, timeout=3)

    def test_flushes_early_when_max_batch_size_events_wait(self, fake: FakeWarden, make_client: MakeClient):
        client = make_client(max_batch_size=10)
        client.ready(timeout=5)
        for i in range(10):
            client.track("n", {"i": i})
        assert fake.wait_for(lambda: len(fake.events) >= 10, timeout=3)

    def test_b_flush_sends_and_reports(self, fake: FakeWarden, make_client: MakeClient):
        client = make_client()
        client.track("a")
        client.track("b")
        result = client.flush()
        assert (result.sent, result.rejected, result.dropped, result.failed, result.queued, result.error) == (
            3,
            0,
            0,
            0,
            0,
            None,
        )
        assert client.flush() == FlushResult()

    def test_c_a_completing_run_flushes_before_the_block_ends_or_raises(
        self, fake: FakeWarden, make_client: MakeClient
    ):
        client = make_client()
        with client.with_run("ok", input_summary="question") as run:
            run.output_summary = "answer"
        assert [e["type"] for e in fake.events][-1] == "agent.run.completed"
        done = fake.events_of_type("agent.run.completed")[0]["data"]
        assert done["status"] == "succeeded" and done["outputSummary"] == "answer" and done["durationMs"] >= 0

        with pytest.raises(ValueError):
            with client.with_run("boom"):
                raise ValueError("bad input")
        failed = fake.events_of_type("agent.run.completed")[-1]["data"]
        assert failed["status"] == "failed"
        assert failed["error"] == {"message": "bad input", "type": "ValueError"}

    def test_d_shutdown_sends_the_rest_and_stops_the_thread(self, fake: FakeWarden, make_client: MakeClient):
        client = make_client(flush_interval_ms=20)
        client.track("last")
        result = client.shutdown()
        assert result.sent + len(fake.events) >= 2
        assert len(fake.events) == 2
        assert not any(t.name == "agentwarden-flusher" and t.is_alive() for t in threading.enumerate() if t is client._rt.flusher._thread)  # type: ignore[attr-defined]
        client.track("after")  # still safe; sent by the next flush / shutdown
        assert client.shutdown().sent == 1

    def test_e_atexit_sends_what_is_left(self, fake: FakeWarden, tmp_path: Path):
        script = textwrap.dedent(f"""
            from agentwarden import WardenClient
            c = WardenClient(base_url={fake.url!r}, api_key={API_KEY!r}, agent="exit-agent", flush_interval_ms=3600000)
            for i in range(30):
                c.track("n", {{"i": i}})
            # no flush, no shutdown: the atexit hook sends them
            """)
        subprocess.run([sys.executable, "-c", script], check=True, env={**os.environ, "PYTHONPATH": SRC}, timeout=30)
        assert len(fake.events_of_type("agent.custom")) == 30


class TestRunsSessionsSequences:
    def test_session_starts_lazily_and_with_tool_attaches_to_the_current_run(
        self, fake: FakeWarden, make_client: MakeClient
    ):
        client = make_client()
        sid = client.session_id
        with client.with_run("r", attributes={"ticket": 7}) as run:
            assert client.current_run() is run
            with client.with_tool("crm.lookup", arguments={"email": "a@b.c"}, guard=False) as call:
                call.result = {"id": 1}
            client.track_message("user", "hello")
            client.track_action("email.send", "confirm", risk_level="low", resource={"type": "mailbox"})
        assert client.current_run() is None
        client.flush()
        types = [e["type"] for e in fake.events]
        assert types == [
            "agent.session.started",
            "agent.run.started",
            "agent.tool.started",
            "agent.tool.completed",
            "agent.message.logged",
            "agent.action.performed",
            "agent.run.completed",
        ]
        assert all(e["sessionId"] == sid for e in fake.events)
        assert all(e.get("runId") == run.run_id for e in fake.events[1:])
        started = fake.events_of_type("agent.tool.started")[0]
        completed = fake.events_of_type("agent.tool.completed")[0]
        assert completed["parentId"] == started["id"]
        assert completed["data"]["toolCallId"] == started["data"]["toolCallId"]
        assert completed["data"]["result"] == {"id": 1}
        assert (
            fake.events_of_type("agent.run.completed")[0]["parentId"]
            == fake.events_of_type("agent.run.started")[0]["id"]
        )
        assert fake.events_of_type("agent.run.started")[0]["data"]["attributes"] == {"ticket": 7}

    def test_nested_runs_link_to_the_parent_run(self, fake: FakeWarden, make_client: MakeClient):
        client = make_client()
        with client.with_run("outer"):
            with client.with_run("inner") as inner:
                pass
        client.flush()
        outer_started, inner_started = fake.events_of_type("agent.run.started")
        assert inner_started["parentId"] == outer_started["id"]
        assert inner_started["runId"] == inner.run_id != outer_started["runId"]

    def test_numbers_events_1_to_n_per_session_and_a_new_session_starts_at_1(
        self, fake: FakeWarden, make_client: MakeClient
    ):
        client = make_client()
        first = client.start_session(input_summary="first", attributes={"k": "v"})
        threads = [threading.Thread(target=lambda: [client.track("t") for _ in range(50)]) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        client.end_session(output_summary="done")
        second = client.session_id
        assert second != first
        client.track("in second")
        client.flush()
        assert seqs(fake.events, first) == list(range(1, 203))
        assert seqs(fake.events, second) == [1, 2]
        assert fake.events[0]["data"] == {"inputSummary": "first", "attributes": {"k": "v"}}
        assert fake.events_of_type("agent.session.ended")[0]["data"] == {"status": "completed", "outputSummary": "done"}
        assert len({e["id"] for e in fake.events}) == len(fake.events)
        assert all(is_uuid7(e["id"]) for e in fake.events)

    def test_records_replayed_tool_calls_with_their_logged_result_or_error(
        self, fake: FakeWarden, make_client: MakeClient
    ):
        client = make_client()
        ok = client.record_tool("search", arguments={"q": "x"}, result=["a"], duration_ms=12)
        bad = client.record_tool("book", error="seat taken", duration_ms=3)
        exc = client.record_tool("pay", error=TimeoutError("gateway slow"))
        client.flush()
        assert is_uuid7(ok) and is_uuid7(bad)
        done = fake.events_of_type("agent.tool.completed")[0]["data"]
        assert done == {"toolCallId": ok, "toolName": "search", "result": ["a"], "durationMs": 12.0}
        failed = [e["data"] for e in fake.events_of_type("agent.tool.failed")]
        assert failed[0]["error"] == {"message": "seat taken"}
        assert failed[1]["error"] == {"message": "gateway slow", "type": "TimeoutError"}
        assert failed[1]["toolCallId"] == exc

    def test_serialises_awkward_values_safely(self, fake: FakeWarden, make_client: MakeClient):
        import datetime
        import decimal
        import uuid
        from collections import namedtuple
        from dataclasses import dataclass

        @dataclass
        class Order:
            id: int
            total: decimal.Decimal

        Point = namedtuple("Point", "x y")
        cyclic: Dict[str, Any] = {"name": "loop"}
        cyclic["self"] = cyclic
        client = make_client()
        client.track(
            "awkward",
            {
                "when": datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc),
                "id": uuid.UUID(int=1),
                "order": Order(7, decimal.Decimal("9.50")),
                "point": Point(1, 2),
                "set": {3},
                "bytes": b"\x00\x01",
                "nan": float("nan"),
                "err": ValueError("nope"),
                "fn": len,
                "cyclic": cyclic,
                (1, 2): "tuple key",
            },
        )
        client.track("big", "x" * 70_000)
        client.flush()
        data = fake.events_of_type("agent.custom")[0]["data"]["data"]
        assert data["when"] == "2026-01-02T03:04:05+00:00"
        assert data["id"] == "00000000-0000-0000-0000-000000000001"
        assert data["order"] == {"id": 7, "total": "9.50"}
        assert data["point"] == {"x": 1, "y": 2}
        assert data["set"] == [3] and data["bytes"] == "[bytes 2]" and data["nan"] == "NaN"
        assert data["err"] == {"name": "ValueError", "message": "nope"}
        assert data["fn"] == "[Function len]"
        assert data["cyclic"] == {"name": "loop", "self": "[Circular]"}
        assert data["(1, 2)"] == "tuple key"
        big = fake.events_of_type("agent.custom")[1]["data"]["data"]
        assert big["truncated"] is True and big["originalChars"] == 70_002 and len(big["preview"]) == 16_384
        assert fake.contract_violations == []

    def test_message_content_is_cut_at_100000_characters(self, fake: FakeWarden, make_client: MakeClient):
        client = make_client()
        client.track_message("assistant", "y" * 100_001)
        client.flush()
        data = fake.events_of_type("agent.message.logged")[0]["data"]
        assert len(data["content"]) == 100_000 and data["truncated"] is True


class TestFailuresNeverReachTheAgent:
    def test_track_run_flush_shutdown_do_not_raise_when_the_service_is_down(self, make_client: MakeClient):
        client = make_client(base_url="http://127.0.0.1:9", max_retries=1)
        client.track("x")
        client.track_message("user", "hi")
        with client.with_run("r"):
            client.record_tool("t", result=1)
        result = client.flush()
        assert result.error is not None and result.error.retryable and result.queued >= 1
        assert client.shutdown(timeout=2).queued >= 1

    def test_keeps_events_at_the_front_after_a_failed_flush_and_sends_them_later_with_the_same_ids(
        self, fake: FakeWarden, make_client: MakeClient
    ):
        client = make_client(max_retries=1)
        client.ready(timeout=5)
        fake.fail("/v1/events", 503, times=2)
        ids = [client.track("n", {"i": i}) for i in range(3)]
        failed = client.flush()
        assert failed.sent == 0 and failed.queued == 4 and failed.error is not None and failed.error.retryable
        sent = client.flush()
        assert sent.sent == 4 and sent.queued == 0
        posted = [[e["id"] for e in r.body["events"]] for r in fake.requests_to("/v1/events")]
        assert posted[0] == posted[1] == posted[2]  # the same ids on every attempt
        assert [e["id"] for e in fake.events_of_type("agent.custom")] == ids

    def test_does_not_retry_a_batch_refused_with_400_and_counts_it_as_failed(
        self, fake: FakeWarden, make_client: MakeClient, log_records
    ):
        client = make_client()
        client.ready(timeout=5)
        fake.fail("/v1/events", 400)
        client.track("refused")
        result = client.flush()
        assert result.failed == 2 and result.sent == 0 and result.queued == 0
        assert result.error is not None and result.error.code == "validation_failed"
        assert result.error.errors[0].path == "events.0"  # type: ignore[attr-defined]
        assert len(fake.requests_to("/v1/events")) == 1
        assert client.stats().failed == 2
        assert "warden events refused, events lost" in log_records.messages(logging.ERROR)

    def test_retries_a_503_batch_after_retry_after_and_sends_the_same_ids_once(
        self, fake: FakeWarden, make_client: MakeClient
    ):
        client = make_client()
        client.ready(timeout=5)
        fake.fail("/v1/events", 503, headers={"Retry-After": "0.2"})
        client.track("once")
        t0 = time.monotonic()
        result = client.flush()
        assert time.monotonic() - t0 >= 0.2
        assert result.sent == 2 and client.stats().retries == 1
        assert len(fake.events_of_type("agent.custom")) == 1

    def test_counts_events_refused_one_by_one_as_rejected_and_logs_them(
        self, fake: FakeWarden, make_client: MakeClient, log_records
    ):
        client = make_client()
        client.ready(timeout=5)
        bad = client.track("bad")
        fake.reject_ids.add(bad)
        client.track("good")
        result = client.flush()
        assert (result.sent, result.rejected) == (2, 1)
        assert client.stats().rejected == 1
        assert "warden event rejected" in log_records.messages(logging.WARNING)


class TestDisabledClient:
    def test_same_api_synthetic_ids_runs_blocks_and_sends_nothing(self, fake: FakeWarden):
        threads_before = set(threading.enumerate())
        client = WardenClient(enabled=False)
        client.ready()
        assert client.agent_id == "disabled-agent" and client.agent_version_id == "disabled-version"
        assert not client.enabled
        with client.with_run("r") as run:
            with client.with_tool("t", arguments={"a": 1}) as call:
                call.result = 42
            assert call.policy_decision == "allow" and call.effective_decision == "allow"
            with client.with_guard(action={"type": "email.send"}) as checked:
                assert checked.effective_decision == "allow"
            assert is_uuid7(client.track("x"))
            run.output_summary = "ok"
        assert client.guard(tool="t").policy_decision == "allow"
        assert client.flush() == FlushResult() and client.shutdown() == FlushResult()
        assert client.stats().sent == 0
        assert fake.requests == []
        assert set(threading.enumerate()) <= threads_before  # no thread of its own

    def test_disabled_by_warden_enabled_false_without_other_settings(self, monkeypatch: pytest.MonkeyPatch):
        monkeypatch.setenv("WARDEN_ENABLED", "false")
        client = WardenClient()
        assert not client.enabled and client.agent_id == "disabled-agent"


class TestFork:
    @pytest.mark.filterwarnings("ignore:This process .* is multi-threaded, use of fork:DeprecationWarning")
    def test_the_child_gets_its_own_thread_and_session_and_the_parent_keeps_its_events(
        self, fake: FakeWarden, make_client: MakeClient
    ):
        client = make_client()
        client.ready(timeout=5)
        parent_session = client.session_id
        client.track("before fork")  # queued in the parent, not flushed
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: must leave with os._exit
            code = 1
            try:
                os.close(read_fd)
                client.track("in child")
                flusher = client._rt.flusher  # type: ignore[attr-defined]
                alive = flusher._thread is not None and flusher._thread.is_alive()
                result = client.flush(timeout=5)
                os.write(write_fd, f"{client.session_id} {alive} {result.sent}".encode())
                code = 0
            finally:
                os._exit(code)
        os.close(write_fd)
        _, status = os.waitpid(pid, 0)
        child_session, thread_alive, child_sent = os.read(read_fd, 200).decode().split()
        os.close(read_fd)
        assert os.WEXITSTATUS(status) == 0
        assert thread_alive == "True"
        assert child_session != parent_session
        assert int(child_sent) == 2  # session.started + "in child": nothing of the parent's queue
        client.track("after fork")
        client.flush()
        by_session: Dict[str, List[str]] = {}
        for e in fake.events:
            by_session.setdefault(e["sessionId"], []).append(e["data"].get("name", e["type"]))
        assert by_session[parent_session] == ["agent.session.started", "before fork", "after fork"]
        assert by_session[child_session] == ["agent.session.started", "in child"]
        assert seqs(fake.events, parent_session) == [1, 2, 3]
        assert len({e["id"] for e in fake.events}) == len(fake.events)
