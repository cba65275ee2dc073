"""Per-run stores of the sources that entered the agent's context, within the bounds of
docs/provenance.md "Bounds"."""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass, replace
from typing import Deque, Dict, Iterator, List, Optional, Tuple

from ._provenance_index import MIN_INDEXED_CHARS, ChunkIndex

#: Tool-source normal-form characters kept per store; the oldest tool sources are evicted first.
MAX_TOOL_CHARS = 1_048_576
#: Trusted normal-form characters kept per store; the oldest trusted sources are evicted first.
MAX_TRUSTED_CHARS = 262_144
#: Sources kept per store.
MAX_SOURCES = 512
#: Run stores kept at once; the least recently used is dropped.
MAX_RUNS = 64
#: Session-level stores (calls outside a run) kept at once; the least recently used is dropped.
MAX_SESSIONS = 8

#: Kind of a source the user (or the integrator) vouches for.
TRUSTED = "user"
#: Kind of a source that came out of a tool.
TOOL = "tool"
#: Separates the normal forms in a store's joined trusted text: normal forms hold only letters and
#: digits, so no match spans two sources.
_SEP = "\x00"


@dataclass(frozen=True)
class Source:
    """A piece of text that entered the agent's context (docs/provenance.md "Sources").

    Attributes:
        seq: arrival number across every store of a client (higher is more recent).
        kind: ``user`` (trusted) or ``tool``.
        norm: the normal form of the source's text (non-empty).
        tool_name: for ``tool``: the tool whose output it is.
        tool_call_id: for ``tool``: the call's id (a UUIDv7), when known.
        instructions: for ``tool``: the detector found instructions aimed at the model in it.
    """

    seq: int
    kind: str
    norm: str
    tool_name: Optional[str] = None
    tool_call_id: Optional[str] = None
    instructions: bool = False


class SourceStore:
    """The sources of one run (or of a session's calls outside runs), oldest first.

    Bounds: at most :data:`MAX_SOURCES` sources, :data:`MAX_TOOL_CHARS` tool and
    :data:`MAX_TRUSTED_CHARS` trusted normal-form characters; :meth:`add` evicts the oldest sources
    of the kind over its budget, and past :data:`MAX_SOURCES` the oldest tool source (the oldest
    trusted one only when no tool source is left).

    Trusted lookups search one joined text (one substring search in C), rebuilt on the first lookup
    after a change; tool lookups check only the candidates of a :class:`ChunkIndex` (segments of
    at least 5 characters) or scan every tool source (shorter ones). Not thread-safe: the tracker
    locks."""

    def __init__(self, parent: Optional[str] = None) -> None:
        #: Key of the enclosing run's store (or None: the session's store encloses it).
        self.parent = parent
        self._tool: Deque[Source] = deque()
        self._trusted: Deque[Source] = deque()
        self.tool_chars = 0
        self.trusted_chars = 0
        self._dirty = True
        self._trusted_text = ""
        self._index = ChunkIndex(MAX_SOURCES)
        self._slot: Dict[int, int] = {}  # seq -> slot in the index
        self._by_slot: List[Optional[Source]] = [None] * MAX_SOURCES

    def __len__(self) -> int:
        return len(self._tool) + len(self._trusted)

    def add(self, source: Source) -> None:
        """Keeps ``source`` and evicts what the bounds no longer allow (a normal form longer than
        its kind's budget, possible only when NFKC expands the text, is cut to it)."""
        cap = MAX_TOOL_CHARS if source.kind == TOOL else MAX_TRUSTED_CHARS
        if len(source.norm) > cap:
            source = replace(source, norm=source.norm[:cap])
        if source.kind == TOOL:
            self._tool.append(source)
            self.tool_chars += len(source.norm)
            while self.tool_chars > MAX_TOOL_CHARS and self._tool:
                self._drop_tool()
            while len(self) > MAX_SOURCES and len(self._tool) > 1:
                self._drop_tool()
            slot = self._index.add(source.norm)
            self._slot[source.seq] = slot
            self._by_slot[slot] = source
        else:
            self._dirty = True
            self._trusted.append(source)
            self.trusted_chars += len(source.norm)
            while self.trusted_chars > MAX_TRUSTED_CHARS and self._trusted:
                self.trusted_chars -= len(self._trusted.popleft().norm)
        while len(self) > MAX_SOURCES:
            if self._tool:
                self._drop_tool()
            else:
                self._dirty = True
                self.trusted_chars -= len(self._trusted.popleft().norm)

    def _drop_tool(self) -> None:
        old = self._tool.popleft()
        self.tool_chars -= len(old.norm)
        slot = self._slot.pop(old.seq, None)
        if slot is not None:
            self._index.remove(slot)
            self._by_slot[slot] = None

    def in_trusted(self, segment: str) -> bool:
        """True when ``segment`` (a normal form) is found in a trusted source."""
        if self._dirty:
            self._trusted_text = _SEP.join(s.norm for s in self._trusted)
            self._dirty = False
        return segment in self._trusted_text

    def tools_with(self, segment: str) -> List[Source]:
        """The tool sources ``segment`` (a normal form) is found in, in no particular order."""
        if len(segment) < MIN_INDEXED_CHARS:
            return [s for s in self._tool if segment in s.norm]
        out: List[Source] = []
        bits = self._index.candidates(segment)
        by_slot = self._by_slot
        while bits:
            low = bits & -bits
            source = by_slot[low.bit_length() - 1]
            if source is not None and segment in source.norm:
                out.append(source)
            bits ^= low
        return out

    def trusted(self) -> Iterator[Source]:
        """The trusted sources, most recent first."""
        return reversed(self._trusted)

    def tools(self) -> Iterator[Source]:
        """The tool sources, most recent first."""
        return reversed(self._tool)


