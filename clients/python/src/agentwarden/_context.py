"""Where the events of the code running now belong: the session, and the run inside ``with_run``."""

from __future__ import annotations

import contextvars
import itertools
from typing import TYPE_CHECKING, NamedTuple, Optional

if TYPE_CHECKING:  # pragma: no cover
    from ._runs import RunContext

_counter = itertools.count()


class Scope(NamedTuple):
    session_id: str
    run_id: Optional[str] = None
    #: Id of the run's ``agent.run.started`` event (parent of nested runs).
    run_started_event_id: Optional[str] = None
    run: "Optional[RunContext]" = None


def new_scope_var() -> "contextvars.ContextVar[Optional[Scope]]":
    """A per-client store of the current run (two clients never mix their runs). Follows the code
    across ``await`` and into ``asyncio`` tasks; a new thread starts outside any run (pass the run
    explicitly with ``run.with_tool(...)``, or use ``contextvars.copy_context()``)."""
    return contextvars.ContextVar(f"agentwarden_scope_{next(_counter)}", default=None)
