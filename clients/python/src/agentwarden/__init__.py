"""agentwarden — Python client of Agent Warden: agent telemetry (sessions, runs, tool calls,
actions, messages) and guardrails (monitor / enforce, human approvals). Standard library only.

::

    from agentwarden import WardenClient

    warden = WardenClient(agent="billing-assistant")  # WARDEN_BASE_URL / WARDEN_API_KEY from the environment
    with warden.with_tool("stripe.refund", arguments={"amount": 120}, risk_level="high") as call:
        call.result = refund()
"""

from ._client import AsyncWardenClient, WardenClient
from ._errors import (
    APIConnectionError,
    ApiError,
    ApprovalDeniedError,
    ApprovalTimeoutError,
    AuthenticationError,
    ConfigurationError,
    GuardrailBlockedError,
    GuardrailUnavailableError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServiceUnavailableError,
    ValidationError,
    WardenError,
)
from ._ids import is_uuid7, uuid7
from ._models import (
    Approval,
    ApprovalRef,
    ClientStats,
    EventBatchResponse,
    FlushResult,
    GuardCheckResult,
    GuardDecision,
    IdentifyResponse,
    MatchedGuardrail,
    Problem,
    RejectedEvent,
    ValidationIssue,
)
from ._options import DEFAULTS, ENV_VARS
from ._recorder import EVENT_TYPES
from ._runs import RunContext, RunSpan
from ._tools import GuardSpan, ToolCall, ToolSpan

__version__ = "0.1.0"

__all__ = [
    "WardenClient",
    "AsyncWardenClient",
    "RunContext",
    "RunSpan",
    "ToolCall",
    "ToolSpan",
    "GuardSpan",
    "GuardDecision",
    "GuardCheckResult",
    "MatchedGuardrail",
    "Approval",
    "ApprovalRef",
    "IdentifyResponse",
    "EventBatchResponse",
    "RejectedEvent",
    "Problem",
    "ValidationIssue",
    "FlushResult",
    "ClientStats",
    "WardenError",
    "ConfigurationError",
    "AuthenticationError",
    "PermissionDeniedError",
    "ValidationError",
    "NotFoundError",
    "ApiError",
    "RateLimitError",
    "ServiceUnavailableError",
    "APIConnectionError",
    "GuardrailBlockedError",
    "ApprovalDeniedError",
    "ApprovalTimeoutError",
    "GuardrailUnavailableError",
    "ENV_VARS",
    "DEFAULTS",
    "EVENT_TYPES",
    "uuid7",
    "is_uuid7",
    "__version__",
]
