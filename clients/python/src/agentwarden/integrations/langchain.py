"""LangChain / LangGraph adapter: a callback handler and a guard for tools.

::

    from agentwarden import WardenClient
    from agentwarden.integrations.langchain import WardenCallbackHandler

    warden = WardenClient(agent="support-bot", mode="enforce")
    handler = WardenCallbackHandler(warden)
    agent = create_react_agent(model, handler.guard([send_money, read_file]))
    agent.invoke({"messages": [("user", "Pay invoice 7")]}, config={"callbacks": [handler]})

The handler maps LangChain's runs (docs/architecture.md#llm-calls for the LLM call event):

- the outermost chain or graph (a run without a parent) → a run, its input summary the last user
  message (or the ``input`` text), in the run or session current where it was invoked; nested
  chains and graph nodes stay inside it;
- a chat model or LLM call → ``agent.llm.called`` with the model, provider, the message's
  ``usage_metadata`` (input, output, cached input tokens; else the provider's ``token_usage``), the
  latency, finish reasons and errors; the user messages it was sent are trusted sources of
  provenance (docs/provenance.md);
- a tool call → ``agent.tool.started`` + ``completed`` / ``failed`` (after the fact, unguarded),
  unless the tool was wrapped by :meth:`WardenCallbackHandler.guard`: then the guard recorded it.

The guard (:meth:`WardenCallbackHandler.guard`, or :func:`guard_tool`) asks the service before the
tool's code runs, with the provenance of its arguments. In enforce mode a blocked, denied or
timed-out call never runs; by default the model reads why as the tool's output
(``on_block="message"``), or the guard's error propagates from the tool (``on_block="raise"``).

Callbacks never raise into LangChain: a failure is logged by the client's logger.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Dict, List, Mapping, Optional, Sequence, Set, Union
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from pydantic import ConfigDict, Field

from .._client import _ClientBase
from .._context import Scope
from .._llm import record_llm_call
from .._logging import error_fields
from .._runs import RunContext, end_run, start_run
from .._tools import ToolSpan
from .._track import record_tool
from ._common import GUARD_STOPS, check_on_block, int_or_none, parse_arguments, stopped_message

__all__ = ["WardenCallbackHandler", "guard_tool", "GUARDED_METADATA_KEY"]

#: Metadata key a guarded tool carries, so the handler does not record its calls twice.
GUARDED_METADATA_KEY = "agentwarden_guarded"


def _text(content: Any) -> Optional[str]:
    """The text of a message's content: a string, or the text parts of a content list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p if isinstance(p, str) else p.get("text") for p in content if isinstance(p, (str, dict))]
        return "\n".join(p for p in parts if isinstance(p, str)) or None
    return None


def _input_summary(inputs: Any) -> Optional[str]:
    """What a root chain was asked: its last user message (``{"messages": [...]}``), else an
    ``input`` / ``question`` / ``query`` text, else a string input."""
    if isinstance(inputs, str):
        return inputs
    if not isinstance(inputs, Mapping):
        return None
    messages = inputs.get("messages")
    if isinstance(messages, list):
        for m in reversed(messages):
            role = getattr(m, "type", None)
            content = getattr(m, "content", None)
            if isinstance(m, (tuple, list)) and len(m) == 2:
                role, content = m
            elif isinstance(m, Mapping):
                role, content = m.get("role") or m.get("type"), m.get("content")
            if role in ("human", "user"):
                return _text(content)
    for key in ("input", "question", "query"):
        value = inputs.get(key)
        if isinstance(value, str):
            return value
    return None


def _usage(generation: Any, llm_output: Any) -> Dict[str, Optional[int]]:
    """Input / output / cached-input tokens: the message's ``usage_metadata`` (LangChain's standard),
    else the provider's ``llm_output["token_usage"]`` (``prompt_tokens`` / ``completion_tokens``)."""
    message = getattr(generation, "message", None)
    usage = getattr(message, "usage_metadata", None)
    if usage:
        details = usage.get("input_token_details") or {}
        return {
            "input": int_or_none(usage.get("input_tokens")),
            "output": int_or_none(usage.get("output_tokens")),
            "cached": int_or_none(details.get("cache_read")),
        }
    token_usage = (llm_output or {}).get("token_usage") or (llm_output or {}).get("usage") or {}
    return {
        "input": int_or_none(token_usage.get("prompt_tokens", token_usage.get("input_tokens"))),
        "output": int_or_none(token_usage.get("completion_tokens", token_usage.get("output_tokens"))),
        "cached": None,
    }


class _Pending:
    """What a start callback saw, kept until the end callback: ``tool`` is the tool's name (tools)
    or the model's class name (models, used when no model id is known)."""

    __slots__ = ("started", "model", "provider", "attributes", "tool", "arguments")

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.model: Optional[str] = None
        self.provider: Optional[str] = None
        self.attributes: Dict[str, Any] = {}
        self.tool: Optional[str] = None
        self.arguments: Optional[Dict[str, Any]] = None


