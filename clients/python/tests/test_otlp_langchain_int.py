"""Integration: a LangChain run instrumented by OpenInference (``openinference-instrumentation-langchain``)
with a scripted chat model (``FakeListChatModel``, no network), exported by the REAL OpenTelemetry SDK's
OTLP/HTTP exporter to ``POST /v1/traces`` of the REAL standalone service (docs/otel.md)."""

from __future__ import annotations

import json
import secrets
from typing import Any, Dict, List

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.tools import tool
from openinference.instrumentation import using_session
from openinference.instrumentation.langchain import LangChainInstrumentor
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from standalone import Standalone
from test_otlp_int import wait_for_session
from test_standalone_int import service  # noqa: F401  (the module-scoped standalone fixture)

pytestmark = pytest.mark.integration


@tool
def lookup_order(order_id: int) -> str:
    """Looks an order up by its number."""
    return f"order {order_id} ships tomorrow"


def test_a_langchain_run_traced_by_openinference_becomes_a_session_with_runs_an_llm_call_messages_and_a_tool_call(
    service: Standalone,  # noqa: F811
) -> None:
    agent_key = f"pytest-langchain-{secrets.token_hex(3)}"
    provider = TracerProvider(resource=Resource.create({"service.name": agent_key}))
    provider.add_span_processor(
        BatchSpanProcessor(
            OTLPSpanExporter(
                endpoint=f"{service.url}/v1/traces", headers={"Authorization": f"Bearer {service.api_key}"}
            )
        )
    )
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        prompt = ChatPromptTemplate.from_messages(
            [("system", "You are a support bot."), ("human", "Where is order {order_id}?")]
        )
        chain = prompt | FakeListChatModel(responses=["Order 42 ships tomorrow."])
        with using_session(f"support-{agent_key}"):
            assert "ships tomorrow" in lookup_order.invoke({"order_id": 42})
            assert chain.invoke({"order_id": 42}).content == "Order 42 ships tomorrow."
        provider.force_flush()
    finally:
        instrumentor.uninstrument()
        provider.shutdown()

    # tool started/completed, the sequence's run (CHAIN: started/completed), the prompt template
    # (PROMPT: one agent.custom), the model call with its two input messages and one output message.
    session = wait_for_session(service, agent_key, 9)
    events: List[Dict[str, Any]] = session["events"]
    assert len(events) == 9
    [run] = session["runs"]
    assert (run["name"], run["status"]) == ("RunnableSequence", "succeeded")
    [llm] = [e for e in events if e["type"] == "agent.llm.called"]
    assert llm["runId"] == run["id"]
    assert llm["data"]["provider"] == "fakelistchatmodel"
    assert llm["data"]["attributes"]["llm.invocation_parameters"]["_type"] == "fake-list-chat-model"
    [custom] = [e["data"] for e in events if e["type"] == "agent.custom"]
    assert custom["data"]["name"] == "ChatPromptTemplate"
    assert custom["data"]["attributes"]["openinference.span.kind"] == "PROMPT"
    messages = [e["data"] for e in events if e["type"] == "agent.message.logged"]
    assert messages == [
        {"role": "system", "content": "You are a support bot."},
        {"role": "user", "content": "Where is order 42?"},
        {"role": "assistant", "content": "Order 42 ships tomorrow."},
    ]
    started = next(e["data"] for e in events if e["type"] == "agent.tool.started")
    assert started["toolName"] == "lookup_order"
    assert started["arguments"] == {"order_id": 42}
    completed = next(e["data"] for e in events if e["type"] == "agent.tool.completed")
    assert "order 42 ships tomorrow" in json.dumps(completed["result"])
    assert [e["sequence"] for e in events] == list(range(1, len(events) + 1))
