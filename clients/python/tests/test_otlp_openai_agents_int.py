"""Integration: an OpenAI Agents SDK run (``Runner.run`` with a function tool and a scripted model, no
network) instrumented by OpenInference (``openinference-instrumentation-openai-agents``), exported by
the REAL OpenTelemetry SDK's OTLP/HTTP exporter to ``POST /v1/traces`` of the REAL standalone service
(docs/otel.md), and read back through the API: the session, its runs, the tool call and the LLM calls
with their model and tokens. The adapter that needs no OpenTelemetry (``WardenTracingProcessor``) is
tested in ``test_integrations_openai_agents.py`` / ``test_integrations_int.py``."""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import Any, Dict, List

import pytest

pytestmark = pytest.mark.integration

from agents import Agent, Runner, function_tool  # noqa: E402
from agents.models.chatcmpl_converter import Converter  # noqa: E402
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call  # noqa: E402
from agents.tracing import get_current_span, response_span  # noqa: E402
from agents.usage import Usage  # noqa: E402
from openai.types.responses import Response, ResponseUsage  # noqa: E402
from openai.types.responses.response_usage import InputTokensDetails  # noqa: E402
from openinference.instrumentation import using_session  # noqa: E402
from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor  # noqa: E402
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter  # noqa: E402
from opentelemetry.sdk.resources import Resource  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import BatchSpanProcessor  # noqa: E402

from standalone import Standalone  # noqa: E402
from test_otlp_int import wait_for_session  # noqa: E402
from test_standalone_int import service  # noqa: F401,E402  (the module-scoped standalone fixture)

MODEL = "gpt-4o-mini"
# The run's events, with either way of tracing the model (counted in the test).
EVENTS = 20


@function_tool
def lookup_order(order_id: int) -> str:
    """Looks an order up by its number."""
    return f"order {order_id} ships tomorrow"


def cached(tokens: int) -> InputTokensDetails:
    """Input token details with ``tokens`` read from the prompt cache (``cache_write_tokens`` is
    required by newer ``openai`` releases and ignored by older ones)."""
    return InputTokensDetails.model_validate({"cached_tokens": tokens, "cache_write_tokens": 0})


class ResponsesScriptedModel(ScriptedModel):
    """The SDK's ``ScriptedModel`` traced as its default model (``OpenAIResponsesModel``) traces a call:
    a ``response`` span holding the call's input and the Responses API ``Response`` (model, output,
    usage), which OpenInference turns into an LLM span with its model, messages and token counts."""

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> Any:
        with response_span() as span:
            result = await super().get_response(system_instructions, input, *args, **kwargs)
            usage: Usage = result.usage
            span.span_data.input = input if isinstance(input, list) else [{"role": "user", "content": input}]
            span.span_data.response = Response(
                id=f"resp-{secrets.token_hex(4)}",
                created_at=0,
                model=MODEL,
                object="response",
                instructions=system_instructions,
                output=result.output,
                tool_choice="auto",
                tools=[],
                parallel_tool_calls=True,
                status="completed",
                usage=ResponseUsage.model_validate(
                    {
                        "input_tokens": usage.input_tokens,
                        "input_tokens_details": cached(usage.input_tokens_details.cached_tokens),
                        "output_tokens": usage.output_tokens,
                        "output_tokens_details": {"reasoning_tokens": 0},
                        "total_tokens": usage.input_tokens + usage.output_tokens,
                    }
                ),
            )
            return result


def chat_completions_step(output: List[Any], input_tokens: int, output_tokens: int) -> ModelStep:
    """A scripted step that, like the SDK's ``OpenAIChatCompletionsModel``, writes the model, the
    messages and the usage on the ``generation`` span it runs in."""

    def respond(call: Any) -> ModelStep:
        span = get_current_span()
        assert span is not None and span.span_data.type == "generation"
        span.span_data.model = MODEL
        items = call.input if isinstance(call.input, list) else [{"role": "user", "content": call.input}]
        system = [{"role": "system", "content": call.system_instructions}] if call.system_instructions else []
        span.span_data.input = system + Converter.items_to_messages(items)
        span.span_data.output = Converter.items_to_messages([item.model_dump() for item in output])
        span.span_data.usage = {"input_tokens": input_tokens, "output_tokens": output_tokens}
        return ModelStep(output=output, usage=Usage(requests=1, input_tokens=input_tokens, output_tokens=output_tokens))

    return ModelStep.respond(respond)


