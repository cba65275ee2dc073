"""OpenAI Agents SDK adapter: a tracing processor and a guard for function tools.

::

    from agents import Agent, Runner, add_trace_processor, function_tool
    from agentwarden import WardenClient
    from agentwarden.integrations.openai_agents import WardenTracingProcessor

    warden = WardenClient(agent="support-bot", mode="enforce")
    tracing = WardenTracingProcessor(warden)
    add_trace_processor(tracing)
    agent = Agent(name="support", tools=tracing.guard([send_money, read_file]))

The processor maps the SDK's traces (docs/architecture.md#llm-calls for the LLM call event):

- a trace (one ``Runner.run``) → a run named after the workflow, in the run or session current
  where the runner started; an agent span → a child run named after the agent (handoffs give one
  child run per agent);
- a generation span (Chat Completions models) or a response span (Responses models) →
  ``agent.llm.called`` with the model, the usage's input / output / cached tokens, the latency and
  the error, in the agent's run; the user messages it was sent are trusted sources of provenance
  (docs/provenance.md);
- a function span → ``agent.tool.started`` + ``completed`` / ``failed`` (recorded after the fact,
  unguarded), unless the tool was wrapped by :meth:`WardenTracingProcessor.guard`: then the guard
  recorded it already.

The guard (:meth:`WardenTracingProcessor.guard`, or :func:`guard_tool` without the processor) asks
the service before the tool's code runs, with the provenance of its arguments
(docs/provenance.md: tool results seen earlier in the run are untrusted sources). In enforce mode a
blocked, denied or timed-out call never runs; by default the model reads why as the tool's output
(``on_block="message"``), or the guard's error ends the run (``on_block="raise"``: ``Runner.run``
raises the SDK's ``UserError`` whose ``__cause__`` is the guard's error). Monitor mode
always runs the tool and records the decision.

Processor callbacks never raise into the SDK: a failure is logged by the client's logger.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Any, Dict, List, Mapping, Optional, Sequence, Set, Union

from agents.tool import FunctionTool
from agents.tracing import Span, Trace, TracingProcessor, get_current_span

from .._client import _ClientBase
from .._context import Scope
from .._llm import record_llm_call
from .._logging import error_fields
from .._runs import RunContext, end_run, start_run
from .._tools import ToolSpan
from .._track import record_tool
from ._common import GUARD_STOPS, check_on_block, int_or_none, iso_duration_ms, parse_arguments, stopped_message

__all__ = ["WardenTracingProcessor", "guard_tool"]


class _SpanError(Exception):
    """A span's ``error`` (``{message, data}``) as an exception for the run and tool events."""


def _span_error(span: Any) -> Optional[_SpanError]:
    err = getattr(span, "error", None)
    if not err:
        return None
    message = err.get("message") if isinstance(err, Mapping) else str(err)
    return _SpanError(message or "error")


def _usage_of(obj: Any) -> Dict[str, Optional[int]]:
    """``input`` / ``output`` / ``cached`` tokens of a usage dict (generation spans: ``input_tokens`` or
    ``prompt_tokens``…) or an OpenAI ``ResponseUsage`` object; None where absent."""
    if obj is None:
        return {"input": None, "output": None, "cached": None}

    def get(o: Any, key: str) -> Any:
        return o.get(key) if isinstance(o, Mapping) else getattr(o, key, None)

    details = get(obj, "input_tokens_details") or get(obj, "prompt_tokens_details")
    return {
        "input": int_or_none(
            get(obj, "input_tokens") if get(obj, "input_tokens") is not None else get(obj, "prompt_tokens")
        ),
        "output": int_or_none(
            get(obj, "output_tokens") if get(obj, "output_tokens") is not None else get(obj, "completion_tokens")
        ),
        "cached": int_or_none(get(details, "cached_tokens")) if details is not None else None,
    }


def _user_texts(items: Any) -> List[str]:
    """The text of the user messages in a generation / response span's ``input``: a string (the
    Responses API's plain input), or message items ``{"role": "user", "content": str | [{"text"}]}``."""
    if isinstance(items, str):
        return [items]
    texts: List[str] = []
    for item in items if isinstance(items, (list, tuple)) else []:
        if not isinstance(item, Mapping) or item.get("role") != "user":
            continue
        content = item.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts.extend(p["text"] for p in content if isinstance(p, Mapping) and isinstance(p.get("text"), str))
    return texts