class StoreTable:
    """The stores of a client: one per open run (at most :data:`MAX_RUNS`) and one per session for
    calls outside runs (at most :data:`MAX_SESSIONS`), each table least recently used first. A
    run's store names its enclosing run's store, so a call sees its run's sources, those of the
    runs around it, and its session's. Not thread-safe: the tracker locks."""

    def __init__(self) -> None:
        self._runs: "OrderedDict[str, SourceStore]" = OrderedDict()
        self._sessions: "OrderedDict[str, SourceStore]" = OrderedDict()

    def open_run(self, run_id: str, parent_run_id: Optional[str]) -> SourceStore:
        """Makes the store of a run that starts (dropping the least recently used past the bound)."""
        store = SourceStore(parent_run_id)
        self._runs[run_id] = store
        self._runs.move_to_end(run_id)
        while len(self._runs) > MAX_RUNS:
            self._runs.popitem(last=False)
        return store

    def close_run(self, run_id: str) -> None:
        """Drops the store of a run that ended."""
        self._runs.pop(run_id, None)

    def close_session(self, session_id: str) -> None:
        """Drops the store of a session that ended."""
        self._sessions.pop(session_id, None)

    def store_for(self, session_id: str, run_id: Optional[str]) -> SourceStore:
        """The store new sources of this scope go to: the run's (made when the run's store was
        dropped, or the run was never opened here), else the session's."""
        if run_id is not None:
            store = self._runs.get(run_id)
            if store is None:
                return self.open_run(run_id, None)
            self._runs.move_to_end(run_id)
            return store
        store = self._sessions.get(session_id)
        if store is None:
            store = self._sessions[session_id] = SourceStore()
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)
        else:
            self._sessions.move_to_end(session_id)
        return store

    def chain(self, session_id: str, run_id: Optional[str]) -> List[SourceStore]:
        """The stores a call of this scope matches against: its run's, the enclosing runs' (up to
        :data:`MAX_RUNS`), then its session's; the ones that do not exist are left out."""
        out: List[SourceStore] = []
        seen: Tuple[str, ...] = ()
        key = run_id
        while key is not None and key not in seen and len(out) < MAX_RUNS:
            seen += (key,)
            store = self._runs.get(key)
            if store is None:
                break
            out.append(store)
            key = store.parent
        session = self._sessions.get(session_id)
        if session is not None:
            out.append(session)
        return out

    def counts(self) -> Tuple[int, int]:
        """``(run stores, session stores)`` kept now."""
        return len(self._runs), len(self._sessions)
