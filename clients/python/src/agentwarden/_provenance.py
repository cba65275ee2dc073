"""Provenance of a guarded call's arguments (docs/provenance.md): the matcher (origin of each
argument leaf over a run's sources) and the tracker (what entered the agent's context, per run,
and the session's sightings of instructions aimed at the model).

The result is the wire object ``Provenance`` of ``libs/contracts/src/provenance.ts`` (camelCase),
sent as ``provenance`` in ``POST /v1/guardrails/evaluate`` and in ``agent.guardrail.evaluated``.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from ._instructions import InstructionFinding, instruction_detector
from ._provenance_store import TOOL, TRUSTED, Source, SourceStore, StoreTable
from ._provenance_text import leaf_text, leaves, normalize, segments, source_text

#: Tool sources named per argument leaf (``MAX_PROVENANCE_SOURCES`` of the contract).
MAX_SOURCES_PER_LEAF = 3
#: Rule ids named in a sighting (``InstructionSighting.rules`` of the contract).
MAX_SIGHTING_RULES = 16
#: Longest tool name on the wire, characters.
MAX_TOOL_NAME_CHARS = 200
#: Longest argument path on the wire (``ArgumentProvenance.path`` of the contract), characters; a
#: longer path is cut to it rather than dropped, so a tainted value stays visible to policies.
MAX_PATH_CHARS = 500
#: Sessions whose instruction counts are kept (least recently used dropped past it).
MAX_COUNTED_SESSIONS = 1024

Provenance = Dict[str, Any]
"""The wire form: ``{"arguments": [{"path", "origin", "tainted", "instructed", "sources":
[{"toolName", "toolCallId"?, "instructions"}]}], "session": {"untrustedInstructions",
"lastInstruction"?: {"toolName", "toolCallId"?, "rules"}}, "truncated"}``."""


def match_arguments(stores: Sequence[SourceStore], arguments: Any) -> Provenance:
    """The origin of each leaf of ``arguments`` (a JSON-safe object) over the sources of
    ``stores`` (docs/provenance.md "Origin of a leaf"): ``{"arguments": [...], "truncated": bool}``,
    arguments in leaf order, leaves with no segment left out.

    Cost: for each distinct segment (at most 64 leaves × 17 segments), one substring search over
    each store's trusted text (at most 256 KiB), and over the tool sources the store's chunk
    index names as candidates (every tool source, at most 1 MiB, for segments under 5
    characters)."""
    out: List[Dict[str, Any]] = []
    memo: Dict[str, Tuple[bool, List[Source]]] = {}  # a segment seen in several leaves is searched once
    found, truncated = leaves(arguments)
    for path, value in found:
        segs = segments(leaf_text(value))
        if not segs:
            continue
        any_user = any_tool = tainted = False
        tool_hits: Dict[int, Source] = {}
        taint_hits: Dict[int, Source] = {}
        for seg in segs:
            known = memo.get(seg)
            if known is None:
                known = memo[seg] = (
                    any(store.in_trusted(seg) for store in stores),
                    [s for store in stores for s in store.tools_with(seg)],
                )
            in_user, hits = known
            any_user = any_user or in_user
            if hits:
                any_tool = True
                for s in hits:
                    tool_hits[s.seq] = s
                if not in_user:
                    tainted = True
                    for s in hits:
                        taint_hits[s.seq] = s
        origin = "both" if any_user and any_tool else "user" if any_user else "tool" if any_tool else "none"
        named = taint_hits if tainted else tool_hits
        chosen = [named[k] for k in sorted(named, reverse=True)[:MAX_SOURCES_PER_LEAF]]
        out.append(
            {
                "path": path[:MAX_PATH_CHARS],
                "origin": origin,
                "tainted": tainted,
                "instructed": tainted and any(s.instructions for s in taint_hits.values()),
                "sources": [_source_ref(s) for s in chosen],
            }
        )
    return {"arguments": out, "truncated": truncated}


def _source_ref(s: Source) -> Dict[str, Any]:
    ref: Dict[str, Any] = {"toolName": s.tool_name or "unknown"}
    if s.tool_call_id is not None:
        ref["toolCallId"] = s.tool_call_id
    ref["instructions"] = s.instructions
    return ref


class ProvenanceTracker:
    """Keeps, per run, what entered the agent's context and from where, and answers the
    provenance of a guarded call's arguments. Thread-safe; the detector and the normal forms run
    outside the lock.

    Sources go to the store of their scope (the run's, or the session's outside runs); a call
    matches against its run's store, the enclosing runs' and its session's (docs/provenance.md
    "Bounds"). Instruction sightings are counted per session for as long as the tracker lives (the
    :data:`MAX_COUNTED_SESSIONS` most recently used sessions)."""

    def __init__(self, detector: Optional[Callable[[str], InstructionFinding]] = None) -> None:
        """``detector``: the instruction detector (default: the shipped rules).

        Raises:
            OSError, ValueError, re.error: the shipped rules file cannot be read or compiled.
        """
        self._detect = detector or instruction_detector()
        self._lock = threading.Lock()
        self._table = StoreTable()
        self._seq = itertools.count(1)
        self._sightings: "OrderedDict[str, List[Any]]" = OrderedDict()  # session -> [count, last]

    def after_fork_in_child(self) -> None:
        """A forked child gets a fresh lock (the parent's may have been held by another thread)."""
        self._lock = threading.Lock()

    # -- runs and sessions ---------------------------------------------------------------------------

    def open_run(self, run_id: str, parent_run_id: Optional[str]) -> None:
        """A run starts: its store is made (inside ``parent_run_id``'s, when given)."""
        with self._lock:
            self._table.open_run(run_id, parent_run_id)

    def close_run(self, run_id: str) -> None:
        """A run ended: its sources are dropped."""
        with self._lock:
            self._table.close_run(run_id)

    def close_session(self, session_id: str) -> None:
        """A session ended: the sources of its calls outside runs are dropped (its instruction
        count stays)."""
        with self._lock:
            self._table.close_session(session_id)

    # -- sources -------------------------------------------------------------------------------------

    def add_trusted(self, session_id: str, run_id: Optional[str], value: Any) -> None:
        """Records ``value`` (a string, number, mapping or sequence) as trusted: the user's request,
        a user message, or what the integrator marks trusted."""
        norm = normalize(source_text(value))
        if not norm:
            return
        with self._lock:
            self._table.store_for(session_id, run_id).add(Source(next(self._seq), TRUSTED, norm))

    def add_tool(
        self,
        session_id: str,
        run_id: Optional[str],
        value: Any,
        tool_name: Optional[str],
        tool_call_id: Optional[str],
    ) -> None:
        """Records ``value`` as untrusted tool output of ``tool_name`` (call ``tool_call_id``, a
        UUIDv7, when known) and checks it for instructions aimed at the model."""
        text = source_text(value)
        norm = normalize(text)
        finding = self._detect(text) if text else None
        name = (tool_name or "unknown")[:MAX_TOOL_NAME_CHARS]
        with self._lock:
            if finding is not None and finding.instructions:
                sighting: Dict[str, Any] = {"toolName": name}
                if tool_call_id is not None:
                    sighting["toolCallId"] = tool_call_id
                sighting["rules"] = list(finding.rules[:MAX_SIGHTING_RULES])
                entry = self._sightings.get(session_id)
                if entry is None:
                    entry = self._sightings[session_id] = [0, None]
                    while len(self._sightings) > MAX_COUNTED_SESSIONS:
                        self._sightings.popitem(last=False)
                self._sightings.move_to_end(session_id)
                entry[0] += 1
                entry[1] = sighting
            if norm:
                source = Source(
                    next(self._seq),
                    TOOL,
                    norm,
                    name,
                    tool_call_id,
                    bool(finding is not None and finding.instructions),
                )
                self._table.store_for(session_id, run_id).add(source)

    # -- provenance ----------------------------------------------------------------------------------

    def provenance(self, session_id: str, run_id: Optional[str], arguments: Any) -> Provenance:
        """The wire ``Provenance`` of ``arguments`` (JSON-safe) for a call in this scope."""
        with self._lock:
            stores = self._table.chain(session_id, run_id)
            result = match_arguments(stores, arguments)
            entry = self._sightings.get(session_id)
        session: Dict[str, Any] = {"untrustedInstructions": entry[0] if entry else 0}
        if entry and entry[1] is not None:
            session["lastInstruction"] = dict(entry[1])
        return {"arguments": result["arguments"], "session": session, "truncated": result["truncated"]}

    def store_counts(self) -> Dict[str, int]:
        """Sizes kept now (for tests and diagnostics): run stores, session stores."""
        with self._lock:
            runs, sessions = self._table.counts()
        return {"runs": runs, "sessions": sessions}


def vector_store(sources: Iterable[Dict[str, Any]]) -> SourceStore:
    """A store fed as the matching vectors feed it: ``[{kind, value, toolName?, toolCallId?,
    instructions?}]`` in order of arrival, ``instructions`` given instead of detected."""
    store = SourceStore()
    for seq, s in enumerate(sources, 1):
        norm = normalize(source_text(s["value"]))
        if not norm:
            continue
        if s["kind"] == TRUSTED:
            store.add(Source(seq, TRUSTED, norm))
        else:
            store.add(Source(seq, TOOL, norm, s.get("toolName"), s.get("toolCallId"), bool(s.get("instructions"))))
    return store