class WardenTracingProcessor(TracingProcessor):
    """An OpenAI Agents SDK ``TracingProcessor`` that records traces, agents, model calls and tool
    calls through ``client`` (a :class:`~agentwarden.WardenClient` or ``AsyncWardenClient``).

    Args:
        client: the Agent Warden client; its current session (and run, when ``Runner.run`` is
            called inside ``with_run``) holds the trace's run.
        provider: ``gen_ai.provider.name`` of the LLM calls (default ``openai``).
        record_tools: record function spans of unguarded tools as tool calls (default True).

    Register it with ``agents.add_trace_processor(processor)`` (beside OpenAI's exporter) or
    ``agents.set_trace_processors([processor])`` (instead of it). Thread-safe.
    """

    def __init__(self, client: _ClientBase, *, provider: str = "openai", record_tools: bool = True) -> None:
        self._client = client
        self._rt = client._rt
        self._provider = provider
        self._record_tools = record_tools
        self._lock = threading.Lock()
        #: run of each open trace (by trace id) and agent span (by span id)
        self._runs: Dict[str, RunContext] = {}
        #: parent of each open span: another span's id, else the trace id
        self._parents: Dict[str, str] = {}
        #: function spans whose call a guard recorded (the processor leaves them out)
        self._guarded: Set[str] = set()

    # -- the run a span belongs to ---------------------------------------------------------------

    def scope_of(self, span: Optional[Span[Any]]) -> Scope:
        """The scope of the events of ``span``: the run of its nearest agent span, else its trace's
        run, else the client's current scope (no span, or a trace this processor did not see)."""
        with self._lock:
            key: Optional[str] = span.span_id if span is not None else None
            trace_id = span.trace_id if span is not None else None
            while key is not None:
                run = self._runs.get(key)
                if run is not None:
                    return run._scope
                key = self._parents.get(key)
            if trace_id is not None and trace_id in self._runs:
                return self._runs[trace_id]._scope
        return self._rt.current_scope()

    # -- TracingProcessor ------------------------------------------------------------------------

    def on_trace_start(self, trace: Trace) -> None:
        try:
            exported = trace.export() or {}
            attributes = {
                "traceId": trace.trace_id,
                "groupId": exported.get("group_id"),
                "metadata": exported.get("metadata"),
            }
            run = start_run(self._rt, self._rt.current_scope(), trace.name or "agent workflow", attributes=attributes)
            with self._lock:
                self._runs[trace.trace_id] = run
        except Exception as e:  # never into the SDK
            self._rt.log.error("warden openai-agents processor failed", hook="on_trace_start", **error_fields(e))

    def on_trace_end(self, trace: Trace) -> None:
        try:
            with self._lock:
                run = self._runs.pop(trace.trace_id, None)
            if run is not None:
                end_run(run)
        except Exception as e:
            self._rt.log.error("warden openai-agents processor failed", hook="on_trace_end", **error_fields(e))

    def on_span_start(self, span: Span[Any]) -> None:
        try:
            with self._lock:
                self._parents[span.span_id] = span.parent_id or span.trace_id
            data = span.span_data
            if data.type == "agent":
                parent = self.scope_of(span)
                run = start_run(
                    self._rt,
                    parent,
                    data.name,
                    attributes={"framework": "openai-agents", "traceId": span.trace_id},
                )
                with self._lock:
                    self._runs[span.span_id] = run
        except Exception as e:
            self._rt.log.error("warden openai-agents processor failed", hook="on_span_start", **error_fields(e))

    def on_span_end(self, span: Span[Any]) -> None:
        try:
            data = span.span_data
            kind = data.type
            if kind == "agent":
                with self._lock:
                    run = self._runs.pop(span.span_id, None)
                if run is not None:
                    end_run(run, _span_error(span))
            elif kind == "generation":
                self._trust_user(span, data.input)
                self._llm_call(span, data.model, data.usage, data.model_config, None)
            elif kind == "response":
                self._trust_user(span, data.input)
                response = data.response
                usage = data.usage or (getattr(response, "usage", None) if response is not None else None)
                self._llm_call(span, getattr(response, "model", None), usage, None, response)
            elif kind == "function":
                with self._lock:
                    guarded = span.span_id in self._guarded
                    self._guarded.discard(span.span_id)
                if not guarded and self._record_tools:
                    record_tool(
                        self._rt,
                        self.scope_of(span),
                        data.name,
                        arguments=parse_arguments(data.input),
                        result=data.output,
                        error=_span_error(span),
                        duration_ms=iso_duration_ms(span.started_at, span.ended_at),
                    )
        except Exception as e:
            self._rt.log.error("warden openai-agents processor failed", hook="on_span_end", **error_fields(e))
        finally:
            with self._lock:
                self._parents.pop(span.span_id, None)

    def shutdown(self) -> None:
        """Ends the runs of traces still open (status ``cancelled``) and flushes the client."""
        with self._lock:
            open_runs = list(self._runs.values())
            self._runs.clear()
            self._parents.clear()
        for run in open_runs:
            run.cancel()
            end_run(run)
        self.force_flush()

    def force_flush(self) -> None:
        """Sends what the client has queued (``client.flush()``; never raises)."""
        flush = getattr(self._rt, "flush", None)
        if flush is not None:
            try:
                flush()
            except Exception as e:  # pragma: no cover - the client's flush never raises
                self._rt.log.error("warden openai-agents flush failed", **error_fields(e))

    # -- guard -----------------------------------------------------------------------------------

    def guard(
        self,
        tools: Union[FunctionTool, Sequence[Any]],
        *,
        risk_level: Optional[str] = None,
        action_type: Optional[str] = None,
        on_block: str = "message",
    ) -> Any:
        """:func:`guard_tool` for one ``FunctionTool`` or each ``FunctionTool`` of a list (other tools
        pass through unchanged), with the events in the run of the agent that calls it. Returns a
        new tool (or list); the originals are not changed. Raises ``ValueError`` for a bad ``on_block``."""
        if isinstance(tools, FunctionTool):
            return guard_tool(
                self._client, tools, risk_level=risk_level, action_type=action_type, on_block=on_block, processor=self
            )
        return [
            (
                guard_tool(
                    self._client, t, risk_level=risk_level, action_type=action_type, on_block=on_block, processor=self
                )
                if isinstance(t, FunctionTool)
                else t
            )
            for t in tools
        ]

    def _note_guarded(self, span: Optional[Span[Any]]) -> None:
        if span is not None and span.span_data.type == "function":
            with self._lock:
                self._guarded.add(span.span_id)

    # -- LLM calls -------------------------------------------------------------------------------

    def _trust_user(self, span: Span[Any], items: Any) -> None:
        """What the user typed, as the model was sent it (spans carry it unless the run config turns
        ``trace_include_sensitive_data`` off): trusted sources of provenance (docs/provenance.md)."""
        if items:
            scope = self.scope_of(span)
            for text in _user_texts(items):
                self._rt.note_trusted(scope, text)

    def _llm_call(
        self, span: Span[Any], model: Optional[str], usage: Any, config: Optional[Mapping[str, Any]], response: Any
    ) -> None:
        tokens = _usage_of(usage)
        error = _span_error(span)
        attributes: Dict[str, Any] = {"framework": "openai-agents", "spanId": span.span_id, "traceId": span.trace_id}
        if config:
            attributes["modelConfig"] = {k: v for k, v in dict(config).items() if v is not None and k != "base_url"}
        response_id = getattr(response, "id", None)
        if response_id:
            attributes["responseId"] = response_id
        status = getattr(response, "status", None)
        record_llm_call(
            self._rt,
            self.scope_of(span),
            model or "unknown",
            provider=self._provider,
            operation="chat",
            input_tokens=tokens["input"],
            output_tokens=tokens["output"],
            cached_input_tokens=tokens["cached"],
            duration_ms=iso_duration_ms(span.started_at, span.ended_at),
            finish_reasons=[status] if isinstance(status, str) else None,
            error=error,
            attributes=attributes,
        )