def scripted(style: str) -> ScriptedModel:
    """Two model calls: the first asks for ``lookup_order(42)``, the second answers; 50+10 then 70+8 tokens."""
    first = [function_call("lookup_order", {"order_id": 42}, call_id="call_1")]
    last = [assistant_message("Order 42 ships tomorrow.")]
    if style == "responses":
        return ResponsesScriptedModel(
            [
                ModelStep(
                    output=first,
                    usage=Usage(requests=1, input_tokens=50, output_tokens=10, input_tokens_details=cached(20)),
                ),
                ModelStep(output=last, usage=Usage(requests=1, input_tokens=70, output_tokens=8)),
            ]
        )
    return ScriptedModel([chat_completions_step(first, 50, 10), chat_completions_step(last, 70, 8)], emit_traces=True)


@pytest.mark.parametrize("style", ["responses", "chat_completions"])
def test_an_openai_agents_run_traced_by_openinference_becomes_a_session_with_runs_llm_calls_and_a_tool_call(
    service: Standalone, style: str  # noqa: F811
) -> None:
    agent_key = f"pytest-oai-agents-{secrets.token_hex(3)}"
    provider = TracerProvider(resource=Resource.create({"service.name": agent_key}))
    provider.add_span_processor(
        BatchSpanProcessor(
            OTLPSpanExporter(
                endpoint=f"{service.url}/v1/traces", headers={"Authorization": f"Bearer {service.api_key}"}
            )
        )
    )
    instrumentor = OpenAIAgentsInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        agent = Agent(
            name="support", instructions="You are a support bot.", model=scripted(style), tools=[lookup_order]
        )
        with using_session(f"support-{agent_key}"):
            result = asyncio.run(Runner.run(agent, "Where is order 42?", max_turns=4))
        assert result.final_output == "Order 42 ships tomorrow."
        provider.force_flush()
    finally:
        instrumentor.uninstrument()
        provider.shutdown()

    # 5 runs (started/completed): the trace (AGENT "Agent workflow"), the SDK's task span (CHAIN "Agent
    # workflow"), the agent (AGENT "support") and its two turns (CHAIN "turn"); 2 LLM calls with their
    # messages (2 + 3 in, 1 out: the tool-call request has no text) = 10 + 2 + 6 + 2 tool events.
    session = wait_for_session(service, agent_key, EVENTS)
    events: List[Dict[str, Any]] = session["events"]
    assert len(events) == EVENTS
    assert [e["sequence"] for e in events] == list(range(1, len(events) + 1))
    runs = {r["id"]: r for r in session["runs"]}
    assert sorted(r["name"] for r in runs.values()) == ["Agent workflow", "Agent workflow", "support", "turn", "turn"]
    assert {r["status"] for r in runs.values()} == {"succeeded"}
    turns = [e["runId"] for e in events if e["type"] == "agent.run.started" and e["data"]["name"] == "turn"]

    calls = [e for e in events if e["type"] == "agent.llm.called"]
    assert [(c["data"]["model"], c["data"]["inputTokens"], c["data"]["outputTokens"]) for c in calls] == [
        (MODEL, 50, 10),
        (MODEL, 70, 8),
    ]
    assert {c["data"]["provider"] for c in calls} == {"openai"}
    assert [c["runId"] for c in calls] == turns, "each model call is in its own turn"
    if style == "responses":
        assert calls[0]["data"]["cachedInputTokens"] == 20
    assert session["llm"]["calls"] == 2
    assert (session["llm"]["inputTokens"], session["llm"]["outputTokens"]) == (120, 18)
    assert session["llm"]["costUsd"] > 0, "gpt-4o-mini is in the price table"

    [started] = [e for e in events if e["type"] == "agent.tool.started"]
    [completed] = [e for e in events if e["type"] == "agent.tool.completed"]
    assert started["data"]["toolName"] == completed["data"]["toolName"] == "lookup_order"
    assert started["data"]["arguments"] == {"order_id": 42}, "the call's arguments, not the tool's schema"
    assert completed["data"]["result"] == "order 42 ships tomorrow"
    assert completed["data"]["toolCallId"] == started["data"]["toolCallId"]
    assert started["runId"] == turns[0]

    messages = [
        (e["runId"], e["data"]["role"], e["data"]["content"]) for e in events if e["type"] == "agent.message.logged"
    ]
    assert messages[:2] == [(turns[0], "system", "You are a support bot."), (turns[0], "user", "Where is order 42?")]
    assert (turns[1], "tool", "order 42 ships tomorrow") in messages, "the second call reads the tool's output"
    assert messages[-1] == (turns[1], "assistant", "Order 42 ships tomorrow.")
