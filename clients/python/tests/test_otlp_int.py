"""Integration: OpenTelemetry traces from the REAL Python SDK (``opentelemetry-sdk`` and its OTLP/HTTP
exporter, protobuf with gzip) to ``POST /v1/traces`` of the REAL standalone service (docs/otel.md).
The TypeScript half, with the JS SDK's exporters, is ``test/otlp.int.test.ts``."""

from __future__ import annotations

import secrets
import time
from typing import Any, Dict, List

import pytest
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode

from standalone import Standalone
from test_standalone_int import service  # noqa: F401  (the module-scoped standalone fixture)

pytestmark = pytest.mark.integration


def wait_for_session(service: Standalone, agent_key: str, events: int) -> Dict[str, Any]:  # noqa: F811
    """The only session of the agent ``agent_key`` once ``events`` of its events are stored."""
    deadline = time.monotonic() + 30
    while True:
        agents = [a for a in service.get("/v1/agents")["items"] if a["key"] == agent_key]
        if agents:
            sessions = service.get(f"/v1/sessions?agentId={agents[0]['id']}")["items"]
            if sessions:
                detail: Dict[str, Any] = service.get(f"/v1/sessions/{sessions[0]['id']}")
                if len(detail["events"]) >= events:
                    return detail
        assert time.monotonic() < deadline, f"no session of {agent_key} with {events} events"
        time.sleep(0.2)


def test_genai_spans_from_the_python_sdk_become_a_session_with_a_run_an_llm_call_and_a_tool_call(
    service: Standalone,  # noqa: F811
) -> None:
    agent_key = f"pytest-otel-{secrets.token_hex(3)}"
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": agent_key, "service.version": "3.1.0"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("pytest-otlp")

    with tracer.start_as_current_span(
        "invoke_agent support",
        attributes={
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "support",
            "gen_ai.conversation.id": f"conv-{agent_key}",
        },
    ):
        with tracer.start_as_current_span(
            "chat gpt-4o-mini",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "gpt-4o-mini",
                "gen_ai.usage.input_tokens": 80,
                "gen_ai.usage.output_tokens": 16,
            },
        ):
            pass
        with tracer.start_as_current_span(
            "execute_tool get_weather",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_weather",
                "gen_ai.tool.call.id": "call_42",
                "gen_ai.tool.call.arguments": '{"city": "Oslo"}',
                "gen_ai.tool.call.result": '{"celsius": -3}',
            },
        ):
            pass
        with tracer.start_as_current_span(
            "execute_tool send_email",
            attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "send_email"},
        ) as failing:
            failing.set_status(Status(StatusCode.ERROR, "smtp refused"))
    spans = memory.get_finished_spans()
    assert len(spans) == 4

    exporter = OTLPSpanExporter(
        endpoint=f"{service.url}/v1/traces",
        headers={"Authorization": f"Bearer {service.api_key}"},
        compression=Compression.Gzip,
    )
    assert exporter.export(spans) == SpanExportResult.SUCCESS
    # The exporter sends the same batch again (a retry after a lost answer): nothing is stored twice.
    assert exporter.export(spans) == SpanExportResult.SUCCESS
    exporter.shutdown()

    # run started/completed, LLM call, two tools × (started + completed/failed) = 7 events.
    session = wait_for_session(service, agent_key, 7)
    events: List[Dict[str, Any]] = session["events"]
    assert sorted(e["type"] for e in events) == sorted(
        [
            "agent.run.started",
            "agent.run.completed",
            "agent.llm.called",
            "agent.tool.started",
            "agent.tool.completed",
            "agent.tool.started",
            "agent.tool.failed",
        ]
    )
    assert [e["sequence"] for e in events] == list(range(1, 8))
    assert session["runs"][0]["name"] == "support" and session["runs"][0]["status"] == "succeeded"
    llm = next(e["data"] for e in events if e["type"] == "agent.llm.called")
    assert (llm["model"], llm["provider"], llm["inputTokens"], llm["outputTokens"]) == ("gpt-4o-mini", "openai", 80, 16)
    started = next(
        e["data"] for e in events if e["type"] == "agent.tool.started" and e["data"]["toolName"] == "get_weather"
    )
    assert started["arguments"] == {"city": "Oslo"}
    completed = next(e["data"] for e in events if e["type"] == "agent.tool.completed")
    assert completed["result"] == {"celsius": -3} and completed["toolCallId"] == started["toolCallId"]
    failed = next(e["data"] for e in events if e["type"] == "agent.tool.failed")
    assert failed["toolName"] == "send_email" and failed["error"]["message"] == "smtp refused"
    agent = next(a for a in service.get("/v1/agents")["items"] if a["key"] == agent_key)
    assert [v["version"] for v in agent["versions"]] == ["3.1.0"]

    # Stored once although exported twice (standalone answers after its write-through bus stored the
    # events, so both exports are in the database by now): exactly seven events.
    again = service.get(f"/v1/sessions/{session['id']}")
    assert len(again["events"]) == 7
