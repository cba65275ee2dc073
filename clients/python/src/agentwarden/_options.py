"""Options of the client. Each resolves as: constructor argument, then environment variable, then
default; a bad value raises :class:`ConfigurationError` naming the option."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union
from urllib.parse import urlsplit

from ._errors import ConfigurationError
from ._ids import is_uuid7
from ._logging import LoggerLike
from ._models import MODES, RISK_LEVELS

__all__ = ["ENV_VARS", "DEFAULTS", "Options", "resolve_options", "AgentLike", "VersionLike", "CapabilityLike"]

#: Environment variables read when the constructor argument is absent, by option.
ENV_VARS: Dict[str, str] = {
    "enabled": "WARDEN_ENABLED",
    "base_url": "WARDEN_BASE_URL",
    "api_key": "WARDEN_API_KEY",
    "mode": "WARDEN_MODE",
    "flush_interval_ms": "WARDEN_FLUSH_INTERVAL_MS",
    "max_batch_size": "WARDEN_MAX_BATCH_SIZE",
    "max_queue_size": "WARDEN_MAX_QUEUE_SIZE",
    "fail_mode": "WARDEN_FAIL_MODE",
    "provenance": "WARDEN_PROVENANCE",
}

#: Defaults of the numeric options.
DEFAULTS: Dict[str, int] = {
    "flush_interval_ms": 2000,
    "max_batch_size": 25,
    "max_queue_size": 10_000,
    "max_retries": 5,
    "retry_base_delay_ms": 250,
    "retry_max_delay_ms": 10_000,
    "request_timeout_ms": 10_000,
}

#: Bounds of the numeric options (inclusive).
_BOUNDS: Dict[str, "tuple[int, int]"] = {
    "flush_interval_ms": (1, 24 * 3600_000),
    "max_batch_size": (1, 500),  # the contract's INGEST_LIMITS.maxEventsPerBatch
    "max_queue_size": (1, 10_000_000),
    "max_retries": (0, 20),
    "retry_base_delay_ms": (0, 600_000),
    "retry_max_delay_ms": (0, 3600_000),
    "request_timeout_ms": (1, 600_000),
}

_AGENT_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/-]*$")
_CAPABILITY_KEYS = {
    "name": "name",
    "kind": "kind",
    "description": "description",
    "risk_level": "riskLevel",
    "riskLevel": "riskLevel",
    "action_type": "actionType",
    "actionType": "actionType",
    "resource_type": "resourceType",
    "resourceType": "resourceType",
}

AgentLike = Union[str, Mapping[str, Any]]
VersionLike = Union[str, Mapping[str, Any]]
CapabilityLike = Union[str, Mapping[str, Any]]


@dataclass(frozen=True)
class Options:
    """Options after resolution and validation; every field has its final value."""

    enabled: bool
    base_url: str
    api_key: str
    agent: Dict[str, Any]
    version: Optional[Dict[str, Any]]
    mode: str
    capabilities: Optional[List[Dict[str, Any]]]
    flush_interval_ms: int
    max_batch_size: int
    max_queue_size: int
    max_retries: int
    retry_base_delay_ms: int
    retry_max_delay_ms: int
    request_timeout_ms: int
    fail_mode: str
    approval_timeout_ms: Optional[int]
    session_id: Optional[str]
    logger: Optional[LoggerLike]
    #: Track where each argument of a guarded call came from and send it (docs/provenance.md).
    provenance: bool = True


def resolve_options(
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
    env: Optional[Mapping[str, str]] = None,
) -> Options:
    """Resolves every option (argument, then environment variable, then default) and validates it.

    ``base_url``, ``api_key`` and ``agent`` are required only when the client is enabled.
    Raises :class:`ConfigurationError` naming the first bad option.
    """
    e: Mapping[str, str] = os.environ if env is None else env

    def from_env(option: str) -> Optional[str]:
        raw = e.get(ENV_VARS[option])
        if raw is None or raw.strip() == "":
            return None
        return raw.strip()

    is_enabled = enabled if enabled is not None else _parse_bool("enabled", from_env("enabled"))
    if is_enabled is None:
        is_enabled = True
    if not isinstance(is_enabled, bool):
        raise ConfigurationError("enabled", f"expected True or False, got {is_enabled!r}")
    the_mode = _one_of("mode", mode if mode is not None else from_env("mode"), MODES) or "monitor"
    the_fail_mode = _one_of(
        "fail_mode", fail_mode if fail_mode is not None else from_env("fail_mode"), ("open", "closed")
    ) or ("closed" if the_mode == "enforce" else "open")

    given = {
        "flush_interval_ms": flush_interval_ms,
        "max_batch_size": max_batch_size,
        "max_queue_size": max_queue_size,
        "max_retries": max_retries,
        "retry_base_delay_ms": retry_base_delay_ms,
        "retry_max_delay_ms": retry_max_delay_ms,
        "request_timeout_ms": request_timeout_ms,
    }
    nums: Dict[str, int] = {}
    for name, value in given.items():
        if value is None and name in ENV_VARS:
            raw = from_env(name)
            if raw is not None:
                if not raw.isdigit():
                    raise ConfigurationError(name, f"expected an integer, got {raw!r} (from {ENV_VARS[name]})")
                value = int(raw)
        low, high = _BOUNDS[name]
        nums[name] = _integer_in(name, DEFAULTS[name] if value is None else value, low, high)
    if nums["retry_max_delay_ms"] < nums["retry_base_delay_ms"]:
        raise ConfigurationError(
            "retry_max_delay_ms", f"must be >= retry_base_delay_ms ({nums['retry_base_delay_ms']})"
        )
    if approval_timeout_ms is not None:
        approval_timeout_ms = _integer_in("approval_timeout_ms", approval_timeout_ms, 1, 7 * 24 * 3600_000)

    url = (base_url if base_url is not None else from_env("base_url") or "").rstrip("/")
    key = api_key if api_key is not None else from_env("api_key") or ""
    the_agent = _agent(agent)
    if is_enabled:
        _check_url(url)
        if not isinstance(key, str) or not key:
            raise ConfigurationError("api_key", f"is required (or set {ENV_VARS['api_key']})")
        if not isinstance(the_agent.get("key"), str) or not _valid_agent_key(the_agent["key"]):
            raise ConfigurationError("agent.key", "is required: 1-128 letters, digits and . _ : / - only")
    if session_id is not None and not is_uuid7(session_id):
        raise ConfigurationError("session_id", "must be a UUIDv7 (use agentwarden.uuid7())")
    if provenance is None:
        provenance = _parse_bool("provenance", from_env("provenance"))
    if provenance is not None and not isinstance(provenance, bool):
        raise ConfigurationError("provenance", f"expected True or False, got {provenance!r}")

    return Options(
        enabled=is_enabled,
        base_url=url,
        api_key=key,
        agent=the_agent,
        version=_version(version),
        mode=the_mode,
        capabilities=_capabilities(capabilities),
        fail_mode=the_fail_mode,
        approval_timeout_ms=approval_timeout_ms,
        session_id=session_id,
        logger=logger,
        provenance=True if provenance is None else provenance,
        **nums,
    )


def _valid_agent_key(key: str) -> bool:
    return 1 <= len(key) <= 128 and _AGENT_KEY.match(key) is not None


def _parse_bool(option: str, raw: Optional[str]) -> Optional[bool]:
    if raw is None:
        return None
    v = raw.strip().lower()
    if v in ("1", "true", "yes", "on"):
        return True
    if v in ("0", "false", "no", "off"):
        return False
    raise ConfigurationError(option, f"expected true/false, got {raw!r} (from {ENV_VARS[option]})")


def _one_of(option: str, value: Optional[str], allowed: Sequence[str]) -> Optional[str]:
    if value is None:
        return None
    if value not in allowed:
        raise ConfigurationError(option, f"expected one of {', '.join(allowed)}, got {value!r}")
    return value


def _integer_in(option: str, value: object, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ConfigurationError(option, f"expected an integer in [{low}, {high}], got {value!r}")
    return value


def _check_url(url: str) -> None:
    if not url:
        raise ConfigurationError("base_url", f"is required (or set {ENV_VARS['base_url']})")
    try:
        parts = urlsplit(url)
    except ValueError:
        raise ConfigurationError("base_url", f"not a URL: {url!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigurationError("base_url", f"must be an http(s) URL, got {url!r}")


def _agent(agent: Optional[AgentLike]) -> Dict[str, Any]:
    if agent is None:
        return {"key": ""}
    if isinstance(agent, str):
        return {"key": agent}
    if not isinstance(agent, Mapping):
        raise ConfigurationError("agent", "expected a key or a mapping {key, name?, description?}")
    unknown = set(agent) - {"key", "name", "description"}
    if unknown:
        raise ConfigurationError("agent", f"unknown fields {sorted(unknown)}; expected key, name, description")
    out: Dict[str, Any] = {"key": agent.get("key", "")}
    for k in ("name", "description"):
        v = agent.get(k)
        if v is not None:
            if not isinstance(v, str):
                raise ConfigurationError(f"agent.{k}", "must be a string")
            out[k] = v
    return out


def _version(version: Optional[VersionLike]) -> Optional[Dict[str, Any]]:
    if version is None:
        return None
    if isinstance(version, str):
        return {"version": version}
    if not isinstance(version, Mapping):
        raise ConfigurationError("version", "expected a version string or a mapping {version?, metadata?}")
    unknown = set(version) - {"version", "metadata"}
    if unknown:
        raise ConfigurationError("version", f"unknown fields {sorted(unknown)}; expected version, metadata")
    out: Dict[str, Any] = {}
    if version.get("version") is not None:
        if not isinstance(version["version"], str) or not version["version"]:
            raise ConfigurationError("version.version", "must be a non-empty string")
        out["version"] = version["version"]
    if version.get("metadata") is not None:
        from ._serialize import to_json_object

        out["metadata"] = to_json_object(version["metadata"])
    return out


def _capabilities(caps: Optional[Sequence[CapabilityLike]]) -> Optional[List[Dict[str, Any]]]:
    if caps is None:
        return None
    if isinstance(caps, (str, bytes, Mapping)) or not isinstance(caps, Sequence):
        raise ConfigurationError("capabilities", "must be a list")
    out: List[Dict[str, Any]] = []
    for i, cap in enumerate(caps):
        where = f"capabilities[{i}]"
        if isinstance(cap, str):
            cap = {"name": cap}
        if not isinstance(cap, Mapping):
            raise ConfigurationError(where, "expected a name or a mapping {name, kind?, risk_level?, ...}")
        wire: Dict[str, Any] = {}
        for k, v in cap.items():
            if k not in _CAPABILITY_KEYS:
                raise ConfigurationError(f"{where}.{k}", "unknown field")
            if v is not None:
                wire[_CAPABILITY_KEYS[k]] = v
        name = wire.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 200:
            raise ConfigurationError(f"{where}.name", "is required: 1-200 characters")
        if "kind" in wire and wire["kind"] not in ("tool", "action"):
            raise ConfigurationError(f"{where}.kind", "expected tool or action")
        if "riskLevel" in wire and wire["riskLevel"] not in RISK_LEVELS:
            raise ConfigurationError(f"{where}.risk_level", f"expected one of {', '.join(RISK_LEVELS)}")
        out.append(wire)
    return out
