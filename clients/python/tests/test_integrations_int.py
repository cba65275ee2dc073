"""Integration: the framework adapters (``agentwarden.integrations``) against the REAL standalone
service, each driven by its real framework and the framework's own scripted model: the OpenAI Agents
SDK (``Runner.run`` + ``agents.testing.ScriptedModel``) and LangGraph (``create_react_agent`` +
LangChain's ``FakeMessagesListChatModel``). Read back through the API: the session, its runs, tool
calls and LLM call events with their tokens; a tool a policy blocks never runs in enforce mode."""

from __future__ import annotations

import asyncio
import secrets
import time
import warnings
from typing import Any, Callable, Dict, List

import pytest

from agentwarden import WardenClient
from standalone import Standalone
from test_standalone_int import service  # noqa: F401  (the module-scoped standalone fixture)

pytestmark = [pytest.mark.integration, pytest.mark.filterwarnings("ignore:create_react_agent has been moved")]

BLOCK_SEND_MONEY = {
    "format": "agent-warden.policies/v1",
    "policies": [
        {
            "name": "adapters: no payments (pytest)",
            "decision": "block",
            "description": "Blocks send_money, for the adapters' integration tests.",
            "match": {"field": "tool.name", "op": "eq", "value": "send_money"},
        }
    ],
}


@pytest.fixture(scope="module")
def blocking(service: Standalone) -> None:  # noqa: F811
    """Imports the policy that blocks ``send_money`` and waits until the gateway applies it."""
    service.post("/v1/policies/import", BLOCK_SEND_MONEY)
    with WardenClient(base_url=service.url, api_key=service.api_key, agent={"key": "pytest-adapters-probe"}) as probe:
        deadline = time.monotonic() + 15
        while probe.guard(tool="send_money").policy_decision != "block":
            assert time.monotonic() < deadline, "the policy was not loaded by the gateway"
            time.sleep(0.2)


def enforce_client(service: Standalone, key: str) -> WardenClient:  # noqa: F811
    return WardenClient(
        base_url=service.url,
        api_key=service.api_key,
        agent={"key": key},
        version=f"pytest-{secrets.token_hex(4)}",
        mode="enforce",
    )


def stored(
    service: Standalone, session_id: str, ready: Callable[[List[Dict[str, Any]]], bool]
) -> Dict[str, Any]:  # noqa: F811
    """The session as the API returns it once its events satisfy ``ready`` (or after 30 s)."""
    deadline = time.monotonic() + 30
    while True:
        try:
            session = service.get(f"/v1/sessions/{session_id}")
        except Exception:  # 404 until the projector stored the session
            session = {"events": []}
        if ready(session["events"]) or time.monotonic() > deadline:
            return session
        time.sleep(0.2)


def of_type(events: List[Dict[str, Any]], type_: str) -> List[Dict[str, Any]]:
    return [e for e in events if e["type"] == type_]


def assert_paid_session(
    service: Standalone, client: WardenClient, ran: List[str], usage: List[tuple]
) -> None:  # noqa: F811
    """What both adapters must show for the scripted run: read_invoice ran, send_money was blocked
    and never ran, three LLM calls with their tokens, all in one run of the session."""
    assert ran == ["read_invoice"], "the blocked send_money never ran"
    session = stored(
        service,
        client.session_id,
        lambda ev: len(of_type(ev, "agent.llm.called")) >= 3 and of_type(ev, "agent.run.completed"),
    )
    events = session["events"]
    calls = of_type(events, "agent.llm.called")
    assert [(c["data"]["inputTokens"], c["data"]["outputTokens"]) for c in calls] == usage
    assert {c["data"]["model"] for c in calls} == {"gpt-4o-mini"}
    tools = of_type(events, "agent.tool.completed")
    assert [t["data"]["toolName"] for t in tools] == ["read_invoice"]
    assert of_type(events, "agent.tool.started")[0]["data"]["arguments"] == {"path": "inv.txt"}
    run_ids = {r["id"] for r in session["runs"]}
    assert {c["runId"] for c in calls} <= run_ids and {t["runId"] for t in tools} <= run_ids
    evaluations = service.get(f"/v1/sessions/{client.session_id}/evaluations")["items"]
    blocked = [e for e in evaluations if e["toolName"] == "send_money"]
    assert [e["policyDecision"] for e in blocked] == ["block"]
    assert [e["effectiveDecision"] for e in blocked] == ["block"]