def guard_tool(
    client: _ClientBase,
    tool: FunctionTool,
    *,
    risk_level: Optional[str] = None,
    action_type: Optional[str] = None,
    on_block: str = "message",
    processor: Optional[WardenTracingProcessor] = None,
) -> FunctionTool:
    """A copy of ``tool`` whose every call goes through ``client``'s guard first (``with_tool``:
    evaluation with the arguments' provenance, ``agent.tool.started``, then ``completed`` with the
    tool's output or ``failed``). The tool's own code runs only when the guard lets it (always in
    monitor mode). ``on_block``: ``"message"`` (default) returns why the call was stopped as the
    tool's output for the model; ``"raise"`` lets ``GuardrailBlockedError`` /
    ``ApprovalDeniedError`` / ``ApprovalTimeoutError`` / ``GuardrailUnavailableError`` end the run.
    With ``processor`` the events go to the calling agent's run (else the client's current scope)
    and the processor does not record the call twice. Raises ``ValueError`` for a bad ``on_block``."""
    check_on_block(on_block)
    rt = client._rt
    invoke = tool.on_invoke_tool
    name = tool.name

    async def guarded(ctx: Any, input_json: str) -> Any:
        span = get_current_span()
        scope = processor.scope_of(span) if processor is not None else rt.current_scope()
        if processor is not None:
            processor._note_guarded(span)
        try:
            async with ToolSpan(
                rt,
                name,
                arguments=parse_arguments(input_json) or {},
                risk_level=risk_level,
                action_type=action_type,
                scope=scope,
            ) as call:
                result = await invoke(ctx, input_json)
                call.result = result
                return result
        except GUARD_STOPS as e:
            if on_block == "raise":
                raise
            return stopped_message(name, e)

    return dataclasses.replace(tool, on_invoke_tool=guarded)
