"""JSON over HTTP (standard library ``http.client``) with keep-alive connections, a timeout per
attempt, and retries with capped exponential backoff and full jitter."""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import threading
import time
import weakref
from typing import Any, Callable, Dict, Optional, Tuple, Union
from urllib.parse import urlsplit

from ._backoff import backoff_delay_ms, parse_retry_after_ms
from ._errors import (
    APIConnectionError,
    ApiError,
    AuthenticationError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServiceUnavailableError,
    ValidationError,
    WardenError,
)
from ._logging import Log, error_fields
from ._models import Problem

USER_AGENT = "agentwarden-python/0.1.0"

#: A connection error on a reused keep-alive connection: the server closed it while idle.
_STALE = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError, ConnectionAbortedError)

_encode = json.JSONEncoder(separators=(",", ":")).encode


class _OneWrite:
    """``http.client`` writes the headers and the body separately; two small writes on a kept-alive
    connection can meet Nagle's algorithm and the peer's delayed ACK (a stall of up to 40 ms).
    This mixin sends them in one write (and sets TCP_NODELAY)."""

    _held: Optional[bytes] = None
    hold_headers = False

    def send(self, data: Any) -> None:
        if self.hold_headers and isinstance(data, bytes) and self._held is None:
            self._held = data  # the header block: wait for the body
            return
        if self._held is not None:
            data, self._held = self._held + bytes(data), None
        self.hold_headers = False
        super().send(data)  # type: ignore[misc]

    def _after_connect(self) -> None:
        self._held, self.hold_headers = None, False
        sock = getattr(self, "sock", None)
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            # A connection of a thread that ended is dropped with the thread: close its socket then.
            weakref.finalize(self, sock.close)


class _HTTPConnection(_OneWrite, http.client.HTTPConnection):
    def connect(self) -> None:
        super().connect()
        self._after_connect()


class _HTTPSConnection(_OneWrite, http.client.HTTPSConnection):
    def connect(self) -> None:
        super().connect()
        self._after_connect()


def is_retryable_status(status: int) -> bool:
    """True for statuses worth a retry: 408, 429 and 5xx."""
    return status == 408 or status == 429 or status >= 500


