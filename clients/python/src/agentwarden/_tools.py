"""Tool calls and guarded actions: context managers (``with`` / ``async with``) and decorators."""

from __future__ import annotations

import asyncio
import functools
import inspect
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Dict, Mapping, Optional, Tuple, TypeVar, Union, cast

from ._context import Scope
from ._models import Approval, GuardCheckResult, GuardDecision
from ._serialize import to_json_object, to_json_safe
from ._track import client_id, drop_none, elapsed_ms, error_info, tool_name

if TYPE_CHECKING:  # pragma: no cover
    from ._runtime import Runtime

F = TypeVar("F", bound=Callable[..., Any])


def is_cancel(e: Optional[BaseException]) -> bool:
    return isinstance(e, (asyncio.CancelledError, KeyboardInterrupt))


def _in_thread(rt: "Runtime", fn: Callable[[], Any], on_late_success: Callable[[Any], None]) -> "asyncio.Future[Any]":
    """Runs blocking ``fn`` (a guard call) on the client's I/O threads with the caller's context.
    When the awaiting task is cancelled while ``fn`` still runs, ``on_late_success`` gets its
    result once it is done (to close what it opened)."""
    import contextvars

    ctx = contextvars.copy_context()
    cfut = rt.executor().submit(ctx.run, fn)

    async def wait() -> Any:
        try:
            return await asyncio.wrap_future(cfut)
        except asyncio.CancelledError:

            def late(f: Any) -> None:
                if not f.cancelled() and f.exception() is None:
                    on_late_success(f.result())

            cfut.add_done_callback(late)
            raise

    return cast("asyncio.Future[Any]", wait())


# -- tool calls ---------------------------------------------------------------------------------


class ToolCall:
    """What a ``with_tool`` block gets.

    Attributes:
        tool_call_id: id (UUIDv7) of the call.
        name: tool name.
        decision: the guard decision (None with ``guard=False``, or when the guard failed open).
        policy_decision: what the policies said (``decision.policy_decision``).
        effective_decision: what the client did (``allow`` / ``warn``; None without a guard).
        outcome: ``ran`` or ``failed_open`` (None without a guard).
        approval: the granted approval, when one was needed.
        result: set it (or call :meth:`set_result`) to record the call's result.
    """

    def __init__(self, tool_call_id: str, name: str) -> None:
        self.tool_call_id = tool_call_id
        self.name = name
        self.decision: Optional[GuardDecision] = None
        self.effective_decision: Optional[str] = None
        self.outcome: Optional[str] = None
        self.approval: Optional[Approval] = None
        self.result: Any = None

    @property
    def policy_decision(self) -> Optional[str]:
        return self.decision.policy_decision if self.decision else None

    def set_result(self, value: Any) -> Any:
        """Records ``value`` as the call's result and returns it."""
        self.result = value
        return value


