"""Retries, backoff, Retry-After, typed errors, keep-alive."""

from __future__ import annotations

import time
from email.utils import formatdate
from typing import Any, List

import pytest

from agentwarden import (
    APIConnectionError,
    ApiError,
    AuthenticationError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServiceUnavailableError,
    ValidationError,
)
from agentwarden._backoff import RETRY_AFTER_CAP_MS, backoff_delay_ms, parse_retry_after_ms
from agentwarden._logging import Log
from agentwarden._transport import Transport
from fake_warden import API_KEY, FakeWarden

pytestmark = pytest.mark.unit


_made: List[Transport] = []


@pytest.fixture(autouse=True)
def _close_transports() -> Any:
    yield
    while _made:
        _made.pop().close_all()


def transport(url: str, *, key: str = API_KEY, sleeps: List[float] = None, **kw: Any) -> Transport:  # type: ignore[assignment]
    opts = dict(max_retries=3, retry_base_delay_ms=100, retry_max_delay_ms=1000, request_timeout_ms=2000)
    opts.update(kw)
    t = Transport(
        base_url=url,
        api_key=key,
        log=Log(),
        sleep=(lambda s: sleeps.append(s)) if sleeps is not None else time.sleep,
        **opts,  # type: ignore[arg-type]
    )
    _made.append(t)
    return t


class TestBackoff:
    def test_draws_full_jitter_under_a_capped_exponential_ceiling(self):
        assert [backoff_delay_ms(a, 250, 10_000, random=lambda: 0.999999) for a in range(8)] == [
            249,
            499,
            999,
            1999,
            3999,
            7999,
            9999,
            9999,
        ]
        assert backoff_delay_ms(3, 250, 10_000, random=lambda: 0.0) == 0
        draws = {backoff_delay_ms(2, 100, 10_000) for _ in range(200)}
        assert all(0 <= d <= 400 for d in draws) and len(draws) > 50

    def test_parses_retry_after_seconds_and_dates_capped(self):
        assert parse_retry_after_ms("2") == 2000
        assert parse_retry_after_ms(" 0.5 ") == 500
        assert parse_retry_after_ms("3600") == RETRY_AFTER_CAP_MS
        now = time.time()
        assert 9000 <= parse_retry_after_ms(formatdate(now + 10, usegmt=True), now=now) <= 10_000  # type: ignore[operator]
        assert parse_retry_after_ms(formatdate(now - 10, usegmt=True), now=now) == 0
        assert parse_retry_after_ms(None) is None and parse_retry_after_ms("soon") is None


class TestTransport:
    def test_retries_503_honouring_retry_after_then_succeeds_with_the_same_body(self, fake: FakeWarden):
        fake.fail("/v1/agents/identify", 503, times=2, headers={"Retry-After": "1"})
        sleeps: List[float] = []
        t = transport(fake.url, sleeps=sleeps)
        res = t.request("POST", "/v1/agents/identify", {"agent": {"key": "a"}})
        assert res["agentId"] == fake.agent_id
        assert sleeps == [1.0, 1.0]
        bodies = [r.body for r in fake.requests_to("/v1/agents/identify")]
        assert bodies == [{"agent": {"key": "a"}}] * 3

    @pytest.mark.parametrize(
        "status,error", [(429, RateLimitError), (408, ServiceUnavailableError), (500, ServiceUnavailableError)]
    )
    def test_retries_429_408_and_5xx_with_backoff_and_gives_up_after_max_retries(
        self, fake: FakeWarden, status: int, error: type
    ):
        fake.fail("/v1/events", status, times=10)
        sleeps: List[float] = []
        retries: List[int] = []
        t = transport(fake.url, sleeps=sleeps, on_retry=lambda: retries.append(1))
        with pytest.raises(error) as info:
            t.request("POST", "/v1/events", {"events": [{}]})
        assert info.value.status == status and info.value.retryable
        assert len(fake.requests_to("/v1/events")) == 4 and len(retries) == 3
        assert all(0 <= s <= c for s, c in zip(sleeps, [0.1, 0.2, 0.4]))

    @pytest.mark.parametrize(
        "status,error,code",
        [
            (400, ValidationError, "validation_failed"),
            (401, AuthenticationError, "authentication_failed"),
            (403, PermissionDeniedError, "permission_denied"),
            (404, NotFoundError, "not_found"),
            (409, ApiError, "api_error"),
        ],
    )
    def test_never_retries_other_4xx_and_parses_the_problem_body(
        self, fake: FakeWarden, status: int, error: type, code: str
    ):
        fake.fail("/v1/events", status)
        t = transport(fake.url)
        with pytest.raises(error) as info:
            t.request("POST", "/v1/events", {"events": [{}]})
        e = info.value
        assert e.code == code and e.status == status and not e.retryable
        assert e.problem is not None and e.problem.status == status and e.problem.detail == f"test fault {status}"
        assert len(fake.requests_to("/v1/events")) == 1
        if status == 400:
            assert [(i.path, i.message) for i in e.errors] == [("events.0", "bad")]

    def test_maps_a_refused_connection_to_a_retryable_connection_error(self):
        sleeps: List[float] = []
        t = transport("http://127.0.0.1:9", sleeps=sleeps, max_retries=2)
        with pytest.raises(APIConnectionError) as info:
            t.request("GET", "/v1/approvals/x")
        assert info.value.retryable and not info.value.timed_out and info.value.code == "connection_failed"
        assert len(sleeps) == 2

    def test_times_out_a_slow_answer(self, fake: FakeWarden):
        fake.identify_delay_s = 1.0
        t = transport(fake.url, request_timeout_ms=200, max_retries=0)
        t0 = time.monotonic()
        with pytest.raises(APIConnectionError) as info:
            t.request("POST", "/v1/agents/identify", {"agent": {"key": "a"}})
        assert info.value.timed_out and time.monotonic() - t0 < 0.9

    def test_keeps_the_connection_alive_and_reconnects_when_the_server_closed_it(self, fake: FakeWarden):
        t = transport(fake.url, max_retries=0)
        for _ in range(3):
            t.request("POST", "/v1/agents/identify", {"agent": {"key": "a"}})
        assert len({r.client_port for r in fake.requests}) == 1  # one connection
        fake.fail("/v1/agents/identify", 0, drop=True)  # the server drops the kept-alive connection
        res = t.request("POST", "/v1/agents/identify", {"agent": {"key": "a"}})
        assert res["agentId"] == fake.agent_id  # once more on a fresh connection, not counted as a retry
        assert len({r.client_port for r in fake.requests}) == 2

    def test_a_deadline_stops_the_retries(self, fake: FakeWarden):
        fake.fail("/v1/events", 503, times=10)
        t = transport(fake.url, max_retries=10, retry_base_delay_ms=200, retry_max_delay_ms=200)
        t0 = time.monotonic()
        with pytest.raises(ServiceUnavailableError):
            t.request("POST", "/v1/events", {"events": [{}]}, deadline=time.monotonic() + 0.5)
        assert time.monotonic() - t0 < 0.8


def test_https_base_urls_are_accepted():
    t = transport("https://example.invalid:8443/prefix", max_retries=0)
    assert t._https and t._port == 8443 and t._prefix == "/prefix"  # type: ignore[attr-defined]
