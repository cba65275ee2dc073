"""``score(...)``: the outcome of a run or session as ``agent.score.recorded`` (docs/architecture.md#scores)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Optional, Union

from ._context import Scope
from ._ids import is_uuid7
from ._serialize import truncate

if TYPE_CHECKING:  # pragma: no cover
    from ._runtime import Runtime

#: Longest score name and categorical value, characters (the contract's ``SCORE_NAME_MAX``).
SCORE_NAME_MAX = 200
#: Longest score comment, characters (the contract's ``SCORE_COMMENT_MAX``).
SCORE_COMMENT_MAX = 2000
#: Who judged: code (the default), a person, or a model / evaluation pipeline.
SCORE_SOURCES = ("rule", "human", "evaluator")

ScoreValue = Union[float, int, bool, str]


def score_data_type(value: ScoreValue) -> str:
    """``numeric`` for a number, ``boolean`` for a bool, ``categorical`` for a string (the wire's ``dataType``)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "numeric"
    return "categorical"


def _invalid(name: object, value: object, source: object, score_id: object) -> Optional[str]:
    if not isinstance(name, str) or not name:
        return "name must be a non-empty string"
    if isinstance(value, bool):
        pass
    elif isinstance(value, (int, float)):
        if not math.isfinite(value):
            return "value must be a finite number"
    elif isinstance(value, str):
        if not value:
            return "a categorical value must not be empty"
    else:
        return "value must be a number, a bool or a string"
    if source not in SCORE_SOURCES:
        return "source must be rule, human or evaluator"
    if score_id is not None and not (isinstance(score_id, str) and is_uuid7(score_id)):
        return "score_id must be a UUIDv7"
    return None


def record_score(
    rt: "Runtime",
    scope: Scope,
    name: str,
    value: ScoreValue,
    *,
    source: str = "rule",
    comment: Optional[str] = None,
    score_id: Optional[str] = None,
) -> str:
    """``agent.score.recorded`` in ``scope`` (its run when it has one, else the session), ``dataType``
    from the value; name and label cut to 200 characters, comment to 2,000. Returns the event id (the
    score's id when no ``score_id`` is given), or ``""`` when the input cannot be a score (logged,
    nothing sent). Never raises."""
    try:
        problem = _invalid(name, value, source, score_id)
        if problem:
            rt.log.error("warden score not recorded", name=str(name), reason=problem)
            return ""
        data = {
            "scoreId": score_id,
            "name": truncate(name, SCORE_NAME_MAX),
            "value": truncate(value, SCORE_NAME_MAX) if isinstance(value, str) else value,
            "dataType": score_data_type(value),
            "source": source,
            "comment": truncate(str(comment), SCORE_COMMENT_MAX) if comment is not None else None,
        }
        return rt.recorder.emit("agent.score.recorded", data, scope.session_id, scope.run_id)
    except Exception as e:
        from ._logging import error_fields

        rt.log.error("warden could not track event", type="agent.score.recorded", **error_fields(e))
        return ""
