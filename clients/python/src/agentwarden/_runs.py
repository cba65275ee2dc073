"""Runs: ``with_run`` as a context manager (``with`` / ``async with``) and a decorator."""

from __future__ import annotations

import asyncio
import functools
import inspect
import time
from typing import TYPE_CHECKING, Any, Callable, Dict, Mapping, Optional, Tuple, TypeVar, cast

from ._context import Scope
from ._llm import record_llm_call
from ._score import ScoreValue, record_score
from ._serialize import to_json_object, truncate
from ._tools import GuardSpan, ToolSpan, is_cancel
from ._track import (
    client_id,
    mark_untrusted,
    elapsed_ms,
    error_info,
    record_tool,
    track_action,
    track_custom,
    track_event,
    track_message,
)

if TYPE_CHECKING:  # pragma: no cover
    from ._runtime import Runtime

F = TypeVar("F", bound=Callable[..., Any])


# -- runs ---------------------------------------------------------------------------------------


class RunContext:
    """The run a ``with_run`` block runs in. Its methods attach to this run even when called from
    another thread; ``client.with_tool(...)`` inside the block attaches too (context variable).

    Attributes:
        run_id: id (UUIDv7) of the run.
        session_id: id of the run's session.
        name: name of the run.
        output_summary: set it to send a summary with ``agent.run.completed`` (<= 10,000 chars).
    """

    def __init__(self, rt: "Runtime", scope: Scope, name: Optional[str]) -> None:
        self._rt = rt
        self._scope = scope
        self.run_id: str = cast(str, scope.run_id)
        self.session_id: str = scope.session_id
        self.name = name
        self.output_summary: Optional[str] = None
        self._cancelled = False
        self._started = time.perf_counter()

    def cancel(self) -> None:
        """Marks the run ``cancelled``: it completes with that status when the block ends."""
        self._cancelled = True

    @property
    def is_cancelled(self) -> bool:
        return self._cancelled

    def with_run(self, name: Optional[str] = None, **options: Any) -> "RunSpan":
        """A child run of this run (same options as ``client.with_run``)."""
        return RunSpan(self._rt, name, parent=self._scope, **options)

    def with_tool(self, name: Optional[str] = None, **options: Any) -> "ToolSpan":
        """``with_tool`` in this run; see ``WardenClient.with_tool``."""
        return ToolSpan(self._rt, name, scope=self._scope, **options)

    def with_guard(self, **guard_input: Any) -> "GuardSpan":
        """``with_guard`` in this run; see ``WardenClient.with_guard``."""
        return GuardSpan(self._rt, scope=self._scope, **guard_input)

    def record_tool(self, name: str, **options: Any) -> str:
        """``record_tool`` in this run."""
        return record_tool(self._rt, self._scope, name, **options)

    def track(self, name: str, data: Any = None) -> str:
        """``track`` in this run (``agent.custom``)."""
        return track_custom(self._rt, self._scope, name, data)

    def track_action(self, action_type: str, name: str, **options: Any) -> str:
        """``track_action`` in this run (``agent.action.performed``)."""
        return track_action(self._rt, self._scope, action_type, name, **options)

    def track_message(self, role: str, content: Any) -> str:
        """``track_message`` in this run (``agent.message.logged``)."""
        return track_message(self._rt, self._scope, role, content)

    def track_event(self, type: str, data: Mapping[str, Any], *, parent_id: Optional[str] = None) -> str:
        """``track_event`` in this run."""
        return track_event(self._rt, self._scope, type, data, run_id=None, parent_id=parent_id)

    def score(
        self,
        name: str,
        value: ScoreValue,
        *,
        source: str = "rule",
        comment: Optional[str] = None,
        score_id: Optional[str] = None,
    ) -> str:
        """``score`` on this run (``agent.score.recorded``); see ``WardenClient.score``."""
        return record_score(self._rt, self._scope, name, value, source=source, comment=comment, score_id=score_id)

    def track_llm_call(self, model: str, **fields: Any) -> str:
        """``agent.llm.called``: one model invocation in this run (docs/architecture.md#llm-calls).
        ``fields`` are the keyword arguments of ``record_llm_call`` (``_llm.py``): ``provider``,
        ``operation`` (default ``chat``), ``response_model``, ``input_tokens``, ``output_tokens``,
        ``cached_input_tokens`` (ints), ``duration_ms`` (ms), ``cost_usd`` (USD; the service prices
        the call from its table when absent), ``finish_reasons``, ``error`` (an exception, a
        ``{message, type}`` mapping or a message), ``attributes``, ``llm_call_id`` (a UUIDv7).
        Returns the event id, ``""`` when the input cannot be an LLM call (logged, nothing sent)."""
        return record_llm_call(self._rt, self._scope, model, **fields)

    def mark_trusted(self, value: Any) -> None:
        """``mark_trusted`` in this run; see ``WardenClient.mark_trusted``."""
        self._rt.note_trusted(self._scope, value)

    def mark_untrusted(self, value: Any, tool_name: Optional[str] = None, tool_call_id: Optional[str] = None) -> None:
        """``mark_untrusted`` in this run; see ``WardenClient.mark_untrusted``."""
        mark_untrusted(self._rt, self._scope, value, tool_name, tool_call_id)

    def provenance_of(self, arguments: Optional[Mapping[str, Any]]) -> Optional[Dict[str, Any]]:
        """``provenance_of`` in this run; see ``WardenClient.provenance_of``."""
        return self._rt.provenance_of(self._scope, to_json_object(arguments) or {})


