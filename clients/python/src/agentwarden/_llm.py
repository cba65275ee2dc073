"""``track_llm_call(...)``: one model invocation as ``agent.llm.called`` (docs/architecture.md#llm-calls)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Sequence

from ._context import Scope
from ._ids import is_uuid7
from ._serialize import truncate

if TYPE_CHECKING:  # pragma: no cover
    from ._runtime import Runtime

#: Largest token count the contract accepts per call (``LLM_TOKENS_MAX``).
LLM_TOKENS_MAX = 2_000_000_000


def _tokens(name: str, value: object) -> Optional[str]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value > LLM_TOKENS_MAX:
        return f"{name} must be an int from 0 to {LLM_TOKENS_MAX}"
    return None


def _non_negative(name: str, value: object) -> Optional[str]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        return f"{name} must be a finite number >= 0"
    return None


def record_llm_call(
    rt: "Runtime",
    scope: Scope,
    model: str,
    *,
    provider: Optional[str] = None,
    operation: str = "chat",
    response_model: Optional[str] = None,
    input_tokens: Optional[int] = None,
    output_tokens: Optional[int] = None,
    cached_input_tokens: Optional[int] = None,
    duration_ms: Optional[float] = None,
    cost_usd: Optional[float] = None,
    finish_reasons: Optional[Sequence[str]] = None,
    error: Optional[BaseException | Mapping[str, Any] | str] = None,
    attributes: Optional[Mapping[str, Any]] = None,
    llm_call_id: Optional[str] = None,
) -> str:
    """``agent.llm.called`` in ``scope`` (its run when it has one, else the session): ``model``
    (``gen_ai.request.model``), token counts (ints), ``duration_ms`` (latency, ms), ``cost_usd``
    (USD; when absent the service prices the call from its table), ``error`` (an exception, a
    ``{message, type}`` mapping or a message). Returns the event id, ``""`` when the input cannot be
    an LLM call (logged, nothing sent). Never raises."""
    try:
        problem = None
        if not isinstance(model, str) or not model:
            problem = "model must be a non-empty string"
        for name, value in (
            ("input_tokens", input_tokens),
            ("output_tokens", output_tokens),
            ("cached_input_tokens", cached_input_tokens),
        ):
            problem = problem or _tokens(name, value)
        problem = problem or _non_negative("duration_ms", duration_ms) or _non_negative("cost_usd", cost_usd)
        if llm_call_id is not None and not (isinstance(llm_call_id, str) and is_uuid7(llm_call_id)):
            problem = problem or "llm_call_id must be a UUIDv7"
        if problem:
            rt.log.error("warden llm call not recorded", model=str(model), reason=problem)
            return ""
        err: Optional[Dict[str, str]] = None
        if isinstance(error, BaseException):
            err = {"message": truncate(str(error), 10_000), "type": type(error).__name__}
        elif isinstance(error, Mapping):
            err = {"message": truncate(str(error.get("message", "")), 10_000)}
            if error.get("type") is not None:
                err["type"] = truncate(str(error["type"]), 200)
        elif error is not None:
            err = {"message": truncate(str(error), 10_000)}
        data = {
            "llmCallId": llm_call_id,
            "operation": truncate(operation or "chat", 100),
            "provider": truncate(provider, 100) if provider else None,
            "model": truncate(model, 200),
            "responseModel": truncate(response_model, 200) if response_model else None,
            "inputTokens": input_tokens,
            "outputTokens": output_tokens,
            "cachedInputTokens": cached_input_tokens,
            "durationMs": duration_ms,
            "costUsd": cost_usd,
            "finishReasons": [truncate(str(r), 100) for r in finish_reasons][:20] if finish_reasons else None,
            "error": err,
            "attributes": dict(attributes) if attributes else None,
        }
        return rt.recorder.emit("agent.llm.called", data, scope.session_id, scope.run_id)
    except Exception as e:
        from ._logging import error_fields

        rt.log.error("warden could not track event", type="agent.llm.called", **error_fields(e))
        return ""
