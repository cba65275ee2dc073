"""The service endpoints the client uses, with answers checked against the contract."""

from __future__ import annotations

import math
from typing import Any, Dict, Optional
from urllib.parse import quote

from ._logging import Log
from ._models import Approval, EventBatchResponse, GuardDecision, IdentifyResponse
from ._errors import WardenError
from ._transport import Transport

#: Longest long poll the client asks for, seconds (the contract allows up to 60).
APPROVAL_POLL_SECONDS = 20


class WardenApi:
    """Typed calls; every method raises the transport's typed errors, and :class:`ApiError` when an
    answer does not match the contract."""

    def __init__(self, transport: Transport, log: Log) -> None:
        self.transport = transport
        self._log = log

    def identify(self, body: Dict[str, Any]) -> IdentifyResponse:
        """``POST /v1/agents/identify``: the agent and version ids (idempotent)."""
        return IdentifyResponse.from_dict(self.transport.request("POST", "/v1/agents/identify", body), "identify")

    def declare_capabilities(self, agent_id: str, agent_version_id: str, body: Dict[str, Any]) -> None:
        """``PUT /v1/agents/{agentId}/versions/{agentVersionId}/capabilities``: replaces the declared set."""
        path = f"/v1/agents/{quote(agent_id, safe='')}/versions/{quote(agent_version_id, safe='')}/capabilities"
        self.transport.request("PUT", path, body)

    def send_events(self, raw_body: bytes, count: int, deadline: Optional[float] = None) -> EventBatchResponse:
        """``POST /v1/events`` with a serialised ``{"events": [...]}`` body of ``count`` events.

        An unreadable 2xx answer is taken as "all accepted" (the service did take the batch) and logged.
        """
        res = self.transport.request("POST", "/v1/events", raw_body=raw_body, deadline=deadline)
        try:
            return EventBatchResponse.from_dict(res, "events")
        except WardenError:
            self._log.warning("warden events answer unreadable, assuming accepted", events=count)
            return EventBatchResponse(accepted=count, rejected=[])

    def evaluate(self, body: Dict[str, Any]) -> GuardDecision:
        """``POST /v1/guardrails/evaluate``: the decision."""
        return GuardDecision.from_dict(self.transport.request("POST", "/v1/guardrails/evaluate", body), "evaluate")

    def get_approval(self, approval_id: str, wait_seconds: float) -> Approval:
        """``GET /v1/approvals/{id}?waitSeconds=N``: the approval, long-polling while pending."""
        wait = max(0, min(60, math.ceil(wait_seconds)))
        res = self.transport.request(
            "GET", f"/v1/approvals/{quote(approval_id, safe='')}?waitSeconds={wait}", extra_timeout_ms=wait * 1000
        )
        return Approval.from_dict(res, "approval")