class ToolSpan:
    """What ``with_tool(...)`` returns: ``with`` / ``async with`` it (yields a :class:`ToolCall`),
    or decorate a function with it (each call is a tool call; its arguments and return value are
    recorded).

    On entry: the guard (unless ``guard=False``; may raise ``GuardrailBlockedError``,
    ``ApprovalDeniedError``, ``ApprovalTimeoutError``, ``GuardrailUnavailableError`` — the block
    does not run), then ``agent.tool.started``. On exit: ``agent.tool.completed`` (``call.result``,
    ``durationMs``) or ``agent.tool.failed`` (the exception, which propagates).
    """

    def __init__(
        self,
        rt: "Runtime",
        name: Optional[str] = None,
        *,
        arguments: Optional[Mapping[str, Any]] = None,
        action_type: Optional[str] = None,
        risk_level: Optional[str] = None,
        resource: Optional[Mapping[str, Any]] = None,
        guard: bool = True,
        tool_call_id: Optional[str] = None,
        scope: Optional[Scope] = None,
    ) -> None:
        self._rt = rt
        self._name = name
        self._arguments = arguments
        self._action_type = action_type
        self._risk_level = risk_level
        self._resource = resource
        self._guard = guard
        self._tool_call_id = tool_call_id
        self._scope = scope
        self._state: Optional[Tuple[Any, ...]] = None
        self._cancel = threading.Event()

    def _open(self) -> ToolCall:
        if self._state is not None:
            raise RuntimeError("this with_tool(...) is already entered; call with_tool(...) again for another call")
        rt = self._rt
        scope = self._scope or rt.current_scope()
        name = tool_name(self._name)
        call = ToolCall(client_id(rt, self._tool_call_id, "tool_call_id"), name)
        args = to_json_object(self._arguments)
        resource = to_json_object(self._resource)
        if self._guard:
            checked = rt.guard.check(
                {
                    "tool": {"name": name},
                    "action": drop_none({"type": self._action_type, "name": name}),
                    "resource": resource,
                    "riskLevel": self._risk_level,
                    "arguments": args,
                    "provenance": rt.provenance_of(scope, args or {}),
                },
                f"tool {name}",
                scope,
                call.tool_call_id,
                self._cancel,
            )
            call.decision = checked.decision
            call.effective_decision = checked.effective_decision
            call.outcome = checked.outcome
            call.approval = checked.approval
        started_id = rt.recorder.emit(
            "agent.tool.started",
            {
                "toolCallId": call.tool_call_id,
                "toolName": name,
                "arguments": args,
                "actionType": self._action_type,
                "riskLevel": self._risk_level,
                "resource": resource,
            },
            scope.session_id,
            scope.run_id,
        )
        self._state = (call, scope, started_id, time.perf_counter())
        return call

    def _close(self, exc: Optional[BaseException]) -> None:
        if self._state is None:
            return
        call, scope, started_id, t0 = self._state
        self._state = None
        duration = elapsed_ms(t0)
        # What the tool returned (or its error's message) enters the agent's context: untrusted.
        self._rt.note_tool(scope, call.result if exc is None else str(exc), call.name, call.tool_call_id)
        if exc is None:
            self._rt.recorder.emit(
                "agent.tool.completed",
                {
                    "toolCallId": call.tool_call_id,
                    "toolName": call.name,
                    "result": to_json_safe(call.result),
                    "durationMs": duration,
                },
                scope.session_id,
                scope.run_id,
                started_id,
            )
        else:
            self._rt.recorder.emit(
                "agent.tool.failed",
                {
                    "toolCallId": call.tool_call_id,
                    "toolName": call.name,
                    "error": error_info(exc),
                    "durationMs": duration,
                },
                scope.session_id,
                scope.run_id,
                started_id,
            )

    def __enter__(self) -> ToolCall:
        return self._open()

    def __exit__(self, exc_type: Any, exc: Optional[BaseException], tb: Any) -> None:
        self._close(exc)

    async def __aenter__(self) -> ToolCall:
        if not self._guard or not self._rt.enabled:
            return self._open()
        try:
            return cast(
                ToolCall, await _in_thread(self._rt, self._open, lambda _call: self._close(asyncio.CancelledError()))
            )
        except asyncio.CancelledError:
            self._cancel.set()  # stop waiting for an approval
            raise

    async def __aexit__(self, exc_type: Any, exc: Optional[BaseException], tb: Any) -> None:
        self._close(exc)

    def _again(self, fn: Callable[..., Any], args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> "ToolSpan":
        arguments = self._arguments
        if arguments is None:
            arguments = _bound_arguments(fn, args, kwargs)
        return ToolSpan(
            self._rt,
            self._name or getattr(fn, "__name__", None),
            arguments=arguments,
            action_type=self._action_type,
            risk_level=self._risk_level,
            resource=self._resource,
            guard=self._guard,
            scope=self._scope,
        )

    def __call__(self, fn: F) -> F:
        """Decorates ``fn``: each call is a guarded tool call named after the function (unless
        named), with the call's arguments (unless given) and its return value as the result."""
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def acall(*args: Any, **kwargs: Any) -> Any:
                async with self._again(fn, args, kwargs) as call:
                    return call.set_result(await fn(*args, **kwargs))

            return cast(F, acall)

        @functools.wraps(fn)
        def call_(*args: Any, **kwargs: Any) -> Any:
            with self._again(fn, args, kwargs) as call:
                return call.set_result(fn(*args, **kwargs))

        return cast(F, call_)


def _bound_arguments(fn: Callable[..., Any], args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Dict[str, Any]:
    try:
        bound = inspect.signature(fn).bind_partial(*args, **kwargs)
    except (TypeError, ValueError):
        return {"args": list(args), **kwargs}
    out: Dict[str, Any] = {}
    for k, v in bound.arguments.items():
        if k in ("self", "cls") and not out:
            continue
        out[k] = v
    return out


# -- guarded actions ----------------------------------------------------------------------------


def guard_input(
    *,
    action: Optional[Union[str, Mapping[str, Any]]] = None,
    tool: Optional[Union[str, Mapping[str, Any]]] = None,
    resource: Optional[Mapping[str, Any]] = None,
    risk_level: Optional[str] = None,
    arguments: Optional[Mapping[str, Any]] = None,
) -> Dict[str, Any]:
    """The wire form of what a guarded call describes (``action`` as ``{type?, name?}`` or a
    type string; ``tool`` as ``{name}`` or a name)."""
    if isinstance(action, str):
        action = {"type": action}
    if isinstance(tool, str):
        tool = {"name": tool}
    return drop_none(
        {
            "action": drop_none({"type": action.get("type"), "name": action.get("name")}) if action else None,
            "tool": {"name": tool_name(tool.get("name"))} if tool else None,
            "resource": to_json_object(resource),
            "riskLevel": risk_level,
            "arguments": to_json_object(arguments),
        }
    )


class GuardSpan:
    """What ``with_guard(...)`` returns: guards a non-tool action without tool events. ``with`` it
    (yields a :class:`GuardCheckResult`) or decorate a function with it. Raises the guard errors of
    ``with_tool`` on entry."""

    def __init__(self, rt: "Runtime", *, scope: Optional[Scope] = None, **guard_kwargs: Any) -> None:
        self._rt = rt
        self._scope = scope
        self._input = guard_input(**guard_kwargs)
        self._cancel = threading.Event()

    def _check(self) -> GuardCheckResult:
        tool = self._input.get("tool")
        action = self._input.get("action") or {}
        what = f"tool {tool['name']}" if tool else f"action {action.get('name') or action.get('type') or 'unnamed'}"
        scope = self._scope or self._rt.current_scope()
        checked = dict(self._input)
        checked["provenance"] = self._rt.provenance_of(scope, self._input.get("arguments") or {})
        return self._rt.guard.check(checked, what, scope, None, self._cancel)

    def __enter__(self) -> GuardCheckResult:
        return self._check()

    def __exit__(self, *exc: Any) -> None:
        return None

    async def __aenter__(self) -> GuardCheckResult:
        if not self._rt.enabled:
            return self._check()
        try:
            return cast(GuardCheckResult, await _in_thread(self._rt, self._check, lambda _r: None))
        except asyncio.CancelledError:
            self._cancel.set()
            raise

    async def __aexit__(self, *exc: Any) -> None:
        return None

    def __call__(self, fn: F) -> F:
        """Decorates ``fn``: each call is guarded first."""
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def aguarded(*args: Any, **kwargs: Any) -> Any:
                async with GuardSpan(self._rt, scope=self._scope, **_kwargs_of(self._input)):
                    return await fn(*args, **kwargs)

            return cast(F, aguarded)

        @functools.wraps(fn)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            with GuardSpan(self._rt, scope=self._scope, **_kwargs_of(self._input)):
                return fn(*args, **kwargs)

        return cast(F, guarded)


def _kwargs_of(wire: Dict[str, Any]) -> Dict[str, Any]:
    return {
        "action": wire.get("action"),
        "tool": wire.get("tool"),
        "resource": wire.get("resource"),
        "risk_level": wire.get("riskLevel"),
        "arguments": wire.get("arguments"),
    }
