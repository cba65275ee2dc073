"""``track_llm_call``: what reaches the wire, and what is refused (docs/architecture.md#llm-calls)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.unit


def _llm_events(fake):
    return [e for e in fake.events if e["type"] == "agent.llm.called"]


def test_an_llm_call_carries_its_model_tokens_latency_and_the_run(fake, make_client):
    client = make_client()
    client.ready(timeout=5)
    with client.with_run("answer") as run:
        event_id = run.track_llm_call(
            "gpt-4o-mini", provider="openai", input_tokens=10, output_tokens=3, duration_ms=120.5, cost_usd=0.0002
        )
    client.flush()
    [e] = _llm_events(fake)
    assert e["id"] == event_id
    assert e["runId"] == run.run_id
    assert e["data"] == {
        "operation": "chat",
        "provider": "openai",
        "model": "gpt-4o-mini",
        "inputTokens": 10,
        "outputTokens": 3,
        "durationMs": 120.5,
        "costUsd": 0.0002,
    }


def test_a_failed_call_keeps_the_error_type_and_message(fake, make_client):
    client = make_client()
    client.ready(timeout=5)
    client.track_llm_call("m", error=TimeoutError("read timed out"))
    client.flush()
    [e] = _llm_events(fake)
    assert e["data"]["error"] == {"message": "read timed out", "type": "TimeoutError"}
    assert "runId" not in e


@pytest.mark.parametrize(
    "kwargs",
    [
        {"model": ""},
        {"model": "m", "input_tokens": -1},
        {"model": "m", "output_tokens": 1.5},
        {"model": "m", "duration_ms": float("nan")},
        {"model": "m", "cost_usd": -0.1},
        {"model": "m", "llm_call_id": "not-a-uuid"},
    ],
)
def test_input_that_cannot_be_an_llm_call_sends_nothing(fake, make_client, kwargs):
    client = make_client()
    client.ready(timeout=5)
    model = kwargs.pop("model")
    assert client.track_llm_call(model, **kwargs) == ""
    client.flush()
    assert _llm_events(fake) == []