class WardenCallbackHandler(BaseCallbackHandler):
    """A LangChain callback handler that records chains, model calls and tool calls through
    ``client`` (a :class:`~agentwarden.WardenClient` or ``AsyncWardenClient``).

    Args:
        client: the Agent Warden client.
        record_tools: record calls of unguarded tools as tool calls (default True).

    Pass it per call (``config={"callbacks": [handler]}``) or to a model / graph's ``callbacks``.
    Runs inline (``run_inline``), so events keep their order in async graphs. Thread-safe.
    """

    run_inline = True
    raise_error = False

    def __init__(self, client: _ClientBase, *, record_tools: bool = True) -> None:
        super().__init__()
        self._client = client
        self._rt = client._rt
        self._record_tools = record_tools
        self._lock = threading.Lock()
        self._runs: Dict[UUID, RunContext] = {}
        self._parents: Dict[UUID, Optional[UUID]] = {}
        self._pending: Dict[UUID, _Pending] = {}
        self._guarded: Set[UUID] = set()

    # -- scopes -----------------------------------------------------------------------------------

    def scope_of(self, run_id: Optional[UUID]) -> Scope:
        """The scope of events of LangChain run ``run_id``: the run of its outermost chain, else the
        client's current scope."""
        with self._lock:
            key = run_id
            while key is not None:
                run = self._runs.get(key)
                if run is not None:
                    return run._scope
                key = self._parents.get(key)
        return self._rt.current_scope()

    def _enter(self, run_id: UUID, parent_run_id: Optional[UUID]) -> None:
        with self._lock:
            self._parents[run_id] = parent_run_id

    def _leave(self, run_id: UUID) -> None:
        with self._lock:
            self._parents.pop(run_id, None)

    def _fail(self, hook: str, e: BaseException) -> None:
        self._rt.log.error("warden langchain handler failed", hook=hook, **error_fields(e))

    # -- chains → runs -----------------------------------------------------------------------------

    def on_chain_start(
        self,
        serialized: Optional[Dict[str, Any]],
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: Optional[UUID] = None,
        metadata: Optional[Dict[str, Any]] = None,
        **kwargs: Any,
    ) -> None:
        try:
            self._enter(run_id, parent_run_id)
            if parent_run_id is not None:
                return
            name = kwargs.get("name") or (serialized or {}).get("name") or "chain"
            run = start_run(
                self._rt,
                self._rt.current_scope(),
                str(name),
                input_summary=_input_summary(inputs),
                attributes={"framework": "langchain", "langchainRunId": str(run_id)},
            )
            with self._lock:
                self._runs[run_id] = run
        except Exception as e:
            self._fail("on_chain_start", e)

    def _chain_done(self, run_id: UUID, error: Optional[BaseException], outputs: Any = None) -> None:
        with self._lock:
            run = self._runs.pop(run_id, None)
        self._leave(run_id)
        if run is not None:
            if error is None:
                run.output_summary = _last_ai_text(outputs)
            end_run(run, error)

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        try:
            self._chain_done(run_id, None, outputs)
        except Exception as e:
            self._fail("on_chain_end", e)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        try:
            self._chain_done(run_id, error)
        except Exception as e:
            self._fail("on_chain_error", e)

    # -- models → LLM calls -----------------------------------------------------------------------

    def _model_start(
        self,
        serialized: Optional[Dict[str, Any]],
        run_id: UUID,
        parent_run_id: Optional[UUID],
        metadata: Optional[Dict[str, Any]],
        kwargs: Dict[str, Any],
    ) -> None:
        self._enter(run_id, parent_run_id)
        params = kwargs.get("invocation_params") or {}
        pending = _Pending()
        pending.model = (metadata or {}).get("ls_model_name") or params.get("model") or params.get("model_name")
        pending.tool = kwargs.get("name") or (serialized or {}).get("name")  # the model's class: last resort
        pending.provider = (metadata or {}).get("ls_provider")
        for key in ("temperature", "max_tokens"):
            if params.get(key) is not None:
                pending.attributes[key] = params[key]
        with self._lock:
            self._pending[run_id] = pending

    def on_chat_model_start(
        self,
        serialized: Optional[Dict[str, Any]],
        messages: List[List[Any]],
        *,
        run_id: UUID,
        parent_run_id: Optional[UUID] = None,
        metadata: Optional[Dict[str, Any]] = None,
        **kwargs: Any,
    ) -> None:
        try:
            self._model_start(serialized, run_id, parent_run_id, metadata, kwargs)
            scope = self.scope_of(run_id)
            for batch in messages:
                for m in batch:
                    if getattr(m, "type", None) == "human":  # what the user typed: trusted (docs/provenance.md)
                        self._rt.note_trusted(scope, _text(m.content))
        except Exception as e:
            self._fail("on_chat_model_start", e)

    def on_llm_start(
        self,
        serialized: Optional[Dict[str, Any]],
        prompts: List[str],
        *,
        run_id: UUID,
        parent_run_id: Optional[UUID] = None,
        metadata: Optional[Dict[str, Any]] = None,
        **kwargs: Any,
    ) -> None:
        try:
            self._model_start(serialized, run_id, parent_run_id, metadata, kwargs)
        except Exception as e:
            self._fail("on_llm_start", e)

    def _llm_done(self, run_id: UUID, response: Any, error: Optional[BaseException]) -> None:
        with self._lock:
            pending = self._pending.pop(run_id, None)
        scope = self.scope_of(run_id)
        self._leave(run_id)
        if pending is None:
            return
        generations = getattr(response, "generations", None) or []
        first = generations[0][0] if generations and generations[0] else None
        llm_output = getattr(response, "llm_output", None) or {}
        message = getattr(first, "message", None)
        response_metadata = getattr(message, "response_metadata", None) or {}
        info = getattr(first, "generation_info", None) or {}
        tokens = _usage(first, llm_output)
        finish = response_metadata.get("finish_reason") or info.get("finish_reason")
        response_model = (
            response_metadata.get("model_name") or response_metadata.get("model") or llm_output.get("model_name")
        )
        record_llm_call(
            self._rt,
            scope,
            pending.model or response_model or pending.tool or "unknown",
            provider=pending.provider,
            response_model=response_model,
            input_tokens=tokens["input"],
            output_tokens=tokens["output"],
            cached_input_tokens=tokens["cached"],
            duration_ms=(time.perf_counter() - pending.started) * 1000,
            finish_reasons=[str(finish)] if finish else None,
            error=error,
            attributes={"framework": "langchain", **pending.attributes},
        )

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        try:
            self._llm_done(run_id, response, None)
        except Exception as e:
            self._fail("on_llm_end", e)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        try:
            self._llm_done(run_id, None, error)
        except Exception as e:
            self._fail("on_llm_error", e)

    # -- tools → tool calls -----------------------------------------------------------------------

    def on_tool_start(
        self,
        serialized: Optional[Dict[str, Any]],
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: Optional[UUID] = None,
        metadata: Optional[Dict[str, Any]] = None,
        inputs: Optional[Dict[str, Any]] = None,
        **kwargs: Any,
    ) -> None:
        try:
            self._enter(run_id, parent_run_id)
            if (metadata or {}).get(GUARDED_METADATA_KEY):
                with self._lock:
                    self._guarded.add(run_id)
                return
            pending = _Pending()
            pending.tool = kwargs.get("name") or (serialized or {}).get("name") or "tool"
            pending.arguments = dict(inputs) if isinstance(inputs, Mapping) else parse_arguments(input_str)
            with self._lock:
                self._pending[run_id] = pending
        except Exception as e:
            self._fail("on_tool_start", e)

    def _tool_done(self, run_id: UUID, output: Any, error: Optional[BaseException]) -> None:
        with self._lock:
            pending = self._pending.pop(run_id, None)
            self._guarded.discard(run_id)
        scope = self.scope_of(run_id)
        self._leave(run_id)
        if pending is None or not self._record_tools:
            return
        record_tool(
            self._rt,
            scope,
            pending.tool or "tool",
            arguments=pending.arguments,
            result=getattr(output, "content", output) if error is None else None,
            error=error,
            duration_ms=(time.perf_counter() - pending.started) * 1000,
        )

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        try:
            self._tool_done(run_id, output, None)
        except Exception as e:
            self._fail("on_tool_end", e)

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        try:
            self._tool_done(run_id, None, error)
        except Exception as e:
            self._fail("on_tool_error", e)

    # -- guard ------------------------------------------------------------------------------------

    def guard(
        self,
        tools: Union[BaseTool, Sequence[BaseTool]],
        *,
        risk_level: Optional[str] = None,
        action_type: Optional[str] = None,
        on_block: str = "message",
    ) -> Any:
        """:func:`guard_tool` for one tool or each tool of a list, with the events in the run of the
        chain that calls it. Returns new tools; the originals are not changed."""
        if isinstance(tools, BaseTool):
            return guard_tool(
                self._client, tools, risk_level=risk_level, action_type=action_type, on_block=on_block, handler=self
            )
        return [
            guard_tool(self._client, t, risk_level=risk_level, action_type=action_type, on_block=on_block, handler=self)
            for t in tools
        ]


