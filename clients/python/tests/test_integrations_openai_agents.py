"""The OpenAI Agents SDK adapter (``agentwarden.integrations.openai_agents``) driven by the real SDK
(``Runner.run``) and its own scripted model (``agents.testing.ScriptedModel``), against the local
test double of the service: what the wire gets (runs, LLM calls, tool calls) and what the guard
lets run. The same against the real service: ``test_integrations_int.py``."""

from __future__ import annotations

import asyncio
from typing import Any, Dict, List

import pytest

pytestmark = pytest.mark.unit

from agents import Agent, Runner, function_tool, set_trace_processors  # noqa: E402
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call  # noqa: E402
from agents.tracing import get_current_span  # noqa: E402
from agents.usage import Usage  # noqa: E402

from agentwarden.integrations.openai_agents import WardenTracingProcessor, guard_tool  # noqa: E402

MODEL = "gpt-4o-mini"


def priced(step_output: List[Any], input_tokens: int, output_tokens: int, cached: int = 0) -> ModelStep:
    """A scripted step that, like the SDK's Chat Completions model, writes the model and its usage on
    the generation span it runs in."""

    def respond(call: Any) -> ModelStep:
        span = get_current_span()
        assert span is not None and span.span_data.type == "generation"
        span.span_data.input = call.input if isinstance(call.input, list) else [{"role": "user", "content": call.input}]
        span.span_data.model = MODEL
        span.span_data.usage = {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "input_tokens_details": {"cached_tokens": cached},
        }
        return ModelStep(
            output=step_output, usage=Usage(requests=1, input_tokens=input_tokens, output_tokens=output_tokens)
        )

    return ModelStep.respond(respond)


ran: List[Dict[str, Any]] = []


@function_tool
def read_invoice(path: str) -> str:
    """Reads an invoice."""
    ran.append({"tool": "read_invoice", "path": path})
    return "Invoice 7, 120 EUR"


@function_tool
def send_money(recipient: str, amount: float) -> str:
    """Sends money."""
    ran.append({"tool": "send_money", "recipient": recipient, "amount": amount})
    return "sent"


def script() -> ScriptedModel:
    return ScriptedModel(
        [
            priced([function_call("read_invoice", {"path": "inv.txt"}, call_id="c1")], 50, 10, cached=20),
            priced([function_call("send_money", {"recipient": "ACME", "amount": 120}, call_id="c2")], 80, 12),
            priced([assistant_message("Paid.")], 100, 4),
        ],
        emit_traces=True,
    )


@pytest.fixture(autouse=True)
def _tracing():
    ran.clear()
    yield
    set_trace_processors([])


def run_agent(processor: WardenTracingProcessor, tools: List[Any]) -> Any:
    set_trace_processors([processor])
    model = script()
    agent = Agent(name="billing", instructions="Pay invoices.", model=model, tools=tools)
    result = asyncio.run(Runner.run(agent, "Pay invoice 7", max_turns=5))
    return result


def by_type(fake, type_: str) -> List[Dict[str, Any]]:
    return [e for e in fake.events if e["type"] == type_]


def test_a_run_becomes_runs_llm_calls_with_tokens_and_tool_calls(fake, make_client):
    client = make_client()
    processor = WardenTracingProcessor(client)
    result = run_agent(processor, [read_invoice, send_money])
    client.flush()
    assert result.final_output == "Paid."

    started = by_type(fake, "agent.run.started")
    workflow = next(e for e in started if e["data"]["name"] == "Agent workflow")
    agent_run = next(e for e in started if e["data"]["name"] == "billing")
    assert agent_run["parentId"] == workflow["id"], "the agent's run is a child of the trace's run"
    assert agent_run["data"]["attributes"]["framework"] == "openai-agents"
    completed = by_type(fake, "agent.run.completed")
    assert sorted(e["runId"] for e in completed) == sorted([workflow["runId"], agent_run["runId"]])
    assert all(e["data"]["status"] == "succeeded" for e in completed)

    calls = by_type(fake, "agent.llm.called")
    assert [(c["data"]["inputTokens"], c["data"]["outputTokens"]) for c in calls] == [(50, 10), (80, 12), (100, 4)]
    assert calls[0]["data"]["cachedInputTokens"] == 20
    assert {c["data"]["model"] for c in calls} == {MODEL}
    assert {c["data"]["provider"] for c in calls} == {"openai"}
    assert {c["runId"] for c in calls} == {agent_run["runId"]}
    assert all(c["data"]["durationMs"] >= 0 for c in calls)

    tools = by_type(fake, "agent.tool.completed")
    assert [t["data"]["toolName"] for t in tools] == ["read_invoice", "send_money"]
    assert {t["runId"] for t in tools} == {agent_run["runId"]}
    tool_started = by_type(fake, "agent.tool.started")
    assert tool_started[1]["data"]["arguments"] == {"recipient": "ACME", "amount": 120}
    assert fake.requests_to("/v1/guardrails/evaluate") == [], "unguarded tools are recorded, not guarded"


