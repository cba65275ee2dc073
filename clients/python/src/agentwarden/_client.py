"""The public clients: :class:`WardenClient` (threads) and :class:`AsyncWardenClient` (asyncio)."""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, TypeVar, Union, overload

from ._context import Scope

from ._logging import LoggerLike, error_fields
from ._models import ClientStats, FlushResult, GuardDecision
from ._options import AgentLike, CapabilityLike, VersionLike, resolve_options
from ._runtime import LiveRuntime, NoopRuntime, Runtime
from ._runs import RunContext, RunSpan
from ._tools import GuardSpan, ToolSpan, guard_input
from ._serialize import to_json_object
from ._llm import record_llm_call
from ._score import ScoreValue, record_score
from ._track import mark_untrusted, record_tool, track_action, track_custom, track_event, track_message

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


class _ClientBase:
    """Operations shared by the thread and the asyncio clients."""

    def __init__(
        self,
        *,
        enabled: Optional[bool] = None,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        agent: Optional[AgentLike] = None,
        version: Optional[VersionLike] = None,
        mode: Optional[str] = None,
        capabilities: Optional[Sequence[CapabilityLike]] = None,
        flush_interval_ms: Optional[int] = None,
        max_batch_size: Optional[int] = None,
        max_queue_size: Optional[int] = None,
        max_retries: Optional[int] = None,
        retry_base_delay_ms: Optional[int] = None,
        retry_max_delay_ms: Optional[int] = None,
        request_timeout_ms: Optional[int] = None,
        fail_mode: Optional[str] = None,
        approval_timeout_ms: Optional[int] = None,
        session_id: Optional[str] = None,
        logger: Optional[LoggerLike] = None,
        provenance: Optional[bool] = None,
    ) -> None:
        """Resolves and validates the options (argument, then ``WARDEN_*`` environment variable,
        then default) and, when enabled, starts registration (``POST /v1/agents/identify``, then the
        capability declaration) on a background thread and the periodic flush on a daemon thread.

        Raises:
            ConfigurationError: an option has a bad value (``.option`` names it).
        """
        options = resolve_options(
            enabled=enabled,
            base_url=base_url,
            api_key=api_key,
            agent=agent,
            version=version,
            mode=mode,
            capabilities=capabilities,
            flush_interval_ms=flush_interval_ms,
            max_batch_size=max_batch_size,
            max_queue_size=max_queue_size,
            max_retries=max_retries,
            retry_base_delay_ms=retry_base_delay_ms,
            retry_max_delay_ms=retry_max_delay_ms,
            request_timeout_ms=request_timeout_ms,
            fail_mode=fail_mode,
            approval_timeout_ms=approval_timeout_ms,
            session_id=session_id,
            logger=logger,
            provenance=provenance,
        )
        self._rt: Runtime = LiveRuntime(options) if options.enabled else NoopRuntime(options)

    # -- identity and state ------------------------------------------------------------------------

    @property
    def enabled(self) -> bool:
        """False for the no-op client (``enabled=False``)."""
        return self._rt.enabled

    @property
    def mode(self) -> str:
        """``monitor`` or ``enforce``."""
        return self._rt.options.mode

    @property
    def agent_id(self) -> Optional[str]:
        """Server id of the agent; None until registered (``disabled-agent`` when disabled)."""
        ids = self._rt.identity.identity
        return ids.agent_id if ids else None

    @property
    def agent_version_id(self) -> Optional[str]:
        """Server id of the agent version; None until registered (``disabled-version`` when disabled)."""
        ids = self._rt.identity.identity
        return ids.agent_version_id if ids else None

    @property
    def session_id(self) -> str:
        """Id (UUIDv7) of the current session."""
        return self._rt.recorder.session_id

    def current_run(self) -> Optional[RunContext]:
        """The run the calling code runs in (inside ``with_run``), else None."""
        scope = self._rt.scope_var.get()
        return scope.run if scope is not None else None

    # -- sessions ----------------------------------------------------------------------------------

    def start_session(
        self,
        session_id: Optional[str] = None,
        *,
        input_summary: Optional[str] = None,
        attributes: Optional[Mapping[str, Any]] = None,
    ) -> str:
        """Makes a session current and emits ``agent.session.started`` (otherwise a session starts
        by itself with its first event). Returns the session id. ``input_summary`` (the user's
        request) is a trusted source of provenance for the session's calls. Never raises."""
        try:
            started = self._rt.recorder.start_session(session_id, input_summary, attributes)
            self._rt.note_trusted(Scope(started), input_summary)
            return started
        except Exception as e:  # pragma: no cover - defensive
            self._rt.log.error("warden start_session failed", **error_fields(e))
            return self.session_id

    def end_session(self, status: str = "completed", *, output_summary: Optional[str] = None) -> None:
        """Emits ``agent.session.ended`` (``completed`` / ``failed`` / ``cancelled``) and makes a
        new session current. The sources of the session's calls outside runs are dropped. Never raises."""
        try:
            ended = self._rt.recorder.session_id
            self._rt.recorder.end_session(status, output_summary)
            if self._rt.provenance is not None:
                self._rt.provenance.close_session(ended)
        except Exception as e:  # pragma: no cover - defensive
            self._rt.log.error("warden end_session failed", **error_fields(e))

    # -- runs, tool calls, guarded actions -----------------------------------------------------------

    @overload
    def with_run(self, name: F) -> F: ...

    @overload
    def with_run(
        self,
        name: Optional[str] = None,
        *,
        input_summary: Optional[str] = None,
        attributes: Optional[Mapping[str, Any]] = None,
        run_id: Optional[str] = None,
    ) -> RunSpan: ...

    def with_run(
        self,
        name: Any = None,
        *,
        input_summary: Optional[str] = None,
        attributes: Optional[Mapping[str, Any]] = None,
        run_id: Optional[str] = None,
    ) -> Any:
        """A run: ``agent.run.started`` … ``agent.run.completed`` (``succeeded`` / ``failed`` /
        ``cancelled``, ``durationMs``, ``run.output_summary``), then a flush before the block's
        result or exception goes on. Inside it, ``with_tool``/``track*`` attach to the run.

        Use as ``with client.with_run("name") as run:``, ``async with ...``, or as a decorator
        (``@client.with_run`` or ``@client.with_run("name")``).
        """
        if callable(name):
            return RunSpan(self._rt)(name)
        return RunSpan(self._rt, name, input_summary=input_summary, attributes=attributes, run_id=run_id)

    @overload
    def with_tool(self, name: F) -> F: ...

    @overload
    def with_tool(
        self,
        name: Optional[str] = None,
        *,
        arguments: Optional[Mapping[str, Any]] = None,
        action_type: Optional[str] = None,
        risk_level: Optional[str] = None,
        resource: Optional[Mapping[str, Any]] = None,
        guard: bool = True,
        tool_call_id: Optional[str] = None,
    ) -> ToolSpan: ...

    def with_tool(
        self,
        name: Any = None,
        *,
        arguments: Optional[Mapping[str, Any]] = None,
        action_type: Optional[str] = None,
        risk_level: Optional[str] = None,
        resource: Optional[Mapping[str, Any]] = None,
        guard: bool = True,
        tool_call_id: Optional[str] = None,
    ) -> Any:
        """A tool call: the guard (unless ``guard=False``), ``agent.tool.started``, the block, then
        ``agent.tool.completed`` (``call.result``) or ``agent.tool.failed`` (the exception propagates).

        Monitor mode always runs the block. Enforce mode, before the block runs, raises
        ``GuardrailBlockedError`` on ``block`` and waits for a person on ``require_approval`` (then
        ``ApprovalDeniedError`` / ``ApprovalTimeoutError`` unless approved). When the service
        cannot answer: ``fail_mode='open'`` runs, ``'closed'`` raises ``GuardrailUnavailableError``.

        Use as ``with client.with_tool("sql.query", arguments={...}) as call:``, ``async with``,
        or as a decorator (``@client.with_tool`` / ``@client.with_tool("name", risk_level="high")``:
        the call's arguments and return value are recorded).
        """
        if callable(name):
            return ToolSpan(self._rt)(name)
        return ToolSpan(
            self._rt,
            name,
            arguments=arguments,
            action_type=action_type,
            risk_level=risk_level,
            resource=resource,
            guard=guard,
            tool_call_id=tool_call_id,
        )

    def with_guard(
        self,
        *,
        action: Optional[Union[str, Mapping[str, Any]]] = None,
        tool: Optional[Union[str, Mapping[str, Any]]] = None,
        resource: Optional[Mapping[str, Any]] = None,
        risk_level: Optional[str] = None,
        arguments: Optional[Mapping[str, Any]] = None,
    ) -> GuardSpan:
        """Guards a non-tool action like ``with_tool`` (same errors, same modes) without tool
        events; yields the :class:`GuardCheckResult`. ``action`` is ``{"type", "name"}`` (or a type)."""
        return GuardSpan(
            self._rt, action=action, tool=tool, resource=resource, risk_level=risk_level, arguments=arguments
        )

    def record_tool(
        self,
        name: str,
        *,
        arguments: Optional[Mapping[str, Any]] = None,
        result: Any = None,
        error: Any = None,
        duration_ms: Optional[float] = None,
        action_type: Optional[str] = None,
        risk_level: Optional[str] = None,
        resource: Optional[Mapping[str, Any]] = None,
        tool_call_id: Optional[str] = None,
    ) -> str:
        """Records a tool call whose outcome is known without running or guarding it (replays):
        ``agent.tool.started`` then ``agent.tool.completed`` (``result``) or ``agent.tool.failed``
        (``error``: an exception, a message, or ``{message, type}``). Returns the tool_call_id.
        Never raises."""
        return record_tool(
            self._rt,
            self._rt.current_scope(),
            name,
            arguments=arguments,
            result=result,
            error=error,
            duration_ms=duration_ms,
            action_type=action_type,
            risk_level=risk_level,
            resource=resource,
            tool_call_id=tool_call_id,
        )

    # -- telemetry (never raises) ------------------------------------------------------------------

    def track(self, name: str, data: Any = None) -> str:
        """``agent.custom`` ``{name, data}`` in the current run / session. Returns the event id."""
        return track_custom(self._rt, self._rt.current_scope(), name, data)

    def track_action(
        self,
        action_type: str,
        name: str,
        *,
        resource: Optional[Mapping[str, Any]] = None,
        risk_level: Optional[str] = None,
        details: Optional[Mapping[str, Any]] = None,
    ) -> str:
        """``agent.action.performed``. Returns the event id."""
        return track_action(
            self._rt,
            self._rt.current_scope(),
            action_type,
            name,
            resource=resource,
            risk_level=risk_level,
            details=details,
        )

    def track_message(self, role: str, content: Any) -> str:
        """``agent.message.logged`` (``role``: system / user / assistant / tool; content over
        100,000 characters is cut and marked ``truncated``). Returns the event id."""
        return track_message(self._rt, self._rt.current_scope(), role, content)

    def track_event(
        self,
        type: str,
        data: Mapping[str, Any],
        *,
        run_id: Optional[str] = None,
        parent_id: Optional[str] = None,
    ) -> str:
        """Any contract event type with its ``data`` (camelCase wire fields). Returns the event id."""
        return track_event(self._rt, self._rt.current_scope(), type, data, run_id=run_id, parent_id=parent_id)

    def score(
        self,
        name: str,
        value: ScoreValue,
        *,
        source: str = "rule",
        comment: Optional[str] = None,
        score_id: Optional[str] = None,
    ) -> str:
        """``agent.score.recorded``: the outcome of the current run, else of the session
        (docs/architecture.md#scores), e.g. ``score("task_succeeded", True)``. ``value`` is a number,
        a bool or a category label (the wire's ``dataType`` follows it); ``source`` ``rule``
        (default), ``human`` or ``evaluator``; ``score_id`` (a UUIDv7) makes it idempotent across
        sends. Returns the event id, ``""`` when the input cannot be a score (logged, nothing sent)."""
        return record_score(
            self._rt, self._rt.current_scope(), name, value, source=source, comment=comment, score_id=score_id
        )

    def track_llm_call(self, model: str, **fields: Any) -> str:
        """``agent.llm.called``: one model invocation in the current run, else the session (docs/architecture.md#llm-calls).
        ``fields`` are the keyword arguments of ``record_llm_call`` (``_llm.py``): ``provider``,
        ``operation`` (default ``chat``), ``response_model``, ``input_tokens``, ``output_tokens``,
        ``cached_input_tokens`` (ints), ``duration_ms`` (ms), ``cost_usd`` (USD; the service prices
        the call from its table when absent), ``finish_reasons``, ``error`` (an exception, a
        ``{message, type}`` mapping or a message), ``attributes``, ``llm_call_id`` (a UUIDv7).
        Returns the event id, ``""`` when the input cannot be an LLM call (logged, nothing sent)."""
        return record_llm_call(self._rt, self._rt.current_scope(), model, **fields)

    # -- provenance (docs/provenance.md) -----------------------------------------------------------

    def mark_trusted(self, value: Any) -> None:
        """Records ``value`` as trusted in the current run (else the session): text the user
        typed or vouches for, beyond ``input_summary`` and user messages. A string, number,
        mapping or sequence (its keys and values count). A value of a guarded call's arguments found
        in it is not tainted. Never raises."""
        self._rt.note_trusted(self._rt.current_scope(), value)

    def mark_untrusted(self, value: Any, tool_name: Optional[str] = None, tool_call_id: Optional[str] = None) -> None:
        """Records ``value`` as untrusted tool output in the current run (else the session),
        beyond what ``with_tool``, ``record_tool`` and tool messages record: a web page read
        outside a tool, a retrieved document. ``tool_name`` (default ``unknown``) and
        ``tool_call_id`` (a UUIDv7; another value is logged and left out) name it in the provenance.
        It is checked for instructions aimed at the model. Never raises."""
        mark_untrusted(self._rt, self._rt.current_scope(), value, tool_name, tool_call_id)

    def provenance_of(self, arguments: Optional[Mapping[str, Any]]) -> Optional[Dict[str, Any]]:
        """What a guarded call with ``arguments`` made now, in the current run, would send as
        ``provenance`` (the wire ``Provenance``, camelCase): ``{"arguments": [{"path", "origin"
        ("user" / "tool" / "both" / "none"), "tainted", "instructed", "sources": [{"toolName",
        "toolCallId"?, "instructions"}]}], "session": {"untrustedInstructions", "lastInstruction"?},
        "truncated"}``. None when provenance is off (``provenance=False``, or the disabled
        client). Never raises."""
        return self._rt.provenance_of(self._rt.current_scope(), to_json_object(arguments) or {})

    def stats(self) -> ClientStats:
        """Totals since construction: ``queued, sent, dropped, failed, rejected, retries``."""
        return self._rt.stats()


