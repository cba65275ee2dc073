"""The LangChain / LangGraph adapter (``agentwarden.integrations.langchain``) driven by a real
LangGraph ReAct agent (``langgraph.prebuilt.create_react_agent``: model node, ``ToolNode``) and
LangChain's own scripted chat model (``FakeMessagesListChatModel``), against the local test double
of the service. The same against the real service: ``test_integrations_int.py``."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any, Dict, List

import pytest
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

from agentwarden.integrations.langchain import WardenCallbackHandler, guard_tool

pytestmark = [pytest.mark.unit, pytest.mark.filterwarnings("ignore:create_react_agent has been moved")]

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langgraph.prebuilt import create_react_agent

MODEL = "gpt-4o-mini"


class ScriptedChatModel(FakeMessagesListChatModel):
    """LangChain's list-scripted chat model, plus ``bind_tools`` (the tools are the script's business)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedChatModel":
        return self


def ai(content: str, tool_calls: List[Dict[str, Any]], tokens: tuple) -> AIMessage:
    """An answer as ChatOpenAI returns it: tool calls, usage metadata, the model that answered."""
    inp, out, cached = tokens
    return AIMessage(
        content=content,
        tool_calls=tool_calls,
        usage_metadata={
            "input_tokens": inp,
            "output_tokens": out,
            "total_tokens": inp + out,
            "input_token_details": {"cache_read": cached},
        },
        response_metadata={"model_name": MODEL, "finish_reason": "tool_calls" if tool_calls else "stop"},
    )


def script() -> ScriptedChatModel:
    return ScriptedChatModel(
        responses=[
            ai("", [{"name": "read_invoice", "args": {"path": "inv.txt"}, "id": "c1"}], (50, 10, 20)),
            ai("", [{"name": "send_money", "args": {"recipient": "ACME", "amount": 120}, "id": "c2"}], (80, 12, 0)),
            ai("Paid.", [], (100, 4, 0)),
        ]
    )


ran: List[Dict[str, Any]] = []


@tool
def read_invoice(path: str) -> str:
    """Reads an invoice."""
    ran.append({"tool": "read_invoice", "path": path})
    return "Invoice 7, 120 EUR"


@tool
def send_money(recipient: str, amount: float) -> str:
    """Sends money."""
    ran.append({"tool": "send_money", "recipient": recipient})
    return "sent"


@pytest.fixture(autouse=True)
def _clear():
    ran.clear()


def by_type(fake, type_: str) -> List[Dict[str, Any]]:
    return [e for e in fake.events if e["type"] == type_]


def invoke(handler: WardenCallbackHandler, tools: List[Any], model: Any = None) -> Dict[str, Any]:
    agent = create_react_agent(model or script(), tools)
    return agent.invoke({"messages": [("user", "Pay invoice 7")]}, config={"callbacks": [handler]})


def test_a_graph_run_becomes_a_run_with_llm_calls_and_tool_calls(fake, make_client):
    client = make_client()
    handler = WardenCallbackHandler(client)
    out = invoke(handler, [read_invoice, send_money])
    client.flush()
    assert out["messages"][-1].content == "Paid."

    [run] = by_type(fake, "agent.run.started")
    assert run["data"]["name"] == "LangGraph"
    assert run["data"]["inputSummary"] == "Pay invoice 7"
    [done] = by_type(fake, "agent.run.completed")
    assert done["data"]["status"] == "succeeded" and done["data"]["outputSummary"] == "Paid."

    calls = by_type(fake, "agent.llm.called")
    assert [(c["data"]["inputTokens"], c["data"]["outputTokens"]) for c in calls] == [(50, 10), (80, 12), (100, 4)]
    assert calls[0]["data"]["cachedInputTokens"] == 20
    assert [c["data"]["finishReasons"] for c in calls] == [["tool_calls"], ["tool_calls"], ["stop"]]
    assert {c["data"]["responseModel"] for c in calls} == {MODEL}
    assert {c["runId"] for c in calls} == {run["runId"]}

    started = by_type(fake, "agent.tool.started")
    assert [(t["data"]["toolName"], t["data"]["arguments"]) for t in started] == [
        ("read_invoice", {"path": "inv.txt"}),
        ("send_money", {"recipient": "ACME", "amount": 120}),
    ]
    completed = by_type(fake, "agent.tool.completed")
    assert [t["data"]["result"] for t in completed] == ["Invoice 7, 120 EUR", "sent"]
    assert {t["runId"] for t in completed} == {run["runId"]}
    assert fake.requests_to("/v1/guardrails/evaluate") == []


