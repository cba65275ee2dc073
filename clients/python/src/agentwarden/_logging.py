"""Where the client writes what it notices: a fixed message plus fields, never an interpolated
string. The default is ``logging.getLogger("agentwarden")``: with no handler configured, Python
prints only warnings and errors (to stderr), so the client is quiet by default."""

from __future__ import annotations

import json
import logging
from typing import Any, Dict, Optional, Union

LoggerLike = Union[logging.Logger, logging.LoggerAdapter]  # type: ignore[type-arg]


class _Fields:
    """Log fields rendered lazily as JSON (only when a handler formats the record)."""

    __slots__ = ("fields",)

    def __init__(self, fields: Dict[str, Any]) -> None:
        self.fields = fields

    def __str__(self) -> str:
        try:
            return json.dumps(self.fields, default=str, ensure_ascii=False)
        except Exception:  # pragma: no cover - defensive
            return repr(self.fields)


class Log:
    """A logger wrapper that never raises into the agent. Fields go in the message as JSON and in
    ``record.warden`` (for structured handlers)."""

    def __init__(self, logger: Optional[LoggerLike] = None) -> None:
        self.logger: LoggerLike = logger if logger is not None else logging.getLogger("agentwarden")

    def debug(self, message: str, **fields: Any) -> None:
        self._log(logging.DEBUG, message, fields)

    def info(self, message: str, **fields: Any) -> None:
        self._log(logging.INFO, message, fields)

    def warning(self, message: str, **fields: Any) -> None:
        self._log(logging.WARNING, message, fields)

    def error(self, message: str, **fields: Any) -> None:
        self._log(logging.ERROR, message, fields)

    def _log(self, level: int, message: str, fields: Dict[str, Any]) -> None:
        try:
            if not self.logger.isEnabledFor(level):
                return
            if fields:
                self.logger.log(level, message + " %s", _Fields(fields), extra={"warden": fields})
            else:
                self.logger.log(level, message)
        except Exception:
            pass  # a broken logger must not break the agent


def error_fields(e: object) -> Dict[str, Any]:
    """Short, JSON-friendly description of an error for log fields."""
    if isinstance(e, BaseException):
        fields: Dict[str, Any] = {"error": str(e), "errorType": type(e).__name__}
        code = getattr(e, "code", None)
        if isinstance(code, str):
            fields["errorCode"] = code
        status = getattr(e, "status", None)
        if isinstance(status, int):
            fields["status"] = status
        return fields
    return {"error": str(e)}