def test_a_guarded_tool_is_checked_before_it_runs_and_recorded_once(fake, make_client):
    client = make_client(mode="enforce")
    processor = WardenTracingProcessor(client)
    run_agent(processor, processor.guard([read_invoice, send_money]))
    client.flush()
    evaluated = [r.body["tool"]["name"] for r in fake.requests_to("/v1/guardrails/evaluate")]
    assert evaluated == ["read_invoice", "send_money"]
    send = fake.requests_to("/v1/guardrails/evaluate")[1].body
    assert send["arguments"] == {"recipient": "ACME", "amount": 120}
    assert [a["path"] for a in send["provenance"]["arguments"]] == ["recipient", "amount"]
    tools = by_type(fake, "agent.tool.completed")
    assert [t["data"]["toolName"] for t in tools] == ["read_invoice", "send_money"], "once each, not twice"
    agent_run = next(e for e in by_type(fake, "agent.run.started") if e["data"]["name"] == "billing")
    assert {t["runId"] for t in tools} == {agent_run["runId"]}
    assert [r["tool"] for r in ran] == ["read_invoice", "send_money"]


def test_what_the_user_typed_is_trusted_and_tool_output_is_not(fake, make_client):
    client = make_client(mode="enforce")
    processor = WardenTracingProcessor(client)
    set_trace_processors([processor])
    agent = Agent(name="billing", model=script(), tools=processor.guard([read_invoice, send_money]))
    asyncio.run(Runner.run(agent, "Pay ACME what invoice 7 says", max_turns=5))
    client.flush()
    send = fake.requests_to("/v1/guardrails/evaluate")[1].body
    origins = {a["path"]: a["origin"] for a in send["provenance"]["arguments"]}
    assert origins["recipient"] == "user", "ACME is in the user's message"
    assert origins["amount"] == "tool", "120 came from read_invoice's output"


def test_a_blocked_tool_never_runs_and_the_model_reads_why(fake, make_client):
    fake.decide = lambda body: "block" if body["tool"]["name"] == "send_money" else "allow"
    client = make_client(mode="enforce")
    processor = WardenTracingProcessor(client)
    model = script()
    set_trace_processors([processor])
    agent = Agent(name="billing", model=model, tools=processor.guard([read_invoice, send_money]))
    asyncio.run(Runner.run(agent, "Pay invoice 7", max_turns=5))
    client.flush()
    assert [r["tool"] for r in ran] == ["read_invoice"], "send_money's code never ran"
    tool_output = [i for i in model.last_call.input if i.get("type") == "function_call_output"][-1]["output"]
    assert "Agent Warden stopped the call to send_money" in tool_output and "Reason: test" in tool_output
    assert [t["data"]["toolName"] for t in by_type(fake, "agent.tool.started")] == ["read_invoice"]


def test_on_block_raise_ends_the_run_with_the_guard_error(fake, make_client):
    from agentwarden import GuardrailBlockedError

    fake.decide = lambda body: "block"
    client = make_client(mode="enforce")
    processor = WardenTracingProcessor(client)
    with pytest.raises(Exception) as ended:
        run_agent(processor, processor.guard([read_invoice], on_block="raise"))
    assert isinstance(ended.value.__cause__, GuardrailBlockedError), "the SDK's UserError wraps the guard's error"
    client.flush()
    assert ran == []
    agent_done = [e for e in by_type(fake, "agent.run.completed") if e["data"]["status"] == "failed"]
    assert agent_done, "the agent's run ends failed"


def test_monitor_mode_runs_a_blocked_tool_and_records_the_decision(fake, make_client):
    fake.decide = lambda body: "block"
    client = make_client(mode="monitor")
    run_agent(WardenTracingProcessor(client), [guard_tool(client, read_invoice), guard_tool(client, send_money)])
    client.flush()
    assert [r["tool"] for r in ran] == ["read_invoice", "send_money"]
    assert len(fake.requests_to("/v1/guardrails/evaluate")) == 2


def test_a_bad_on_block_is_refused(make_client):
    with pytest.raises(ValueError, match="on_block"):
        guard_tool(make_client(), read_invoice, on_block="ignore")
