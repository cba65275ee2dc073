"""What the framework adapters share: the guard's stop errors, the message a model reads when a
call was stopped, and tolerant readers of the frameworks' token usage and arguments."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Dict, Mapping, Optional

from .._errors import ApprovalDeniedError, ApprovalTimeoutError, GuardrailBlockedError, GuardrailUnavailableError

#: The errors by which the guard stops a call before it runs (enforce mode, or ``fail_mode='closed'``).
GUARD_STOPS = (GuardrailBlockedError, ApprovalDeniedError, ApprovalTimeoutError, GuardrailUnavailableError)

#: ``on_block`` values: ``"message"`` returns :func:`stopped_message` to the model as the tool's
#: output (the run goes on and the model can react), ``"raise"`` lets the guard's error end the run.
ON_BLOCK = ("message", "raise")


def check_on_block(on_block: str) -> str:
    """``on_block`` when it is one of :data:`ON_BLOCK`. Raises ``ValueError`` otherwise."""
    if on_block not in ON_BLOCK:
        raise ValueError(f"on_block must be one of {', '.join(ON_BLOCK)}, got {on_block!r}")
    return on_block


def stopped_message(tool: str, error: BaseException) -> str:
    """The tool output a model reads when the guard stopped ``tool``: what happened and the matched
    guardrails' reasons (reasons never quote argument values, docs/guardrails.md), never a secret."""
    decision = getattr(error, "decision", None)
    reasons = [g.reason for g in getattr(decision, "matched_guardrails", None) or [] if getattr(g, "reason", None)]
    why = f" Reason: {'; '.join(reasons)}" if reasons else ""
    return f"Agent Warden stopped the call to {tool} before it ran ({error}).{why} Do not retry it unchanged."


def parse_arguments(raw: Any) -> Optional[Dict[str, Any]]:
    """A tool's arguments as a mapping: a JSON object text is parsed, a mapping is copied, anything
    else (a bare string, a list, bad JSON) becomes ``{"input": raw}``; None for no input."""
    if raw is None or raw == "":
        return None
    value = raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except ValueError:
            return {"input": raw}
    if isinstance(value, Mapping):
        return dict(value)
    return {"input": value}


def int_or_none(value: Any) -> Optional[int]:
    """``value`` when it is a non-negative int (not a bool), else None (a token count the contract accepts)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def iso_duration_ms(started_at: Optional[str], ended_at: Optional[str]) -> Optional[float]:
    """Milliseconds between two ISO 8601 timestamps; None when either is missing or unreadable."""
    if not started_at or not ended_at:
        return None
    try:
        ms = (datetime.fromisoformat(ended_at) - datetime.fromisoformat(started_at)).total_seconds() * 1000
    except ValueError:
        return None
    return ms if ms >= 0 else None
