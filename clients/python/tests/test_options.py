"""Options: argument, then environment variable, then default; the same names and defaults as the
TypeScript client."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentwarden import DEFAULTS, ENV_VARS, ConfigurationError
from agentwarden._options import resolve_options

pytestmark = pytest.mark.unit

TS_OPTIONS = Path(__file__).resolve().parents[2] / "typescript" / "src" / "options.ts"
BASE = dict(base_url="http://localhost:4000", api_key="k", agent="a")


def snake(name: str) -> str:
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def ts_block(name: str) -> dict:
    text = TS_OPTIONS.read_text("utf-8")
    block = re.search(rf"export const {name} = \{{(.*?)\}} as const;", text, re.S)
    assert block, f"{name} not found in {TS_OPTIONS}"
    pairs = re.findall(r"(\w+): ([^,\n]+),", block.group(1))
    values = {snake(k): v.strip().strip("'") for k, v in pairs}
    return {k: v.replace("_", "") if re.fullmatch(r"[\d_]+", v) else v for k, v in values.items()}


def test_env_var_names_and_defaults_are_the_typescript_clients():
    assert ENV_VARS == ts_block("ENV_VARS")
    assert {k: str(v) for k, v in DEFAULTS.items()} == ts_block("DEFAULTS")


def test_applies_the_defaults():
    o = resolve_options(**BASE, env={})
    assert (o.enabled, o.mode, o.fail_mode) == (True, "monitor", "open")
    assert (o.flush_interval_ms, o.max_batch_size, o.max_queue_size) == (2000, 25, 10_000)
    assert (o.max_retries, o.retry_base_delay_ms, o.retry_max_delay_ms, o.request_timeout_ms) == (
        5,
        250,
        10_000,
        10_000,
    )
    assert o.agent == {"key": "a"} and o.version is None and o.capabilities is None and o.approval_timeout_ms is None


def test_fails_closed_by_default_in_enforce_mode():
    assert resolve_options(**BASE, mode="enforce", env={}).fail_mode == "closed"
    assert resolve_options(**BASE, mode="enforce", fail_mode="open", env={}).fail_mode == "open"


def test_reads_environment_variables_when_the_argument_is_absent_and_prefers_the_argument():
    env = {
        "WARDEN_BASE_URL": "http://warden:7400/",
        "WARDEN_API_KEY": "from-env",
        "WARDEN_MODE": "enforce",
        "WARDEN_FLUSH_INTERVAL_MS": "500",
        "WARDEN_MAX_BATCH_SIZE": "100",
        "WARDEN_MAX_QUEUE_SIZE": "42",
        "WARDEN_FAIL_MODE": "open",
        "WARDEN_ENABLED": "yes",
    }
    o = resolve_options(agent="a", env=env)
    assert (o.base_url, o.api_key, o.mode, o.fail_mode) == ("http://warden:7400", "from-env", "enforce", "open")
    assert (o.flush_interval_ms, o.max_batch_size, o.max_queue_size) == (500, 100, 42)
    o = resolve_options(agent="a", base_url="http://arg", api_key="arg", mode="monitor", max_batch_size=7, env=env)
    assert (o.base_url, o.api_key, o.mode, o.max_batch_size) == ("http://arg", "arg", "monitor", 7)


def test_reads_os_environ_by_default(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("WARDEN_BASE_URL", "http://from-environ:1")
    monkeypatch.setenv("WARDEN_API_KEY", "k")
    assert resolve_options(agent="a").base_url == "http://from-environ:1"


def test_needs_nothing_else_when_disabled():
    o = resolve_options(enabled=False, env={})
    assert not o.enabled
    assert not resolve_options(env={"WARDEN_ENABLED": "0"}).enabled


@pytest.mark.parametrize(
    "kwargs,env,option",
    [
        ({"base_url": None}, {}, "base_url"),
        ({"base_url": "ftp://x"}, {}, "base_url"),
        ({"api_key": ""}, {}, "api_key"),
        ({"agent": "bad key!"}, {}, "agent.key"),
        ({"agent": {"key": "a", "nickname": "x"}}, {}, "agent"),
        ({"mode": "strict"}, {}, "mode"),
        ({"fail_mode": "maybe"}, {}, "fail_mode"),
        ({"max_batch_size": 501}, {}, "max_batch_size"),
        ({"max_batch_size": True}, {}, "max_batch_size"),
        ({"flush_interval_ms": 0}, {}, "flush_interval_ms"),
        ({"max_retries": 21}, {}, "max_retries"),
        ({"retry_base_delay_ms": 500, "retry_max_delay_ms": 100}, {}, "retry_max_delay_ms"),
        ({}, {"WARDEN_MAX_QUEUE_SIZE": "lots"}, "max_queue_size"),
        ({}, {"WARDEN_ENABLED": "maybe"}, "enabled"),
        ({"session_id": "not-a-uuid7"}, {}, "session_id"),
        ({"capabilities": "stripe.refund"}, {}, "capabilities"),
        ({"capabilities": [{"name": "x", "risk_level": "extreme"}]}, {}, "capabilities[0].risk_level"),
        ({"capabilities": [{"title": "x"}]}, {}, "capabilities[0].title"),
        ({"approval_timeout_ms": 0}, {}, "approval_timeout_ms"),
    ],
)
def test_bad_values_raise_configuration_error_naming_the_option(kwargs: dict, env: dict, option: str):
    with pytest.raises(ConfigurationError) as info:
        resolve_options(**{**BASE, **kwargs}, env=env)
    assert info.value.option == option and info.value.code == "configuration_invalid"
    assert isinstance(info.value, ValueError)


def test_capabilities_and_version_take_python_or_wire_names():
    o = resolve_options(
        **BASE,
        version="1.2.3",
        capabilities=["a", {"name": "b", "kind": "action", "riskLevel": "low", "resource_type": "db"}],
        env={},
    )
    assert o.version == {"version": "1.2.3"}
    assert o.capabilities == [{"name": "a"}, {"name": "b", "kind": "action", "riskLevel": "low", "resourceType": "db"}]
