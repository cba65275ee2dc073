"""Registration of the agent (``POST /v1/agents/identify``) and its capabilities."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from ._errors import APIConnectionError, WardenError
from ._logging import Log, error_fields

if TYPE_CHECKING:  # pragma: no cover
    from ._api import WardenApi


@dataclass(frozen=True)
class Identity:
    """The server ids of the running agent version."""

    agent_id: str
    agent_version_id: str
    project_id: Optional[str] = None


class IdentitySource:
    """What the rest of the client needs of a registration (also met by the disabled client)."""

    @property
    def identity(self) -> Optional[Identity]:  # pragma: no cover - interface
        raise NotImplementedError

    def ready(self, timeout: Optional[float] = None) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def ensure(self, deadline: Optional[float] = None) -> Identity:  # pragma: no cover - interface
        raise NotImplementedError


class StaticIdentity(IdentitySource):
    """Fixed ids (the disabled client)."""

    def __init__(self, identity: Identity) -> None:
        self._identity = identity

    @property
    def identity(self) -> Optional[Identity]:
        return self._identity

    def ready(self, timeout: Optional[float] = None) -> None:
        return None

    def ensure(self, deadline: Optional[float] = None) -> Identity:
        return self._identity


class Registration(IdentitySource):
    """Registers the agent (retried by the transport), then declares its capabilities (a failure
    there is logged, not fatal). The first attempt runs at construction on a background thread.
    When an attempt fails with a retryable error (service down), the next :meth:`ensure` tries again
    in the calling thread; a non-retryable one (401, 403, 400) stays final. :meth:`start` starts the
    first attempt, on a background thread."""

    def __init__(
        self,
        api: "WardenApi",
        *,
        agent: Dict[str, Any],
        version: Optional[Dict[str, Any]],
        capabilities: Optional[List[Dict[str, Any]]],
        log: Log,
    ) -> None:
        self._api = api
        self._body: Dict[str, Any] = {"agent": agent}
        if version is not None:
            self._body["version"] = version
        self._capabilities = capabilities
        self._log = log
        self._ids: Optional[Identity] = None
        self._last_error: Optional[WardenError] = None
        self._lock = threading.Lock()
        self._attempt_done = threading.Event()
        self._settled = threading.Event()

    def start(self) -> None:
        """Starts the first attempt on a background thread."""
        self._start()

    def _start(self) -> None:
        thread = threading.Thread(target=self._attempt_in_thread, name="agentwarden-registration", daemon=True)
        try:
            thread.start()
        except RuntimeError:  # interpreter shutting down: register in this thread
            self._attempt()

    @property
    def identity(self) -> Optional[Identity]:
        return self._ids

    def ready(self, timeout: Optional[float] = None) -> None:
        """Waits for the latest attempt and its capability declaration; raises its error."""
        deadline = None if timeout is None else time.monotonic() + timeout
        done, settled = self._attempt_done, self._settled
        if not done.wait(timeout) or not settled.wait(
            None if deadline is None else max(0, deadline - time.monotonic())
        ):
            raise APIConnectionError(f"registration still running after {timeout} s", timed_out=True)
        if self._ids is None:
            raise self._last_error or APIConnectionError("registration failed")

    def ensure(self, deadline: Optional[float] = None) -> Identity:
        """The ids; registers again (in this thread) when the last attempt failed retryably."""
        ids = self._ids
        if ids is not None:
            return ids
        run_here = False
        with self._lock:
            if self._ids is not None:
                return self._ids
            done = self._attempt_done
            if done.is_set():
                if self._last_error is not None and not self._last_error.retryable:
                    raise self._last_error
                done = self._attempt_done = threading.Event()
                self._settled = threading.Event()
                run_here = True
        if run_here:
            self._attempt()
        elif not done.wait(None if deadline is None else max(0.0, deadline - time.monotonic())):
            raise APIConnectionError("registration still running", timed_out=True)
        if self._ids is not None:
            return self._ids
        raise self._last_error or APIConnectionError("registration failed")

    def after_fork_in_child(self) -> None:
        """In a forked child: new locks; an attempt the parent had in flight is tried again here."""
        self._lock = threading.Lock()
        if not self._attempt_done.is_set() or not self._settled.is_set():
            # The parent's thread does not exist here: start the attempt again in this process.
            self._attempt_done = threading.Event()
            self._settled = threading.Event()
            if self._ids is not None:
                self._attempt_done.set()
            self._start()

    def _attempt_in_thread(self) -> None:
        try:
            self._attempt()
        finally:
            self._api.transport.close()  # this short-lived thread's connection

    def _attempt(self) -> None:
        done, settled = self._attempt_done, self._settled
        try:
            if self._ids is None:  # after a fork the ids may be known: only the declaration is left
                self._identify()
        finally:
            done.set()
        try:
            if self._ids is not None and self._capabilities is not None:
                self._declare(self._ids, self._capabilities)
        finally:
            settled.set()

    def _identify(self) -> None:
        try:
            res = self._api.identify(self._body)
        except Exception as e:
            err = e if isinstance(e, WardenError) else APIConnectionError(str(e), cause=e)
            self._last_error = err
            self._log.error("warden registration failed", agentKey=self._body["agent"]["key"], **error_fields(err))
            return
        self._ids = Identity(res.agent_id, res.agent_version_id, res.project_id)
        self._last_error = None
        self._log.debug(
            "warden agent registered", agentId=res.agent_id, agentVersionId=res.agent_version_id, version=res.version
        )

    def _declare(self, ids: Identity, capabilities: List[Dict[str, Any]]) -> None:
        try:
            self._api.declare_capabilities(ids.agent_id, ids.agent_version_id, {"capabilities": capabilities})
        except Exception as e:
            self._log.warning("warden capability declaration failed", **error_fields(e))