class WardenClient(_ClientBase):
    """The Agent Warden client: registers the agent, records what it does as events (sent in
    batches by a daemon thread), and asks the service before risky actions.

    ::

        warden = WardenClient(base_url=..., api_key=..., agent="billing-assistant")
        with warden.with_run("refund"):
            with warden.with_tool("stripe.refund", arguments={"amount": 120}, risk_level="high") as call:
                call.result = refund()

    Telemetry never raises into the agent: ``track*``, ``flush`` and ``shutdown`` log transport
    errors (``flush`` reports them). Only guard outcomes (``GuardrailBlockedError``,
    ``ApprovalDeniedError``, ``ApprovalTimeoutError``, ``GuardrailUnavailableError``) and the
    block's own exceptions reach the caller. Also a context manager: ``with WardenClient(...) as
    warden:`` shuts down at the end.
    """

    def ready(self, timeout: Optional[float] = None) -> None:
        """Returns once the agent is registered and its capabilities declared (a failed
        declaration is only logged). Raises the registration's error (``AuthenticationError``,
        ``APIConnectionError``, ...) when it failed, or ``APIConnectionError`` after ``timeout``
        seconds. Events made meanwhile are kept either way."""
        self._rt.identity.ready(timeout)

    def guard(
        self,
        *,
        action: Optional[Union[str, Mapping[str, Any]]] = None,
        tool: Optional[Union[str, Mapping[str, Any]]] = None,
        resource: Optional[Mapping[str, Any]] = None,
        risk_level: Optional[str] = None,
        arguments: Optional[Mapping[str, Any]] = None,
    ) -> GuardDecision:
        """Dry run: the full decision (``policy_decision``, ``effective_decision``,
        ``matched_guardrails``, ``would_block``, ``would_require_approval``) in the client's mode,
        without side effects (no approval, no event). Raises the transport's typed errors."""
        body = guard_input(action=action, tool=tool, resource=resource, risk_level=risk_level, arguments=arguments)
        scope = self._rt.current_scope()
        body["provenance"] = self._rt.provenance_of(scope, body.get("arguments") or {})
        return self._rt.guard.dry_run(body, scope)

    def flush(self, timeout: Optional[float] = None) -> FlushResult:
        """Sends what is queued (at most ``max_batch_size`` events a request) and reports what this
        flush sent and lost. Joins a flush in progress, then sends the rest. Never raises."""
        return self._rt.flush(timeout)

    def shutdown(self, timeout: Optional[float] = None) -> FlushResult:
        """Stops the periodic flush and sends the rest (waiting for a flush in progress). Never raises."""
        return self._rt.shutdown(timeout)

    def __enter__(self) -> "WardenClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()