class Transport:
    """Sends JSON requests and returns parsed answers, or raises the typed errors.

    Retries network errors, timeouts, 408, 429 and 5xx (honouring ``Retry-After``) up to
    ``max_retries`` times; never other 4xx. The body is serialised once, so every attempt sends the
    same bytes (the same event ids). One keep-alive connection per thread; safe to share between
    threads.
    """

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str,
        max_retries: int,
        retry_base_delay_ms: int,
        retry_max_delay_ms: int,
        request_timeout_ms: int,
        log: Log,
        on_retry: Optional[Callable[[], None]] = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        parts = urlsplit(base_url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or "localhost"
        self._port = parts.port or (443 if self._https else 80)
        self._prefix = parts.path.rstrip("/")
        self._auth = f"Bearer {api_key}"
        self.max_retries = max_retries
        self.retry_base_delay_ms = retry_base_delay_ms
        self.retry_max_delay_ms = retry_max_delay_ms
        self.request_timeout_ms = request_timeout_ms
        self._log = log
        self._on_retry = on_retry
        self._sleep = sleep
        self._local = threading.local()
        self._all: "weakref.WeakSet[http.client.HTTPConnection]" = weakref.WeakSet()
        self._all_lock = threading.Lock()
        self._ssl: Optional[ssl.SSLContext] = ssl.create_default_context() if self._https else None

    def reset(self) -> None:
        """Forgets every connection (after ``os.fork()``: the child must not share the parent's sockets)."""
        self._local = threading.local()
        self._all = weakref.WeakSet()
        self._all_lock = threading.Lock()

    def close(self) -> None:
        """Closes this thread's connection."""
        self._drop()

    def close_all(self) -> None:
        """Closes every connection of every thread (at shutdown); a later request opens a new one."""
        with self._all_lock:
            conns = list(self._all)
            self._all = weakref.WeakSet()
        for conn in conns:
            try:
                conn.close()
            except Exception:  # pragma: no cover - defensive
                pass

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        raw_body: Optional[bytes] = None,
        extra_timeout_ms: int = 0,
        deadline: Optional[float] = None,
    ) -> Any:
        """Sends the request and returns the parsed JSON answer (None for an empty body).

        ``raw_body`` is an already serialised JSON body. ``deadline`` (a ``time.monotonic()``
        value) stops retrying when the next wait would pass it.

        Raises :class:`AuthenticationError` (401), :class:`PermissionDeniedError` (403),
        :class:`ValidationError` (400/413/422), :class:`NotFoundError` (404), :class:`ApiError`
        (other 4xx), and, once the retries are spent, :class:`RateLimitError` (429),
        :class:`ServiceUnavailableError` (408/5xx) or :class:`APIConnectionError` (no answer).
        """
        data = raw_body if raw_body is not None else (None if body is None else _encode(body).encode())
        what = f"{method} {path.split('?', 1)[0]}"
        attempt = 0
        while True:
            timeout_s = (self.request_timeout_ms + extra_timeout_ms) / 1000
            if deadline is not None:
                timeout_s = max(0.05, min(timeout_s, deadline - time.monotonic()))
            try:
                return self._attempt(method, path, data, timeout_s, what)
            except WardenError as err:
                if not err.retryable or attempt >= self.max_retries:
                    raise
                retry_after = getattr(err, "retry_after_ms", None)
                delay_ms = (
                    retry_after
                    if retry_after is not None
                    else backoff_delay_ms(attempt, self.retry_base_delay_ms, self.retry_max_delay_ms)
                )
                if deadline is not None and time.monotonic() + delay_ms / 1000 >= deadline:
                    raise
                self._log.debug(
                    "warden request retry",
                    method=method,
                    path=path.split("?", 1)[0],
                    attempt=attempt + 1,
                    delayMs=delay_ms,
                    **error_fields(err),
                )
                if self._on_retry is not None:
                    self._on_retry()
                self._sleep(delay_ms / 1000)
                attempt += 1

    # -- one attempt -------------------------------------------------------------------------

    def _connection(self, timeout_s: float) -> Tuple[http.client.HTTPConnection, bool]:
        conn: Optional[http.client.HTTPConnection] = getattr(self._local, "conn", None)
        if conn is None:
            if self._https:
                conn = _HTTPSConnection(self._host, self._port, timeout=timeout_s, context=self._ssl)
            else:
                conn = _HTTPConnection(self._host, self._port, timeout=timeout_s)
            self._local.conn = conn
            with self._all_lock:
                self._all.add(conn)
            return conn, False
        conn.timeout = timeout_s
        if conn.sock is not None:
            conn.sock.settimeout(timeout_s)
        return conn, True

    def _drop(self) -> None:
        conn = getattr(self._local, "conn", None)
        self._local.conn = None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # pragma: no cover - defensive
                pass

    def _attempt(self, method: str, path: str, data: Optional[bytes], timeout_s: float, what: str) -> Any:
        headers = {
            "Authorization": self._auth,
            "Accept": "application/json, application/problem+json",
            "User-Agent": USER_AGENT,
        }
        if data is not None:
            headers["Content-Type"] = "application/json"
        for fresh_retry in (False, True):
            conn, reused = self._connection(timeout_s)
            try:
                conn.hold_headers = data is not None  # type: ignore[attr-defined]
                conn.request(method, self._prefix + path, body=data, headers=headers)
                resp = conn.getresponse()
                payload = resp.read()
            except socket.timeout as e:
                self._drop()
                raise APIConnectionError(
                    f"{what}: timed out after {round(timeout_s * 1000)} ms", timed_out=True, cause=e
                ) from e
            except _STALE as e:
                self._drop()
                if reused and not fresh_retry:
                    continue  # the server closed the idle connection: once more on a new one
                raise APIConnectionError(f"{what}: {_describe(e)}", cause=e) from e
            except (OSError, http.client.HTTPException) as e:
                self._drop()
                raise APIConnectionError(f"{what}: {_describe(e)}", cause=e) from e
            if resp.will_close:
                self._drop()
            status = resp.status
            if 200 <= status < 300:
                return _parse_json(payload)
            raise error_from_response(status, payload, resp.getheader("Retry-After"), what)
        raise AssertionError("unreachable")  # pragma: no cover


def error_from_response(status: int, payload: Union[bytes, str], retry_after: Optional[str], what: str) -> WardenError:
    """Maps a non-2xx answer to the typed error of its status, parsing an RFC 9457 problem body."""
    text = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else payload
    problem = _parse_problem(text)
    reason = (problem.detail or problem.title) if problem else (text[:200] or "no body")
    message = f"{what}: {status} {reason}"
    kw: Dict[str, Any] = {"status": status, "problem": problem}
    retry_after_ms = parse_retry_after_ms(retry_after)
    if status == 401:
        return AuthenticationError(message, **kw)
    if status == 403:
        return PermissionDeniedError(message, **kw)
    if status == 404:
        return NotFoundError(message, **kw)
    if status in (400, 413, 422):
        return ValidationError(message, **kw)
    if status == 429:
        return RateLimitError(message, retry_after_ms=retry_after_ms, problem=problem)
    if is_retryable_status(status):
        return ServiceUnavailableError(message, retry_after_ms=retry_after_ms, **kw)
    return ApiError(message, **kw)


def _parse_problem(text: str) -> Optional[Problem]:
    value = _parse_json(text)
    if isinstance(value, dict) and isinstance(value.get("status"), int):
        try:
            return Problem.from_dict(value)
        except WardenError:
            return None
    return None


def _parse_json(payload: Union[bytes, str]) -> Any:
    if not payload:
        return None
    try:
        return json.loads(payload)
    except ValueError:
        return None


def _describe(e: BaseException) -> str:
    text = str(e) or type(e).__name__
    errno = getattr(e, "errno", None)
    return f"{text} ({type(e).__name__})" if errno is None else text