def start_run(
    rt: "Runtime",
    parent: Scope,
    name: Optional[str],
    *,
    input_summary: Optional[str] = None,
    attributes: Optional[Mapping[str, Any]] = None,
    run_id: Optional[str] = None,
) -> RunContext:
    """Emits ``agent.run.started`` for a run in ``parent`` (a child run when ``parent`` has a run)
    and opens its provenance sources (docs/provenance.md), without making it current: the run of
    callbacks that start and end on different stacks (framework adapters, ``agentwarden.integrations``).
    End it with :func:`end_run`. ``run_id`` (a UUIDv7) defaults to a new id."""
    run_id = client_id(rt, run_id, "run_id")
    cut = truncate(name, 200)
    started_id = rt.recorder.emit(
        "agent.run.started",
        {
            "name": cut,
            "inputSummary": truncate(input_summary, 10_000),
            "attributes": to_json_object(attributes),
        },
        parent.session_id,
        run_id,
        parent.run_started_event_id if parent.run_id else None,
    )
    scope = Scope(parent.session_id, run_id, started_id)
    run = RunContext(rt, scope, cut)
    run._scope = scope._replace(run=run)
    run._started = time.perf_counter()
    if rt.provenance is not None:  # the run's sources: dropped when it ends (docs/provenance.md)
        rt.provenance.open_run(run_id, parent.run_id)
        rt.note_trusted(run._scope, input_summary)
    return run


def end_run(run: RunContext, exc: Optional[BaseException] = None) -> None:
    """Emits ``agent.run.completed`` for a run made by :func:`start_run`: ``succeeded``, ``failed``
    (``exc``) or ``cancelled`` (``run.cancel()``, a cancellation), ``durationMs`` since the start,
    ``run.output_summary``; then drops the run's provenance sources. Does not flush."""
    rt = run._rt
    if exc is None:
        status = "cancelled" if run.is_cancelled else "succeeded"
    else:
        status = "cancelled" if run.is_cancelled or is_cancel(exc) else "failed"
    rt.recorder.emit(
        "agent.run.completed",
        {
            "status": status,
            "outputSummary": truncate(run.output_summary, 10_000),
            "error": error_info(exc) if exc is not None else None,
            "durationMs": elapsed_ms(run._started),
        },
        run.session_id,
        run.run_id,
        run._scope.run_started_event_id,
    )
    if rt.provenance is not None:
        rt.provenance.close_run(run.run_id)


class RunSpan:
    """What ``with_run(...)`` returns: ``with`` / ``async with`` it (yields a :class:`RunContext`),
    or decorate a function with it (each call is a run).

    ``agent.run.started`` on entry; ``agent.run.completed`` on exit with status ``succeeded``,
    ``failed`` (an exception; it propagates), or ``cancelled`` (``run.cancel()``,
    ``asyncio.CancelledError``, ``KeyboardInterrupt``), ``durationMs`` and ``output_summary``; then
    a flush, before the block's exception or result goes on.
    """

    def __init__(
        self,
        rt: "Runtime",
        name: Optional[str] = None,
        *,
        input_summary: Optional[str] = None,
        attributes: Optional[Mapping[str, Any]] = None,
        run_id: Optional[str] = None,
        parent: Optional[Scope] = None,
    ) -> None:
        self._rt = rt
        self._name = name
        self._input_summary = input_summary
        self._attributes = attributes
        self._run_id = run_id
        self._parent = parent
        self._state: Optional[Tuple[Any, ...]] = None

    def _open(self) -> RunContext:
        if self._state is not None:
            raise RuntimeError("this with_run(...) is already entered; call with_run(...) again for another run")
        rt = self._rt
        parent = self._parent or rt.current_scope()
        run = start_run(
            rt, parent, self._name, input_summary=self._input_summary, attributes=self._attributes, run_id=self._run_id
        )
        token = rt.scope_var.set(run._scope)
        self._state = (run, token)
        return run

    def _close(self, exc: Optional[BaseException]) -> None:
        if self._state is None:
            return
        run, token = self._state
        self._state = None
        end_run(run, exc)
        try:
            self._rt.scope_var.reset(token)
        except ValueError:  # exited in another context than entered: restore the parent run
            self._rt.scope_var.set(self._parent if self._parent is not None and self._parent.run_id else None)

    def __enter__(self) -> RunContext:
        return self._open()

    def __exit__(self, exc_type: Any, exc: Optional[BaseException], tb: Any) -> None:
        self._close(exc)
        self._rt.flush()

    async def __aenter__(self) -> RunContext:
        return self._open()

    async def __aexit__(self, exc_type: Any, exc: Optional[BaseException], tb: Any) -> None:
        self._close(exc)
        if self._rt.enabled:
            await asyncio.wrap_future(self._rt.executor().submit(self._rt.flush))

    def _again(self, default_name: Optional[str]) -> "RunSpan":
        return RunSpan(
            self._rt,
            self._name or default_name,
            input_summary=self._input_summary,
            attributes=self._attributes,
            parent=self._parent,
        )

    def __call__(self, fn: F) -> F:
        """Decorates ``fn``: each call runs as a run named after the function (unless named)."""
        default = getattr(fn, "__qualname__", None)
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def arun(*args: Any, **kwargs: Any) -> Any:
                async with self._again(default):
                    return await fn(*args, **kwargs)

            return cast(F, arun)

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            with self._again(default):
                return fn(*args, **kwargs)

        return cast(F, run)