def test_guarded_tools_are_checked_with_provenance_and_recorded_once(fake, make_client):
    client = make_client(mode="enforce")
    handler = WardenCallbackHandler(client)
    invoke(handler, handler.guard([read_invoice, send_money]))
    client.flush()
    checks = [r.body for r in fake.requests_to("/v1/guardrails/evaluate")]
    assert [c["tool"]["name"] for c in checks] == ["read_invoice", "send_money"]
    assert checks[1]["arguments"] == {"recipient": "ACME", "amount": 120}
    [path] = [a for a in checks[0]["provenance"]["arguments"] if a["path"] == "path"]
    assert path["origin"] == "none", "inv.txt is not in what the user typed"
    assert [t["data"]["toolName"] for t in by_type(fake, "agent.tool.completed")] == ["read_invoice", "send_money"]
    [run] = by_type(fake, "agent.run.started")
    assert {t["runId"] for t in by_type(fake, "agent.tool.completed")} == {run["runId"]}
    assert [r["tool"] for r in ran] == ["read_invoice", "send_money"]


def test_a_blocked_tool_never_runs_and_the_model_reads_why(fake, make_client):
    fake.decide = lambda body: "block" if body["tool"]["name"] == "send_money" else "allow"
    client = make_client(mode="enforce")
    handler = WardenCallbackHandler(client)
    out = invoke(handler, handler.guard([read_invoice, send_money]))
    client.flush()
    assert [r["tool"] for r in ran] == ["read_invoice"], "send_money's code never ran"
    tool_messages = [m for m in out["messages"] if m.type == "tool"]
    assert "Agent Warden stopped the call to send_money" in tool_messages[-1].content
    assert [t["data"]["toolName"] for t in by_type(fake, "agent.tool.started")] == ["read_invoice"]


def test_on_block_raise_propagates_the_guard_error(fake, make_client):
    from agentwarden import GuardrailBlockedError

    fake.decide = lambda body: "block"
    client = make_client(mode="enforce")
    guarded = guard_tool(client, read_invoice, on_block="raise")
    with pytest.raises(GuardrailBlockedError):
        guarded.invoke({"path": "inv.txt"})
    assert ran == []


def test_the_async_graph_records_the_same(fake, make_client):
    client = make_client(mode="enforce")
    handler = WardenCallbackHandler(client)
    agent = create_react_agent(script(), handler.guard([read_invoice, send_money]))
    asyncio.run(agent.ainvoke({"messages": [("user", "Pay invoice 7")]}, config={"callbacks": [handler]}))
    client.flush()
    assert [r["tool"] for r in ran] == ["read_invoice", "send_money"]
    assert len(by_type(fake, "agent.llm.called")) == 3
    assert [t["data"]["toolName"] for t in by_type(fake, "agent.tool.completed")] == ["read_invoice", "send_money"]


def test_a_failing_model_is_an_llm_call_with_its_error(fake, make_client):
    class Broken(ScriptedChatModel):
        def _generate(self, *a: Any, **k: Any) -> Any:
            raise TimeoutError("model timed out")

    client = make_client()
    handler = WardenCallbackHandler(client)
    with pytest.raises(TimeoutError):
        invoke(handler, [read_invoice], model=Broken(responses=[]))
    client.flush()
    [call] = by_type(fake, "agent.llm.called")
    assert call["data"]["error"] == {"message": "model timed out", "type": "TimeoutError"}
    [done] = by_type(fake, "agent.run.completed")
    assert done["data"]["status"] == "failed"
