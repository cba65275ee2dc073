"""with_run / with_tool / with_guard as decorators of plain functions."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from agentwarden import GuardrailBlockedError, WardenClient
from fake_warden import FakeWarden

pytestmark = pytest.mark.unit

MakeClient = Callable[..., WardenClient]


def test_tool_decorator_records_arguments_and_result_and_failures(fake: FakeWarden, make_client: MakeClient):
    client = make_client()

    @client.with_tool(risk_level="high", action_type="payment.refund")
    def refund(charge_id: str, amount: int = 10) -> dict:
        return {"refunded": amount, "charge": charge_id}

    @client.with_tool
    def explode() -> None:
        raise KeyError("missing")

    @client.with_run("ticket")
    def handle() -> Any:
        out = refund("ch_1", amount=120)
        with pytest.raises(KeyError):
            explode()
        return out

    assert handle() == {"refunded": 120, "charge": "ch_1"}
    started = fake.events_of_type("agent.tool.started")
    assert started[0]["data"] == {
        "toolCallId": started[0]["data"]["toolCallId"],
        "toolName": "refund",
        "arguments": {"charge_id": "ch_1", "amount": 120},
        "actionType": "payment.refund",
        "riskLevel": "high",
    }
    assert fake.events_of_type("agent.tool.completed")[0]["data"]["result"] == {"refunded": 120, "charge": "ch_1"}
    failed = fake.events_of_type("agent.tool.failed")[0]["data"]
    assert failed["toolName"] == "explode" and failed["error"]["type"] == "KeyError"
    run_id = fake.events_of_type("agent.run.started")[0]["runId"]
    assert all(e["runId"] == run_id for e in started)


def test_each_decorated_call_is_its_own_tool_call(fake: FakeWarden, make_client: MakeClient):
    client = make_client()

    @client.with_tool("echo", guard=False)
    def echo(x: int) -> int:
        return x

    assert [echo(i) for i in range(3)] == [0, 1, 2]
    client.flush()
    ids = [e["data"]["toolCallId"] for e in fake.events_of_type("agent.tool.started")]
    assert len(set(ids)) == 3
    assert [e["data"]["arguments"] for e in fake.events_of_type("agent.tool.started")] == [{"x": 0}, {"x": 1}, {"x": 2}]


def test_guard_decorator_blocks_in_enforce(fake: FakeWarden, make_client: MakeClient):
    fake.decide = lambda body: "block"
    client = make_client(mode="enforce")
    calls = []

    @client.with_guard(action={"type": "email.bulk", "name": "newsletter"})
    def send() -> None:
        calls.append(1)

    with pytest.raises(GuardrailBlockedError):
        send()
    assert calls == []


def test_run_context_methods_attach_to_the_run_from_another_thread(fake: FakeWarden, make_client: MakeClient):
    import threading

    client = make_client()
    with client.with_run("parent") as run:

        def work() -> None:
            assert client.current_run() is None  # a new thread starts outside the run…
            with run.with_tool("in.thread", guard=False) as call:  # …unless the run is passed
                call.result = 1
            run.track("note", {"a": 1})

        t = threading.Thread(target=work)
        t.start()
        t.join()
    client.flush()
    assert all(e.get("runId") == run.run_id for e in fake.events[1:])
    assert {e["type"] for e in fake.events} >= {"agent.tool.started", "agent.custom"}


def test_a_cancelled_run_and_reuse_of_an_entered_span(fake: FakeWarden, make_client: MakeClient):
    client = make_client()
    span = client.with_run("r")
    with span as run:
        run.cancel()
        with pytest.raises(RuntimeError):
            span.__enter__()
    assert fake.events_of_type("agent.run.completed")[0]["data"]["status"] == "cancelled"
    with pytest.raises(KeyboardInterrupt):
        with client.with_run("interrupted"):
            raise KeyboardInterrupt
    assert fake.events_of_type("agent.run.completed")[1]["data"]["status"] == "cancelled"