class AsyncWardenClient(_ClientBase):
    """The asyncio flavour of :class:`WardenClient`: the same options and operations, with
    ``await`` for the ones that wait (``ready``, ``guard``, ``flush``, ``shutdown``) and
    ``async with`` for runs, tool calls and guarded actions (their guard calls and flushes run on
    the client's I/O threads, so the event loop never blocks). ``track*`` only queue: plain calls.

    ::

        async with AsyncWardenClient(agent="billing-assistant") as warden:
            async with warden.with_run("refund"):
                async with warden.with_tool("stripe.refund", arguments={"amount": 120}) as call:
                    call.result = await refund()
    """

    async def _blocking(self, fn: Callable[[], T]) -> T:
        if not self._rt.enabled:
            return fn()
        return await asyncio.wrap_future(self._rt.executor().submit(fn))

    async def ready(self, timeout: Optional[float] = None) -> None:
        """See :meth:`WardenClient.ready`."""
        await self._blocking(lambda: self._rt.identity.ready(timeout))

    async def guard(
        self,
        *,
        action: Optional[Union[str, Mapping[str, Any]]] = None,
        tool: Optional[Union[str, Mapping[str, Any]]] = None,
        resource: Optional[Mapping[str, Any]] = None,
        risk_level: Optional[str] = None,
        arguments: Optional[Mapping[str, Any]] = None,
    ) -> GuardDecision:
        """See :meth:`WardenClient.guard`."""
        body = guard_input(action=action, tool=tool, resource=resource, risk_level=risk_level, arguments=arguments)
        scope = self._rt.current_scope()
        body["provenance"] = self._rt.provenance_of(scope, body.get("arguments") or {})
        return await self._blocking(lambda: self._rt.guard.dry_run(body, scope))

    async def flush(self, timeout: Optional[float] = None) -> FlushResult:
        """See :meth:`WardenClient.flush`."""
        return await self._blocking(lambda: self._rt.flush(timeout))

    async def shutdown(self, timeout: Optional[float] = None) -> FlushResult:
        """See :meth:`WardenClient.shutdown`."""
        if not self._rt.enabled:
            return self._rt.shutdown(timeout)
        # Not on the I/O threads: shutdown closes them.
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, lambda: self._rt.shutdown(timeout))

    async def __aenter__(self) -> "AsyncWardenClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.shutdown()
