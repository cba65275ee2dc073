"""Events whose outcome is known when they are made: ``track*`` and ``record_tool`` (never raise)."""

from __future__ import annotations

import functools
import json
import time
from typing import TYPE_CHECKING, Any, Callable, Dict, Mapping, Optional, TypeVar, cast

from ._context import Scope
from ._ids import is_uuid7, uuid7
from ._serialize import to_json_object, to_json_safe, truncate

if TYPE_CHECKING:  # pragma: no cover
    from ._runtime import Runtime

F = TypeVar("F", bound=Callable[..., Any])

#: Longest message content kept, characters (the contract's limit); longer is cut and marked ``truncated``.
MAX_MESSAGE_CHARS = 100_000


def drop_none(d: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def elapsed_ms(t0: float) -> float:
    return max(0.0, round((time.perf_counter() - t0) * 1000, 1))


def error_info(e: object) -> Dict[str, Any]:
    """``{message, type}`` of anything raised or logged (message <= 10,000 chars; type = class name)."""
    if isinstance(e, str):
        return {"message": truncate(e, 10_000) or ""}
    if isinstance(e, BaseException):
        return {"message": truncate(str(e), 10_000) or "", "type": truncate(type(e).__name__, 200)}
    if isinstance(e, Mapping) and isinstance(e.get("message"), str):
        kind = e.get("type")
        return drop_none(
            {
                "message": truncate(e["message"], 10_000) or "",
                "type": truncate(kind, 200) if isinstance(kind, str) else None,
            }
        )
    return {"message": truncate(json.dumps(to_json_safe(e)), 10_000) or ""}


def tool_name(name: object) -> str:
    return truncate(name if isinstance(name, str) and name else "unnamed", 200) or "unnamed"


def client_id(rt: "Runtime", value: Optional[str], option: str) -> str:
    if value is None:
        return uuid7()
    if is_uuid7(value):
        return value
    rt.log.warning(f"warden {option} is not a UUIDv7, using a new one", **{option: value})
    return uuid7()


# -- records and tracks (never raise) -----------------------------------------------------------


def _never_raises(what: str) -> Callable[[F], F]:
    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def safe(rt: "Runtime", *args: Any, **kwargs: Any) -> Any:
            try:
                return fn(rt, *args, **kwargs)
            except Exception as e:
                from ._logging import error_fields

                rt.log.error("warden could not track event", type=what, **error_fields(e))
                return ""

        return cast(F, safe)

    return wrap


@_never_raises("agent.tool.started")
def record_tool(
    rt: "Runtime",
    scope: Scope,
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
    """Records a tool call whose outcome is known (replays): started, then completed or failed."""
    tool = tool_name(name)
    call_id = client_id(rt, tool_call_id, "tool_call_id")
    started_id = rt.recorder.emit(
        "agent.tool.started",
        {
            "toolCallId": call_id,
            "toolName": tool,
            "arguments": to_json_object(arguments),
            "actionType": action_type,
            "riskLevel": risk_level,
            "resource": to_json_object(resource),
        },
        scope.session_id,
        scope.run_id,
    )
    try:
        duration = max(0.0, float(duration_ms or 0))
    except (TypeError, ValueError):
        duration = 0.0
    if error is not None:
        info = error_info(error)
        rt.note_tool(scope, info["message"], tool, call_id)
        data = {"toolCallId": call_id, "toolName": tool, "error": info, "durationMs": duration}
        rt.recorder.emit("agent.tool.failed", data, scope.session_id, scope.run_id, started_id)
    else:
        rt.note_tool(scope, result, tool, call_id)
        data = {"toolCallId": call_id, "toolName": tool, "result": to_json_safe(result), "durationMs": duration}
        rt.recorder.emit("agent.tool.completed", data, scope.session_id, scope.run_id, started_id)
    return call_id


@_never_raises("agent.custom")
def track_custom(rt: "Runtime", scope: Scope, name: str, data: Any = None) -> str:
    """``agent.custom`` ``{name, data}``."""
    return rt.recorder.emit(
        "agent.custom",
        {"name": truncate(name or "custom", 200), "data": to_json_safe(data)},
        scope.session_id,
        scope.run_id,
    )


@_never_raises("agent.action.performed")
def track_action(
    rt: "Runtime",
    scope: Scope,
    action_type: str,
    name: str,
    *,
    resource: Optional[Mapping[str, Any]] = None,
    risk_level: Optional[str] = None,
    details: Optional[Mapping[str, Any]] = None,
) -> str:
    """``agent.action.performed``."""
    return rt.recorder.emit(
        "agent.action.performed",
        {
            "actionType": truncate(action_type or "unknown", 200),
            "name": truncate(name or "unnamed", 200),
            "resource": to_json_object(resource),
            "riskLevel": risk_level,
            "details": to_json_object(details),
        },
        scope.session_id,
        scope.run_id,
    )


@_never_raises("agent.message.logged")
def track_message(rt: "Runtime", scope: Scope, role: str, content: Any) -> str:
    """``agent.message.logged`` (content cut to 100,000 characters, then ``truncated: True``). A
    ``user`` message is a trusted source of provenance, a ``tool`` message an untrusted one
    (docs/provenance.md "Sources")."""
    if role == "user":
        rt.note_trusted(scope, content)
    elif role == "tool":
        rt.note_tool(scope, content, None, None)
    text = content if isinstance(content, str) else json.dumps(to_json_safe(content))
    cut = len(text) > MAX_MESSAGE_CHARS
    return rt.recorder.emit(
        "agent.message.logged",
        {"role": role, "content": text[:MAX_MESSAGE_CHARS] if cut else text, "truncated": True if cut else None},
        scope.session_id,
        scope.run_id,
    )


@_never_raises("agent.custom")
def track_event(
    rt: "Runtime",
    scope: Scope,
    type: str,
    data: Mapping[str, Any],
    *,
    run_id: Optional[str] = None,
    parent_id: Optional[str] = None,
) -> str:
    """Any contract event type with its ``data`` (camelCase wire fields, made JSON-safe). The
    service validates it; a wrong payload is counted in ``flush().rejected``."""
    safe = to_json_object(data) or {}
    return rt.recorder.emit(type, safe, scope.session_id, run_id or scope.run_id, parent_id)


def mark_untrusted(rt: "Runtime", scope: Scope, value: Any, name: Optional[str], tool_call_id: Optional[str]) -> None:
    """Records ``value`` as untrusted tool output (docs/provenance.md "Sources"). A ``tool_call_id``
    that is not a UUIDv7 is logged and left out (the wire accepts only UUIDv7 call ids)."""
    if tool_call_id is not None and not is_uuid7(tool_call_id):
        rt.log.warning("warden tool_call_id is not a UUIDv7, left out of provenance", tool_call_id=tool_call_id)
        tool_call_id = None
    rt.note_tool(scope, value, name if isinstance(name, str) and name else None, tool_call_id)