def test_openai_agents_run_with_a_blocked_payment(service: Standalone, blocking: None) -> None:  # noqa: F811
    from agents import Agent, Runner, function_tool, set_trace_processors
    from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call
    from agents.tracing import get_current_span

    from agentwarden.integrations.openai_agents import WardenTracingProcessor

    ran: List[str] = []

    @function_tool
    def read_invoice(path: str) -> str:
        """Reads an invoice."""
        ran.append("read_invoice")
        return "Invoice 7, 120 EUR"

    @function_tool
    def send_money(recipient: str, amount: float) -> str:
        """Sends money."""
        ran.append("send_money")
        return "sent"

    def step(output: List[Any], inp: int, out: int) -> ModelStep:
        def respond(_call: Any) -> ModelStep:  # as the SDK's Chat Completions model writes its span
            span = get_current_span()
            assert span is not None
            span.span_data.model = "gpt-4o-mini"
            span.span_data.usage = {"input_tokens": inp, "output_tokens": out}
            return ModelStep(output=output)

        return ModelStep.respond(respond)

    model = ScriptedModel(
        [
            step([function_call("read_invoice", {"path": "inv.txt"}, call_id="c1")], 50, 10),
            step([function_call("send_money", {"recipient": "ACME", "amount": 120}, call_id="c2")], 80, 12),
            step([assistant_message("I could not pay: the payment was blocked.")], 100, 4),
        ],
        emit_traces=True,
    )
    client = enforce_client(service, "pytest-openai-agents")
    processor = WardenTracingProcessor(client)
    set_trace_processors([processor])
    try:
        agent = Agent(name="billing", model=model, tools=processor.guard([read_invoice, send_money]))
        result = asyncio.run(Runner.run(agent, "Pay invoice 7", max_turns=5))
    finally:
        set_trace_processors([])
    client.shutdown()
    assert "blocked" in result.final_output
    assert_paid_session(service, client, ran, [(50, 10), (80, 12), (100, 4)])
    runs = stored(service, client.session_id, lambda ev: True)["runs"]
    assert sorted(r["name"] for r in runs) == ["Agent workflow", "billing"]


def test_langgraph_run_with_a_blocked_payment(service: Standalone, blocking: None) -> None:  # noqa: F811
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool

    from agentwarden.integrations.langchain import WardenCallbackHandler

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import create_react_agent

    class ScriptedChatModel(FakeMessagesListChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedChatModel":
            return self

    def ai(content: str, calls: List[Dict[str, Any]], inp: int, out: int) -> AIMessage:
        return AIMessage(
            content=content,
            tool_calls=calls,
            usage_metadata={"input_tokens": inp, "output_tokens": out, "total_tokens": inp + out},
            response_metadata={"model_name": "gpt-4o-mini"},
        )

    ran: List[str] = []

    @tool
    def read_invoice(path: str) -> str:
        """Reads an invoice."""
        ran.append("read_invoice")
        return "Invoice 7, 120 EUR"

    @tool
    def send_money(recipient: str, amount: float) -> str:
        """Sends money."""
        ran.append("send_money")
        return "sent"

    model = ScriptedChatModel(
        responses=[
            ai("", [{"name": "read_invoice", "args": {"path": "inv.txt"}, "id": "c1"}], 50, 10),
            ai("", [{"name": "send_money", "args": {"recipient": "ACME", "amount": 120}, "id": "c2"}], 80, 12),
            ai("I could not pay: the payment was blocked.", [], 100, 4),
        ]
    )
    client = enforce_client(service, "pytest-langgraph")
    handler = WardenCallbackHandler(client)
    graph = create_react_agent(model, handler.guard([read_invoice, send_money]))
    out = graph.invoke({"messages": [("user", "Pay invoice 7")]}, config={"callbacks": [handler]})
    client.shutdown()
    assert "Agent Warden stopped the call to send_money" in [m for m in out["messages"] if m.type == "tool"][-1].content
    assert_paid_session(service, client, ran, [(50, 10), (80, 12), (100, 4)])
    [run] = stored(service, client.session_id, lambda ev: True)["runs"]
    assert run["name"] == "LangGraph"