def _last_ai_text(outputs: Any) -> Optional[str]:
    """The last AI message's text of a root chain's outputs (``{"messages": [...]}``), else a string output."""
    if isinstance(outputs, str):
        return outputs
    messages = outputs.get("messages") if isinstance(outputs, Mapping) else None
    if isinstance(messages, list):
        for m in reversed(messages):
            if getattr(m, "type", None) == "ai" and _text(getattr(m, "content", None)):
                return _text(m.content)
    return None


class _GuardedTool(BaseTool):
    """A tool that runs ``inner`` (any ``BaseTool``) behind the Agent Warden guard (see :func:`guard_tool`)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    inner: BaseTool
    warden: Any = Field(exclude=True)
    handler: Optional[Any] = Field(default=None, exclude=True)
    risk_level: Optional[str] = None
    action_type: Optional[str] = None
    on_block: str = "message"

    def _span(self, args: Sequence[Any], kwargs: Dict[str, Any], run_manager: Any) -> ToolSpan:
        rt = self.warden._rt
        visible = kwargs
        filter_injected = getattr(self.inner, "_filter_injected_args", None)
        if callable(filter_injected):
            visible = filter_injected(kwargs)
        arguments = dict(visible) if visible else (parse_arguments(args[0]) if args else None)
        run_id = getattr(run_manager, "run_id", None)
        scope = self.handler.scope_of(run_id) if self.handler is not None and run_id else rt.current_scope()
        return ToolSpan(
            rt,
            self.name,
            arguments=arguments or {},
            risk_level=self.risk_level,
            action_type=self.action_type,
            scope=scope,
        )

    def _inner_kwargs(self, fn: Any, kwargs: Dict[str, Any], config: Any, run_manager: Any) -> Dict[str, Any]:
        from langchain_core.tools.base import _get_runnable_config_param, _signature_parameters  # type: ignore[attr-defined]

        extra = dict(kwargs)
        if run_manager is not None and _signature_parameters(fn).get("run_manager"):
            extra["run_manager"] = run_manager
        param = _get_runnable_config_param(fn)
        if param:
            extra[param] = config
        return extra

    # ``config: RunnableConfig`` in the signature makes LangChain pass the run's config through.
    def _run(self, *args: Any, config: RunnableConfig = None, run_manager: Any = None, **kwargs: Any) -> Any:  # type: ignore[assignment]
        try:
            with self._span(args, kwargs, run_manager) as call:
                result = self.inner._run(*args, **self._inner_kwargs(self.inner._run, kwargs, config, run_manager))
                call.result = getattr(result, "content", result)
                return result
        except GUARD_STOPS as e:
            if self.on_block == "raise":
                raise
            return stopped_message(self.name, e)

    async def _arun(self, *args: Any, config: RunnableConfig = None, run_manager: Any = None, **kwargs: Any) -> Any:  # type: ignore[assignment]
        try:
            async with self._span(args, kwargs, run_manager) as call:
                result = await self.inner._arun(
                    *args, **self._inner_kwargs(self.inner._arun, kwargs, config, run_manager)
                )
                call.result = getattr(result, "content", result)
                return result
        except GUARD_STOPS as e:
            if self.on_block == "raise":
                raise
            return stopped_message(self.name, e)


def guard_tool(
    client: _ClientBase,
    tool: BaseTool,
    *,
    risk_level: Optional[str] = None,
    action_type: Optional[str] = None,
    on_block: str = "message",
    handler: Optional[WardenCallbackHandler] = None,
) -> BaseTool:
    """A tool with ``tool``'s name, description and argument schema whose every call goes through
    ``client``'s guard first (``with_tool``: evaluation with the arguments' provenance,
    ``agent.tool.started``, then ``completed`` with the output or ``failed``). ``tool``'s code runs
    only when the guard lets it (always in monitor mode). ``on_block``: ``"message"`` (default)
    returns why the call was stopped as the tool's output; ``"raise"`` lets
    ``GuardrailBlockedError`` / ``ApprovalDeniedError`` / ``ApprovalTimeoutError`` /
    ``GuardrailUnavailableError`` propagate. With ``handler`` the events go to the calling chain's
    run and the handler does not record the call twice. Raises ``ValueError`` for a bad ``on_block``."""
    check_on_block(on_block)
    return _GuardedTool(
        name=tool.name,
        description=tool.description,
        args_schema=tool.args_schema,
        return_direct=tool.return_direct,
        response_format=tool.response_format,
        handle_tool_error=tool.handle_tool_error,
        handle_validation_error=tool.handle_validation_error,
        tags=tool.tags,
        metadata={**(tool.metadata or {}), GUARDED_METADATA_KEY: True},
        inner=tool,
        warden=client,
        handler=handler,
        risk_level=risk_level,
        action_type=action_type,
        on_block=on_block,
    )
